"""What the runs of `plan`'s search have settled for fleets not yet run (`Settled`), from two
facts about the simulator:

- A pair of pools' time to first token is its prefill pool's alone: the first token leaves
  the prefill instance, which hands the prompt's KV on and frees it, so no decode instance
  changes its steps (tests/planning/test_fleet_prompts.py). Prompts (a prefill shape and
  its instances) that missed TTFT fail every fleet they feed, which is then not simulated;
  prompts that met a run's TTFT limit to the end meet it with any decode pool, so a later
  pair's run of them may stop on TPOT alone (`EarlyStop.prompts_first` otherwise).
- More instances meet a target that fewer met: the ladders' own assumption (they bisect
  back from a count that meets, and trim), taken here for the screen, so that a fleet with
  more decode instances (or replicas) of the same shapes and prefill pool than one that
  passed the screen skips it (the draws, the real test, still decide).
"""

from __future__ import annotations

import math

from llm_roofline.planning.fleet_early import EarlyStop
from llm_roofline.planning.fleet_result import Draw

__all__ = ["Group", "Prompts", "Settled"]

Prompts = tuple[int, int]  # a prefill pool: its shape's id and its instances
Group = tuple[int, int, int]  # fleets differing only in decode instances: (prefill shape's id
# or that of None, decode shape's id, prefill instances)


class Settled:
    """What earlier runs settled (module docstring), for targets `ttft_s` and `tpot_s`."""

    def __init__(self, ttft_s: float, tpot_s: float) -> None:
        self.ttft_s = ttft_s
        self.tpot_s = tpot_s
        self.slow: set[Prompts] = set()  # prompts that missed TTFT
        self.fast: set[tuple[int, int, int]] = set()  # (*prompts, run) met its limit
        self.passed: dict[Group, int] = {}  # the fewest decode instances past the screen

    def prompts_missed(self, prompts: Prompts) -> bool:
        return prompts in self.slow

    def stop(self, scale: float, prompts: Prompts | None, run: int) -> EarlyStop:
        """When run `run` (the screen, -1, or a draw's index) of a fleet may stop: past
        `scale` times a target; a pair of pools only on TTFT, unless its prompts met that
        run's TTFT limit before."""
        first = prompts is not None and (*prompts, run) not in self.fast
        return EarlyStop(scale * self.ttft_s, scale * self.tpot_s, first)

    def ran(self, prompts: Prompts | None, run: int, draw: Draw, limit: float) -> None:
        """Run `run` ended with `draw`: a pair's prompts that met TTFT `limit` to the end."""
        t90 = draw.ttft_p90_s
        if prompts is not None and not draw.stopped and t90 is not None and t90 <= limit:
            self.fast.add((*prompts, run))

    def judged(self, prompts: Prompts | None, draws: tuple[Draw, ...], limit: float) -> None:
        """A fleet's runs ended with `draws`, failed on the screen or by a draw at TTFT
        `limit` (the screen's, or the target): a pair's prompts that miss TTFT."""
        if prompts is not None and any(
            x.ttft_p90_s is not None and x.ttft_p90_s > limit for x in draws
        ):
            self.slow.add(prompts)

    def screen_passed(self, group: Group, d: int) -> bool:
        """Fewer decode instances (or replicas) of `group` than `d` passed the screen."""
        return d >= self.passed.get(group, math.inf)

    def passes(self, group: Group, d: int) -> None:
        self.passed[group] = min(d, self.passed.get(group, d))

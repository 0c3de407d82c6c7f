"""Importing the command line loads neither numpy nor the engine: its modules take their
names (overlap and serving modes, the what-if bounds) from modules without numpy. Building the
parsers still loads the engine for the engine families' names (docs/performance.md says so;
benchmarks/startup.py times `--help`)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_command_line_loads_no_numpy_and_no_engine() -> None:
    code = (
        "import sys, llm_roofline.cli\n"
        "heavy = [m for m in sys.modules if m == 'numpy' or m.startswith(("
        "'llm_roofline.engine.roofline', 'llm_roofline.deploy', 'llm_roofline.sim'))]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""The command line starts without the engine: `--help` and the parsers need neither numpy nor
any wing below the command line's own names (benchmarks/startup.py times it)."""

from __future__ import annotations

import subprocess
import sys


def test_the_command_line_loads_no_numpy_and_no_engine() -> None:
    code = (
        "import sys, llm_roofline.cli\n"
        "heavy = [m for m in sys.modules if m == 'numpy' or m.startswith(("
        "'llm_roofline.engine.roofline', 'llm_roofline.deploy', 'llm_roofline.sim'))]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

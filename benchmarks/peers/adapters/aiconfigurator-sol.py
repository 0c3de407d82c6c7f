"""aiconfigurator in its pure roofline mode: ``database_mode="SOL"`` (speed of light, its
analytic model instead of the measured kernel database), otherwise asked exactly as the
``aiconfigurator`` adapter asks (same venv, same scenarios, same model configs)."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

os.environ["AIC_DATABASE_MODE"] = "SOL"
runpy.run_path(str(Path(__file__).with_name("aiconfigurator.py")), run_name="__main__")

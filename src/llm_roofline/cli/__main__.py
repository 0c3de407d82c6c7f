"""`python -m llm_roofline.cli`: the same as the `llm-roofline` command."""

import sys

from llm_roofline.cli import main

sys.exit(main())

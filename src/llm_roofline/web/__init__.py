"""The local web page: a JSON API over the library and a page that only calls it.

`llm-roofline serve` starts it (extra `web`). No formula lives here or in the page's script:
every number comes from the engine through the API.
"""

from __future__ import annotations

from llm_roofline.web.app import create_app

__all__ = ["create_app"]

"""The page's routes: `/` and its assets, plotly.js from the `plotly` package, and the API's
docs at `/docs` with Swagger UI 5's files from the `swagger-ui-bundle-v2` package. Everything
the page and the docs load is served here: nothing from a CDN, so both work offline."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

__all__ = ["page"]

page = APIRouter(include_in_schema=False)

_STATIC = resources.files("llm_roofline").joinpath("web/static")
# the page's own files; each view of the page has its script (common.js first: the shared parts)
_ASSETS = {
    "app.js": "text/javascript",
    "common.js": "text/javascript",
    "compare.js": "text/javascript",
    "planning.js": "text/javascript",
    "economics.js": "text/javascript",
    "whatif.js": "text/javascript",
    "style.css": "text/css",
}
# what /docs (Swagger UI) loads, from the swagger-ui-bundle-v2 package: nothing from a CDN
_SWAGGER = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}
# plotly.js and Swagger UI change only with their packages: a browser may keep them a day
_CACHE = {"cache-control": "public, max-age=86400"}


@page.get("/")
async def index() -> FileResponse:
    return FileResponse(str(_STATIC.joinpath("index.html")))


@page.get("/static/{name}")
async def asset(name: str) -> Response:
    if name not in _ASSETS:
        return JSONResponse({"detail": "no such asset", "field": "name"}, status_code=404)
    return FileResponse(str(_STATIC.joinpath(name)), media_type=_ASSETS[name])


@page.get("/static/vendor/plotly.min.js")
async def plotly_js() -> FileResponse:
    """plotly.js as the `plotly` package ships it (the page's charts; nothing from a CDN)."""
    path = resources.files("plotly").joinpath("package_data/plotly.min.js")
    return FileResponse(str(path), media_type="text/javascript", headers=_CACHE)


@page.get("/static/swagger/{name}")
async def swagger_asset(name: str) -> Response:
    """Swagger UI's files as the `swagger-ui-bundle-v2` package ships them (for /docs)."""
    if name not in _SWAGGER:
        return JSONResponse({"detail": "no such asset", "field": "name"}, status_code=404)
    return FileResponse(f"{swagger_ui_path}/{name}", media_type=_SWAGGER[name], headers=_CACHE)


@page.get("/docs")
async def docs() -> HTMLResponse:
    """The API's interactive docs (Swagger UI), every asset served here."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="llm-roofline API",
        swagger_js_url="/static/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger/swagger-ui.css",
        swagger_favicon_url="/static/swagger/favicon-32x32.png",
    )

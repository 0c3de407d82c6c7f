"""web/page.py: the page, its scripts and styles, plotly.js and Swagger UI's files, each served
from the installed packages (nothing from a CDN: the page works offline); a name it does not
ship is a 404 naming the field."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

from llm_roofline.web.page import page

APP = FastAPI(docs_url=None, redoc_url=None)  # as create_app: /docs is the page's
APP.include_router(page)
client = TestClient(APP)
STATIC = Path(str(resources.files("llm_roofline").joinpath("web/static")))


def test_the_page_and_each_static_file_are_the_packages_own() -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert r.content == (STATIC / "index.html").read_bytes()
    types = {".js": "text/javascript", ".css": "text/css"}
    shipped = sorted(p for p in STATIC.iterdir() if p.suffix in types)
    assert {p.name for p in shipped} >= {"app.js", "common.js", "style.css"}
    for path in shipped:
        r = client.get(f"/static/{path.name}")
        assert r.status_code == 200, path.name
        assert r.content == path.read_bytes()
        assert r.headers["content-type"].startswith(types[path.suffix])


def test_plotly_js_comes_from_the_plotly_package() -> None:
    r = client.get("/static/vendor/plotly.min.js")
    assert r.status_code == 200
    shipped = resources.files("plotly").joinpath("package_data/plotly.min.js").read_bytes()
    assert r.content == shipped
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "public, max-age=86400"  # a day


def test_docs_load_swagger_ui_from_here() -> None:
    html = client.get("/docs").text
    assert "/static/swagger/swagger-ui-bundle.js" in html
    assert "/static/swagger/swagger-ui.css" in html
    assert "cdn" not in html.lower()
    r = client.get("/static/swagger/swagger-ui.css")
    assert r.status_code == 200
    assert r.content == Path(swagger_ui_path, "swagger-ui.css").read_bytes()


def test_names_it_does_not_ship_are_404s() -> None:
    for url in ("/static/index.html", "/static/nope.js", "/static/swagger/index.html"):
        r = client.get(url)
        assert r.status_code == 404, url
        assert r.json() == {"detail": "no such asset", "field": "name"}
    assert client.get("/static/../pyproject.toml").status_code == 404

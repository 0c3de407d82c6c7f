"""FastAPI application: the API (`/api/...`, OpenAPI at `/openapi.json`) and the page (`/`).

`create_app` only assembles: the body-size limit, the error handlers and the routes (the
page's in `page.py`, the API's in `routes*.py`, one module a view; request bodies and answers
in `schemas*.py`, a request's deployment in `request_deployment.py`, the report's body in
`report_body.py`).

Errors: a library error (unknown id, bad config, impossible split) is a 400 whose body names
the field: `{"detail": "...", "field": "..."}`; a malformed request is FastAPI's 422 with the
field's location; a body over 1 MB is a 413. Never a 500 on bad input.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from llm_roofline import __version__
from llm_roofline._core.errors import LlmRooflineError
from llm_roofline.web.page import page
from llm_roofline.web.routes import api
from llm_roofline.web.routes_deployment import api_deployment
from llm_roofline.web.routes_economics import api_economics
from llm_roofline.web.routes_plan import api_plan
from llm_roofline.web.routes_simulate import api_simulate
from llm_roofline.web.routes_whatif import api_whatif

__all__ = ["MAX_BODY", "create_app"]

MAX_BODY = 1_000_000  # bytes


async def limit_body(request: Request, call_next: Any) -> Response:
    """A 413 before reading a body declared over MAX_BODY (or with a malformed length)."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        return JSONResponse(
            {"detail": f"request body over {MAX_BODY:,} bytes", "field": "body"},
            status_code=413,
        )
    response: Response = await call_next(request)
    return response


async def library_error(request: Request, exc: LlmRooflineError) -> JSONResponse:
    """The library's own errors are the request's fault: a 400 naming the field."""
    field = getattr(exc, "field", None) or getattr(exc, "kind", None) or "body"
    return JSONResponse({"detail": str(exc), "field": field}, status_code=400)


async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422, without the input it echoes back: NaN or Infinity there cannot be
    written as JSON."""
    detail = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")} for e in exc.errors()]
    field = next((str(e["loc"][-1]) for e in detail if e.get("loc")), "body")
    return JSONResponse({"detail": detail, "field": field}, status_code=422)


def create_app() -> FastAPI:
    app = FastAPI(
        title="llm-roofline",
        version=__version__,
        description="How fast can this model run on that hardware, and what does a token cost?",
        docs_url=None,  # /docs is page.docs: Swagger UI from the package, not a CDN
        redoc_url=None,
    )
    app.middleware("http")(limit_body)
    app.exception_handler(LlmRooflineError)(library_error)
    app.exception_handler(RequestValidationError)(bad_request)
    app.include_router(page)
    app.include_router(api)
    app.include_router(api_deployment)
    app.include_router(api_simulate)
    app.include_router(api_plan)
    app.include_router(api_economics)
    app.include_router(api_whatif)
    return app

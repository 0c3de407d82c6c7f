"""API routes of the page's what-if views: what matters most (sensitivity) and fast modes.
Each asks the library; none computes a figure itself."""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["api_whatif"]

api_whatif = APIRouter(prefix="/api")

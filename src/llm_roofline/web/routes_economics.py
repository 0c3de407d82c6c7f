"""API routes of the page's economics view: prices read backwards, cost vs context, cache tiers.
Each asks the library (`economics.py`); none computes a figure itself."""

from __future__ import annotations

from fastapi import APIRouter

__all__ = ["api_economics"]

api_economics = APIRouter(prefix="/api")

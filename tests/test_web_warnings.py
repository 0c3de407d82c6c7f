"""`/api/report` returns the warnings reading an uploaded config gave (an unknown `model_type`)
in a `warnings` list, and the line saying what does not fit and what would."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline.deployment import deployment  # noqa: E402
from llm_roofline.report import fit_message  # noqa: E402
from llm_roofline.web import create_app  # noqa: E402

client = TestClient(create_app())
OLMO2 = json.loads(
    (Path(__file__).parent / "data" / "configs" / "olmo2-7b.json").read_text(encoding="utf-8")
)
BODY = {"hardware": "h100-sxm", "chips": 1, "context_len": 4096, "batch": 1, "engine": "ideal"}


def test_an_uploaded_config_of_an_unknown_type_reports_its_warning() -> None:
    r = client.post("/api/report", json={**BODY, "model": "olmo2-7b", "config": OLMO2})
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["warnings"]) == 1
    note = body["warnings"][0]
    assert note.startswith("model_type 'olmo2' is not one of the")
    assert "hidden_size" in note and "num_hidden_layers" in note
    # the same request again: the warning is there each time (not once per process)
    again = client.post("/api/report", json={**BODY, "model": "olmo2-7b", "config": OLMO2})
    assert again.json()["warnings"] == body["warnings"]


def test_a_catalog_model_has_no_warnings() -> None:
    r = client.post("/api/report", json={**BODY, "model": "llama-3.1-8b"})
    assert r.status_code == 200 and r.json()["warnings"] == []


def test_an_unknown_type_lacking_a_needed_field_is_a_400_naming_it() -> None:
    cfg = {k: v for k, v in OLMO2.items() if k != "num_hidden_layers"}
    r = client.post("/api/report", json={**BODY, "config": cfg})
    assert r.status_code == 400 and "num_hidden_layers" in r.text


def test_the_page_gets_the_librarys_fit_line() -> None:
    # Llama 3.1 8B at 131,072 tokens on an RTX 4090: the KV cache overflows (the arithmetic is
    # in test_fit_messages.py); the API's line is the report's, word for word
    body = {**BODY, "model": "llama-3.1-8b", "hardware": "rtx-4090", "context_len": 131_072}
    r = client.post("/api/report", json=body)
    assert r.status_code == 200, r.text
    a = r.json()["at_batch"]
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    assert a["fits"] is False
    assert a["fit_message"] == fit_message(dep, 131_072, 1)
    assert "the weights fit but not with the KV cache" in a["fit_message"]

"""`/api/report` returns the warnings reading an uploaded config gave (an unknown `model_type`)
in a `warnings` list, and the line saying what does not fit and what would."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from llm_roofline._core.errors import LlmRooflineWarning  # noqa: E402
from llm_roofline.deploy.deployment import deployment  # noqa: E402
from llm_roofline.deploy.report_table import fit_message  # noqa: E402
from llm_roofline.web import create_app  # noqa: E402

client = TestClient(create_app())
OLMO2 = json.loads(
    (Path(__file__).parents[1] / "data" / "configs" / "olmo2-7b.json").read_text(encoding="utf-8")
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
    # in tests/deploy/test_fit_advice.py); the API's line is the report's, word for word
    body = {**BODY, "model": "llama-3.1-8b", "hardware": "rtx-4090", "context_len": 131_072}
    r = client.post("/api/report", json=body)
    assert r.status_code == 200, r.text
    a = r.json()["at_batch"]
    dep = deployment("llama-3.1-8b", "rtx-4090", engine="ideal")
    assert a["fits"] is False
    assert a["fit_message"] == fit_message(dep, 131_072, 1)
    assert "the weights fit but not with the KV cache" in a["fit_message"]


def test_the_note_is_the_warnings_line_and_a_pure_call() -> None:
    """`hf_config.unknown_type_note` gives the line `spec_from_config` warns with (None for a
    known type), and raises no warning itself."""
    from llm_roofline.model.checkpoints import model_entry
    from llm_roofline.model.hf.config import spec_from_config, unknown_type_note

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec_from_config(OLMO2, name="olmo2-7b", source="upload")
    warned = [str(w.message) for w in caught if issubclass(w.category, LlmRooflineWarning)]
    assert len(warned) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning would raise here
        assert unknown_type_note(OLMO2, name="olmo2-7b", source="upload") == warned[0]
        assert unknown_type_note(model_entry("llama-3.1-8b").config) is None


def test_another_threads_warnings_do_not_land_in_a_report() -> None:
    """A server answers requests on several threads; `warnings.catch_warnings` is process-wide,
    so recording around one request's config read would catch another's warnings. The report's
    warnings are the config's own note, whatever other threads warn meanwhile."""
    import sys
    import threading

    from llm_roofline.web.report_body import config_warnings
    from llm_roofline.web.schemas import ReportRequest

    req = ReportRequest.model_validate({"model": "olmo2-7b", "config": OLMO2})
    own = config_warnings(req)
    assert len(own) == 1
    stop = threading.Event()

    def other_request() -> None:
        while not stop.is_set():
            warnings.warn(LlmRooflineWarning("another request's warning"), stacklevel=1)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    noisy = threading.Thread(target=other_request, daemon=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LlmRooflineWarning)  # the noisy thread's, unprinted
        noisy.start()
        try:
            got = [config_warnings(req) for _ in range(500)]
        finally:
            stop.set()
            noisy.join()
            sys.setswitchinterval(interval)
    assert all(g == own for g in got), next(g for g in got if g != own)

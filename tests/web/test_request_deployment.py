"""web/request_deployment.py: a request's deployment, from a catalog id or an uploaded config on
catalog hardware or the request's own chip record; the server reads no files (a path is an
unknown id), and every bad name is a ConfigError naming the request's field."""

from __future__ import annotations

from typing import Any

import pytest

from llm_roofline._core.errors import ConfigError
from llm_roofline.web.request_deployment import deployment_of
from llm_roofline.web.schemas import SystemQuery
from tests.conftest import llama_like

SPARSE = "docs/examples/deepseek-v3.2-sparse.config.json"  # a file that exists in the repository


def _query(**fields: Any) -> SystemQuery:
    return SystemQuery.model_validate(fields)


def test_a_catalog_model_on_catalog_hardware() -> None:
    dep = deployment_of(_query(model="llama-3.1-8b", hardware="h100-sxm", chips=2, engine="ideal"))
    assert (dep.model.name, dep.chip.id, dep.chips, dep.engine) == (
        "Llama 3.1 8B",
        "h100-sxm",
        2,
        "ideal",
    )
    # the H100 SXM's 3.35 TB/s of HBM3 (NVIDIA's H100 datasheet)
    assert dep.chip.memory_bw == 3.35e12


def test_an_uploaded_config_on_a_chip_of_the_requests_own() -> None:
    chip = {"bf16_dense_tflops": 100, "memory_capacity_gb": 24, "memory_bandwidth_tb_per_s": 2}
    dep = deployment_of(
        _query(config=llama_like(), chip=chip, engine="ideal", price_usd_per_hour=3.6)
    )
    assert dep.model.name == "uploaded config"
    assert dep.chip.id == "my-chip"  # a record without an id
    # the record's units: 100 TFLOP/s = 1e14 FLOP/s, 24 GB = 24e9 bytes, 2 TB/s = 2e12 bytes/s
    assert dep.chip.peak_flops["bf16"] == 1e14
    assert (dep.chip.memory_bytes, dep.chip.memory_bw) == (24e9, 2e12)
    # $3.60 per chip-hour = $0.001 per second
    assert dep.system.price_usd_per_s == pytest.approx(0.001)
    named = deployment_of(
        _query(model="mine", config=llama_like(), chip={"id": "x1", **chip}, engine="ideal")
    )
    assert (named.model.name, named.chip.id) == ("mine", "x1")


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"model": SPARSE}, "model", f"unknown model '{SPARSE}'"),
        ({"model": "/etc/passwd"}, "model", "unknown model '/etc/passwd'"),
        ({}, "model", "give a catalog model id or an uploaded config.json"),
        ({"model": "llama-3.1-8b", "hardware": "nope"}, "hardware", "unknown hardware 'nope'"),
        ({"model": "llama-3.1-8b", "weight_dtype": "fp7"}, "weight_dtype", "unknown data type"),
        ({"model": "llama-3.1-8b", "kv_dtype": "int3"}, "kv_dtype", "unknown data type 'int3'"),
        ({"model": "llama-3.1-8b", "engine": "warp"}, "engine", "unknown engine 'warp'"),
    ],
)
def test_refusals_name_the_field(query: dict[str, str], field: str, message: str) -> None:
    # a path, even to a config that exists, is not read: only catalog ids are
    with pytest.raises(ConfigError) as info:
        deployment_of(_query(**query))
    assert info.value.field == field
    assert str(info.value).startswith(message)

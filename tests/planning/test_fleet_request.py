"""`FleetRequest`, the planning question the command line and the web both build: it refuses
what `plan` refused, with the same words and field (each message below is the one `plan` gave
before the request had a type of its own), and resolves the question once (chips named twice
searched once, the engine's name, the model's id). `from_fields` takes the web's field names:
targets in ms and prices per chip id."""

from __future__ import annotations

import dataclasses

import pytest

from llm_roofline._core.errors import InputError, LlmRooflineError, UnknownIdError
from llm_roofline.hardware.catalog import get_hardware
from llm_roofline.model.checkpoints import get_model
from llm_roofline.planning.fleet_plan import plan
from llm_roofline.planning.fleet_request import FleetRequest, priced_chips

MODEL = "llama-3.1-8b"
OK = {
    "rate": 1.0,
    "input_len": 512,
    "output_len": 128,
    "ttft_p90_s": 0.3,
    "tpot_p99_s": 0.04,
}


def _refused(hardware: object = ("h100-sxm",), **kw: object) -> InputError:
    with pytest.raises(InputError) as exc:
        FleetRequest(MODEL, hardware, **{**OK, **kw})
    return exc.value


@pytest.mark.parametrize(
    "kw,field,message",
    [
        ({"rate": 0.0}, "rate", "rate must be a positive number, got 0.0"),
        ({"ttft_p90_s": -1.0}, "ttft_p90_s", "ttft_p90_s must be a positive number, got -1.0"),
        ({"tpot_p99_s": True}, "tpot_p99_s", "tpot_p99_s must be a positive number, got True"),
        ({"input_len": 2.5}, "input_len", "input_len must be a positive integer, got 2.5"),
        ({"max_chips": 0}, "max_chips", "max_chips must be a positive integer, got 0"),
        ({"requests": -5}, "requests", "requests must be a positive integer, got -5"),
        (
            {"time_limit_s": float("inf")},
            "time_limit_s",
            "time_limit_s must be a positive number, got inf",
        ),
        (
            {"max_seqs": 64, "max_batched_tokens": 32},
            "max_batched_tokens",
            "max_batched_tokens (32) must be at least max_seqs (64): every sequence in flight"
            " decodes a token each step",
        ),
        ({"disagg": "maybe"}, "disagg", "disagg must be one of auto, yes, no, got 'maybe'"),
        (
            {"serving_engine": "tgi"},
            "serving_engine",
            "serving_engine must be one of vllm, sglang, tensorrt-llm, lmdeploy, roofline,"
            " got 'tgi'",
        ),
    ],
)
def test_refuses_what_plan_refused_in_its_words(
    kw: dict[str, object], field: str, message: str
) -> None:
    err = _refused(**kw)
    assert err.field == field and str(err) == message


def test_refuses_unknown_ids_naming_the_field() -> None:
    for kw, field in (
        ({"weight_dtype": "fp7"}, "weight_dtype"),
        ({"kv_dtype": "int3"}, "kv_dtype"),
    ):
        assert _refused(**kw).field == field
    with pytest.raises(UnknownIdError) as exc:
        FleetRequest(MODEL, ["h100-sxm"], engine="nonsense", **OK)
    assert exc.value.kind == "engine"
    for hardware in ([], "", " , ", ["h100-sxmm"], ["h100-sxm", "no-such-chip"]):
        err = _refused(hardware)
        assert err.field == "hardware"
    assert str(_refused([])) == "give at least one hardware id"


def test_the_first_bad_field_is_the_one_named() -> None:
    """The checks run in plan's old order: the numbers before the engine, the engine before the
    hardware, so a request wrong twice names the same field it did."""
    err = _refused(["nope"], rate=-1.0, disagg="x")
    assert err.field == "rate"
    assert _refused(["nope"], disagg="x").field == "disagg"


def test_a_chip_without_a_price_or_two_chips_of_one_id_are_refused() -> None:
    h100 = get_hardware("h100-sxm")
    unpriced = dataclasses.replace(h100, price_usd_per_s=0.0)
    err = _refused([unpriced])
    assert err.field == "hardware" and str(err) == (
        "h100-sxm has no price in the catalog; plan ranks fleets by cost (give a chip record "
        "with price_usd_per_hour)"
    )
    err = _refused([h100, h100.with_price(1.0)])
    assert err.field == "hardware" and str(err) == "two different chips are called 'h100-sxm'"


def test_resolved_once_when_built() -> None:
    """A string of ids is split at commas, a chip named twice is kept once, the engine gets
    its checked name (none given: the default, calibrated), and a spec's id is its name."""
    req = FleetRequest(MODEL, "h100-sxm, a100-80gb,h100-sxm", **OK)
    assert [c.id for c in req.chips] == ["h100-sxm", "a100-80gb"]
    assert req.engine == "calibrated" and req.model_id == MODEL
    spec = get_model(MODEL)
    by_spec = FleetRequest(spec, ["h100-sxm"], engine=" IDEAL ", **OK)
    assert by_spec.model_id == spec.name and by_spec.engine == "ideal" and by_spec.spec is spec


def test_from_fields_reads_the_web_names() -> None:
    """The web's PlanRequest fields: targets in ms (300 ms is 0.3 s, 40 ms 0.04 s), prices in
    USD per chip-hour by chip id ($2 an hour is 2 / 3,600 $ a second)."""
    req = FleetRequest.from_fields(
        {
            "model": MODEL,
            "hardware": ["h100-sxm", "a100-80gb"],
            "prices": {"H100-SXM": 2.0},
            "rate": 5.0,
            "input_len": 512,
            "output_len": 64,
            "ttft_p90_ms": 300.0,
            "tpot_p99_ms": 40.0,
            "max_chips": 4,
            "disagg": "no",
            "requests": 400,
        },
        time_limit_s=60.0,
    )
    assert req.ttft_p90_s == pytest.approx(0.3) and req.tpot_p99_s == pytest.approx(0.04)
    h100, a100 = req.chips
    assert h100.price_usd_per_s == pytest.approx(2.0 / 3600)
    assert a100.price_usd_per_s == get_hardware("a100-80gb").price_usd_per_s  # the catalog's
    assert (req.max_chips, req.disagg, req.requests, req.time_limit_s) == (4, "no", 400, 60.0)


def test_from_fields_refuses_an_unknown_name_and_a_stray_price() -> None:
    base = {"model": MODEL, "hardware": ["h100-sxm"], **OK}
    with pytest.raises(InputError) as exc:
        FleetRequest.from_fields({**base, "max_chip": 8})
    assert exc.value.field == "max_chip"
    with pytest.raises(InputError) as exc:
        FleetRequest.from_fields({**base, "prices": {"mi300x": 2.0}})
    assert exc.value.field == "prices" and "not among the hardware" in str(exc.value)
    with pytest.raises(InputError) as exc:
        FleetRequest.from_fields({**base, "rate": 0}, tpot_p99_s=0.05)
    assert exc.value.field == "rate"


def test_plan_takes_a_request_alone() -> None:
    """plan(request) and plan(model, hardware, **fields) ask one question; a request with more
    arguments is a mistake, not a silent override."""
    req = FleetRequest(MODEL, ["h100-sxm"], **OK)
    with pytest.raises(TypeError):
        plan(req, ["a100-80gb"])
    with pytest.raises(TypeError):
        plan(req, rate=2.0)
    with pytest.raises(LlmRooflineError) as exc:
        plan(MODEL, ["h100-sxm"], **{**OK, "rate": -1.0})
    assert getattr(exc.value, "field", None) == "rate"


def test_priced_chips_by_id_case_ignored_in_either_form() -> None:
    """$1.80 per chip-hour is 1.8 / 3,600 = 0.0005 $ a second; a chip not named keeps the
    catalog's price; the pairs form is read in order like the mapping."""
    h100, a100 = get_hardware("h100-sxm"), get_hardware("a100-80gb")
    for prices in ({"H100-SXM": 1.8}, [(" h100-sxm ", 1.8)]):
        out = priced_chips([h100, a100], prices)
        assert out[0].price_usd_per_s == pytest.approx(0.0005)
        assert out[1] == a100
    assert priced_chips([h100], None) == [h100]


def test_priced_chips_refusals_name_the_field() -> None:
    h100 = get_hardware("h100-sxm")
    cases = [
        (
            {"mi300x": 2.0},
            "a price for 'mi300x', which is not among the hardware to plan on (h100-sxm)",
        ),
        (
            [("h100-sxm", 2.0), ("H100-SXM", 3.0)],
            "two prices for h100-sxm, 2 and 3 $ per chip-hour: give one",
        ),
        (
            {"h100-sxm": 1500.0},
            "the price of h100-sxm must be over 0 and at most 1000 $ per chip-hour, got 1500.0",
        ),
        (
            {"h100-sxm": 0},
            "the price of h100-sxm must be over 0 and at most 1000 $ per chip-hour, got 0: a "
            "plan ranks fleets by cost, so hardware you own (price 0) cannot be planned; leave "
            "the price out for the catalog's",
        ),
    ]
    for prices, message in cases:
        with pytest.raises(InputError) as exc:
            priced_chips([h100], prices, field="price")
        assert (exc.value.field, str(exc.value)) == ("price", message)


def test_as_dict_echoes_the_question_by_ids() -> None:
    req = FleetRequest(MODEL, "h100-sxm,a100-80gb", engine="ideal", requests=40, **OK)
    d = req.as_dict()
    assert d["model"] == MODEL and d["hardware"] == ["h100-sxm", "a100-80gb"]
    assert (d["rate_rps"], d["ttft_p90_s"], d["tpot_p99_s"]) == (1.0, 0.3, 0.04)
    assert d["engine"] == "ideal" and d["requests_per_simulation"] == 40
    assert req.as_dict(engine="vllm")["engine"] == "vllm"  # the engine its fleets were timed with

"""web/json_values.py: a library answer as JSON: numpy scalars and arrays as Python numbers and
lists, a non-finite number as null, all the way down."""

from __future__ import annotations

import json

import numpy as np

from llm_roofline.web.json_values import json_body


def test_numpy_values_become_python_ones() -> None:
    body = json_body(
        {
            "f": np.float64(1.5),
            "f32": np.float32(0.25),  # 0.25 is exact in float32
            "i": np.int64(3),
            "b": np.bool_(True),
            "arr": np.array([[1.0, 2.0], [3.0, 4.0]]),
            "s": "text",
            "none": None,
        }
    )
    assert body == {
        "f": 1.5,
        "f32": 0.25,
        "i": 3,
        "b": True,
        "arr": [[1.0, 2.0], [3.0, 4.0]],
        "s": "text",
        "none": None,
    }
    # each of its Python type: an int stays an int (3, not 3.0), a bool a bool (true, not 1)
    assert [type(body[k]) for k in ("f", "f32", "i", "b")] == [float, float, int, bool]
    assert type(body["arr"][0][0]) is float


def test_non_finite_numbers_become_null_at_any_depth() -> None:
    body = json_body(
        {
            "capacity": float("inf"),
            "rows": [{"p99": np.float64(np.nan), "t": (1.0, -np.inf)}],
            "curve": np.array([0.5, np.inf]),
        }
    )
    assert body == {
        "capacity": None,
        "rows": [{"p99": None, "t": [1.0, None]}],
        "curve": [0.5, None],
    }
    # and the result is JSON proper: no NaN or Infinity, which JSON cannot write
    assert json.loads(json.dumps(body, allow_nan=False)) == body


def test_keys_become_strings() -> None:
    # JSON object keys are strings: an int key 2 becomes "2", a numpy one too
    assert json_body({2: 1, np.int64(7): 2}) == {"2": 1, "7": 2}

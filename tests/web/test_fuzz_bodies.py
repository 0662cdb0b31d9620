"""Fuzzing the web seat's HTTP bodies (bounded; part of CI): random bytes and random
JSON posted to the answer and leave endpoints get a 2xx or a 4xx, never a 5xx or a
dropped connection, and the server keeps serving afterwards."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.web.seat import HumanBrowserAgent
from tests.web.helpers import Client

json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    ),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(
        st.sampled_from(["answer", "request_id", "pick", "x"]), json_values, max_size=3
    ).map(lambda v: json.dumps(v).encode()),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies, path=st.sampled_from(["/api/answer", "/api/leave"]))
def test_any_body_is_answered_with_a_2xx_or_4xx(
    seat2: HumanBrowserAgent, body: bytes, path: str
) -> None:
    client = Client(seat2.hub, seat2.audience)
    status, _ = client.request("POST", path, raw=body)
    assert 200 <= status < 500, (status, body[:80])
    assert client.request("GET", "/")[0] == 200  # still serving

"""The fake server adds no delay of its own to an answer."""

from __future__ import annotations

import http.client
import json
import statistics
import time

from sandbox.fake_llm import FakeLLMServer

REQUESTS = 15
# A loopback answer takes ~1 ms; a Nagle/delayed-ACK stall takes ~40 ms.
MEDIAN_LIMIT_S = 0.02


def test_keep_alive_answers_do_not_wait_for_delayed_acks(fake: FakeLLMServer) -> None:
    body = json.dumps(
        {"model": "fake-legal-random", "messages": [{"role": "user", "content": "hi"}]}
    )
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    times = []
    try:
        for _ in range(REQUESTS):
            started = time.perf_counter()
            conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            assert response.status == 200 and json.loads(response.read())["choices"]
            times.append(time.perf_counter() - started)
    finally:
        conn.close()
    assert statistics.median(times) < MEDIAN_LIMIT_S, times

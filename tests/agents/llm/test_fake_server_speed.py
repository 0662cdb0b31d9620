"""The fake server adds no delay of its own to an answer.

Its handler writes the headers and the body separately; with Nagle's algorithm
on, the body would wait for the client's delayed ACK (~40 ms on Linux) and the
LLM bench would measure the fake, not the client. The bench measures the speed;
this test checks the mechanism: TCP_NODELAY is set on every connection.
"""

from __future__ import annotations

import http.client
import json

from sandbox.models.fake import FakeLLMServer

REQUESTS = 3


def test_every_connection_has_nagle_off(fake: FakeLLMServer) -> None:
    body = json.dumps(
        {"model": "fake-legal-random", "messages": [{"role": "user", "content": "hi"}]}
    )
    for _ in range(2):  # two connections, several keep-alive requests each
        conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
        try:
            for _ in range(REQUESTS):
                conn.request(
                    "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"}
                )
                response = conn.getresponse()
                assert response.status == 200 and json.loads(response.read())["choices"]
        finally:
            conn.close()
    assert len(fake.nodelay) >= 2
    assert all(fake.nodelay)

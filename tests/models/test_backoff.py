"""Retry-After (seconds, milliseconds, an HTTP date), quotas that end a batch,
and the shared hold-off every seat of a provider waits for."""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

import pytest

import sandbox.models.gate as gate
from sandbox.models.backoff import is_quota, provider_key, retry_after_s


class Failed(Exception):
    def __init__(
        self, status: int, headers: dict[str, str], message: str = "", body: Any = None
    ) -> None:
        super().__init__(message)
        self.status_code = status
        self.litellm_response_headers = headers
        self.body = body


def test_retry_after_in_seconds_and_milliseconds() -> None:
    assert retry_after_s(Failed(429, {"Retry-After": "7"})) == 7.0
    assert retry_after_s(Failed(429, {"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    assert retry_after_s(Failed(503, {"Retry-After": "2.5"})) == 2.5


def test_retry_after_as_an_http_date() -> None:
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_s(Failed(429, {"Retry-After": date}), now=now) == pytest.approx(30.0)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert retry_after_s(Failed(429, {"Retry-After": past}), now=now) == 0.0


def test_no_retry_after_when_absent_unreadable_or_not_a_rate_limit() -> None:
    assert retry_after_s(Failed(429, {})) is None
    assert retry_after_s(Failed(429, {"Retry-After": "soon"})) is None
    assert retry_after_s(Failed(400, {"Retry-After": "5"})) is None
    assert retry_after_s(None) is None


@pytest.mark.parametrize(
    ("status", "message", "quota"),
    [
        (429, "You exceeded your current quota, please check your plan and billing details.", True),
        (429, "insufficient_quota", True),
        (
            429,
            "Quota exceeded for metric: generate_content_free_tier_requests, limit: 50 per day",
            True,
        ),
        (429, "Quota exceeded for metric: requests, limit: 15 per minute", False),
        (400, "Your credit balance is too low to access the Anthropic API.", True),
        (429, "Rate limit reached for gpt-4o in organization on tokens per min", False),
        (500, "insufficient_quota", False),
    ],
)
def test_quota_exhausted_is_told_from_a_rate_limit(status: int, message: str, quota: bool) -> None:
    assert is_quota(Failed(status, {}, message)) is quota


def test_provider_key_separates_base_urls() -> None:
    assert provider_key("openai/gpt-4o", None) == "openai@"
    assert provider_key("openai/fake-x", "http://127.0.0.1:9/v1") != provider_key(
        "openai/gpt-4o", None
    )
    assert provider_key("local:/m.gguf", "http://x") == "local@http://x"


async def test_a_hold_off_delays_every_caller_of_that_provider_only() -> None:
    gate.hold_off("p@test", 0.2)
    gate.hold_off("p@test", 0.05)  # an earlier time never shortens a hold
    started = time.monotonic()
    slept = await asyncio.gather(gate.wait_turn("p@test"), gate.wait_turn("p@test"))
    assert time.monotonic() - started >= 0.19 and all(s > 0.1 for s in slept)
    assert await gate.wait_turn("other@test") == 0.0
    assert gate.held_for("p@test") == 0.0

"""How long to wait after a provider said "too many": its ``Retry-After``
(seconds or an HTTP date) when it gave one, else tenacity's jittered
exponential back-off; and when to stop waiting altogether (a daily or
billing quota is exhausted: no retry helps, the batch should stop).

The wait is also shared (``gate.hold_off``): every seat of the process that
calls the same provider waits until the time the provider named.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from typing import Any

from tenacity import RetryCallState, wait_random_exponential

# Words of a quota that no wait within a game restores: OpenAI's
# ``insufficient_quota`` (billing), daily limits (Gemini's per-day quotas), an
# empty credit balance (Anthropic answers it with HTTP 400).
QUOTA_WORDS = (
    "insufficient_quota",
    "exceeded your current quota",
    "credit balance is too low",
    "quota exceeded for metric",  # Gemini: only a daily one counts (see is_quota)
    "daily limit",
    "per day",
    "requests per day",
    "tokens per day",
)
DAILY_WORDS = ("per day", "perday", "daily", "insufficient_quota", "current quota", "credit")


def is_quota(err: BaseException) -> bool:
    """A quota exhausted for the day or the bill (never retried: the batch stops)."""
    status = getattr(err, "status_code", None)
    if status not in (400, 403, 429):
        return False
    text = f"{err} {getattr(err, 'body', '') or ''}".lower()
    if not any(words in text for words in QUOTA_WORDS):
        return False
    return any(words in text for words in DAILY_WORDS)


def headers_of(err: BaseException) -> Mapping[str, str]:
    """The HTTP headers of an error answer: litellm keeps the provider's in
    ``litellm_response_headers`` (its own ``response`` may be a stand-in), the
    openai SDK in ``response.headers``."""
    for found in (
        getattr(err, "litellm_response_headers", None),
        getattr(getattr(err, "response", None), "headers", None),
    ):
        if found:
            try:
                return {str(k).lower(): str(v) for k, v in dict(found).items()}
            except (TypeError, ValueError):
                continue
    return {}


def retry_after_s(err: BaseException | None, now: float | None = None) -> float | None:
    """The seconds a 429 (or 503) asked to wait: ``Retry-After`` as seconds or an
    HTTP date, or ``retry-after-ms``; None when the answer named no time."""
    if err is None or getattr(err, "status_code", None) not in (429, 503):
        return None
    headers = headers_of(err)
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def provider_key(model: str, api_base: str | None) -> str:
    """Who a hold-off applies to: the model's provider at its base URL (a
    loopback fake's 429 never slows the real provider of the same name)."""
    provider = model.replace(":", "/").split("/", 1)[0] if "/" in model else model
    return f"{provider}@{api_base or ''}"


Wait = Callable[[RetryCallState], float]
OnHold = Callable[[float], None]


def retry_wait(multiplier: float, max_wait_s: float, on_hold: OnHold, total_s: float) -> Wait:
    """tenacity's wait: the provider's Retry-After when it named one (and
    ``on_hold`` is told, to hold every seat off), else jittered exponential.

    tenacity computes the wait before it asks :func:`stop_rule`, so a Retry-After
    beyond the seat's budget (the call fails now) reaches here too: it is not
    shared, or every later call of the process, in this game and the next, would
    sleep past its own budget (an hour's Retry-After held a batch for an hour).
    Each seat then learns it from its own 429 and fails at once."""
    fallback = wait_random_exponential(multiplier, max=max_wait_s)

    def wait(state: RetryCallState) -> float:
        err = state.outcome.exception() if state.outcome is not None else None
        after = retry_after_s(err)
        if after is None:
            return float(fallback(state))
        if after + (state.seconds_since_start or 0.0) <= total_s:
            on_hold(after)
        return after

    return wait


def stop_rule(attempts: int, total_s: float) -> Callable[[RetryCallState], bool]:
    """tenacity's stop: after ``attempts``, after ``total_s`` seconds, or when a
    Retry-After reaches beyond what is left of ``total_s`` (no use waiting past
    the seat's budget: the call fails now)."""

    def stop(state: RetryCallState) -> bool:
        spent = state.seconds_since_start or 0.0
        if state.attempt_number >= attempts or spent >= total_s:
            return True
        err = state.outcome.exception() if state.outcome is not None else None
        after = retry_after_s(err)
        return after is not None and after + spent > total_s

    return stop


def describe_wait(err: Any) -> dict[str, Any] | None:
    """What a call record keeps of a 429's Retry-After (None without one)."""
    after = retry_after_s(err)
    return None if after is None else {"retry_after_s": round(after, 3)}

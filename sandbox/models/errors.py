"""How the model client sorts a failed call: worth retrying (a rate limit, a
timeout, a server error), permanent (a key that cannot work), a prompt longer
than the window, a quota that no retry restores (``backoff.is_quota``).

litellm's exception classes subclass the openai SDK's, so one test covers
both routes without importing litellm.
"""

from __future__ import annotations

import asyncio

import sandbox.models.backoff as backoff
from sandbox.models.reading import MalformedResponse

# Permanent whatever class wraps them: a missing key surfaces from the openai
# SDK as litellm's InternalServerError ("Missing credentials ...").
PERMANENT_STATUS = (401, 403)
PERMANENT_WORDS = (
    "missing credentials",
    "api_key client option must be set",
    "invalid api key",
    "incorrect api key",
)
# How providers (and llama.cpp's server) say a prompt is longer than the window.
OVERFLOW_WORDS = (
    "context length",
    "context window",
    "context size",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "context_length_exceeded",
)


def is_transient(err: BaseException) -> bool:
    """Worth retrying: a rate limit, timeout, connection or server error, but
    never an auth or missing-credential error (retrying cannot fix a key).
    litellm's exception classes subclass the openai SDK's, so one test covers
    both routes without importing litellm."""
    if is_permanent(err) or is_overflow(err) or backoff.is_quota(err):
        return False
    import openai

    transient = (
        openai.RateLimitError,
        openai.APITimeoutError,
        openai.APIConnectionError,
        openai.InternalServerError,
        MalformedResponse,
        asyncio.TimeoutError,
    )
    if isinstance(err, transient):
        return True
    status = getattr(err, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def is_permanent(err: BaseException) -> bool:
    import openai

    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
        return True
    if getattr(err, "status_code", None) in PERMANENT_STATUS:
        return True
    text = str(err).lower()
    return any(words in text for words in PERMANENT_WORDS)


def is_overflow(err: BaseException) -> bool:
    """The prompt does not fit the model's window (never retried as is)."""
    if type(err).__name__ == "ContextWindowExceededError":
        return True
    if getattr(err, "status_code", None) not in (400, 413):
        return False
    text = str(err).lower()
    return any(words in text for words in OVERFLOW_WORDS)


def is_provider_error(err: BaseException) -> bool:
    import openai

    return isinstance(err, openai.APIError | asyncio.TimeoutError | MalformedResponse)

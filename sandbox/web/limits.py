"""Bounds on everything a browser may send: body size, JSON nesting, wait times.

A body is refused before parsing when it is too large or nested too deeply, so
that no request can make the server recurse (issue 14: a 20,000-deep JSON body
used to end in a RecursionError) or read without end.
"""

from __future__ import annotations

import json
import math

MAX_BODY_BYTES = 64 * 1024
# Real answers nest two levels ({"answer": {"targets": [...]}}); 16 leaves room.
MAX_DEPTH = 16
LONG_POLL_MAX_S = 25.0


class BadBody(ValueError):
    """A request body that is not small, shallow, finite JSON."""


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting outside strings (no recursion, one pass)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> object:
    raise BadBody(f"{name} is not a JSON number")


def parse_body(raw: bytes) -> object:
    """The JSON value of a request body, or BadBody saying why not."""
    if len(raw) > MAX_BODY_BYTES:
        raise BadBody(f"the body is larger than {MAX_BODY_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody("the body is not UTF-8 text") from None
    if nesting_depth(text) > MAX_DEPTH:
        raise BadBody(f"the JSON is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as err:
        raise BadBody(f"the body is not JSON ({err})") from None


def wait_seconds(text: str | None) -> float:
    """A long-poll wait from a query string: finite, 0..LONG_POLL_MAX_S (NaN is 0)."""
    try:
        wanted = float(text or 0)
    except ValueError:
        return 0.0
    if not math.isfinite(wanted):  # nan compares false with everything: caught here
        return 0.0 if math.isnan(wanted) or wanted < 0 else LONG_POLL_MAX_S
    return min(max(wanted, 0.0), LONG_POLL_MAX_S)

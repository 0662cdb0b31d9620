"""Where a seat's calls go: the target as configured (:class:`Target`), the
endpoint a provider resolves it to (:class:`Endpoint`), and the built-in fake
server the fake provider shares between seats.

Which provider serves a model string, and everything it knows of the model,
is ``sandbox.models.providers``. The built-in fake server is started on first
use on a free loopback port; each seat using it holds a reference and
releases it in ``Agent.close()`` (the session closes every agent after a
game); the last release stops it. It runs in a daemon thread and is also
stopped at exit, so a run that never closes its agents cannot hang.
"""

from __future__ import annotations

import atexit
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sandbox.models.fake.server import FakeLLMServer

Route = Literal["openai", "litellm"]
ROUTE_ENV = "SANDBOX_LLM_ROUTE"  # "litellm": send fake and local calls through litellm too
FAKE_PREFIX = "fake/"
FAKE_KEY = "fake-key-not-secret"  # the fake server ignores keys
LOCAL_KEY = "local-no-key"  # the local server takes any key; the SDK wants one


class EndpointError(Exception):
    """A model that cannot be reached as configured (e.g. its key variable is unset)."""


@dataclass(frozen=True)
class Target:
    """Which model a seat calls, as configured: the model string, an optional base
    URL and the name of the variable holding its key (never the key)."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None


@dataclass(frozen=True)
class Endpoint:
    model: str  # the model string actually called (litellm's form)
    api_base: str | None
    api_key: str | None = None
    provider: str = "litellm"  # the provider that resolved it (providers.registry)
    # How a call is sent (sandbox.models.client): straight through the openai
    # SDK to our own servers, or through litellm.
    route: Route = "litellm"


# -------------------------------------------------------- built-in fake server
_fake_lock = threading.Lock()
_fake_server: FakeLLMServer | None = None
_fake_users = 0


def builtin_fake_server() -> FakeLLMServer:
    """The process-wide fake server, started on first use. Start is synchronous
    and under a lock, so concurrent seats can never start two."""
    global _fake_server
    with _fake_lock:
        if _fake_server is None:
            from sandbox.models.fake.server import FakeLLMServer

            _fake_server = FakeLLMServer().start()
            atexit.register(stop_builtin_fake_server)
        return _fake_server


def acquire_builtin_fake() -> None:
    global _fake_users
    builtin_fake_server()
    with _fake_lock:
        _fake_users += 1


def release_builtin_fake() -> None:
    """Drop one reference; the last one stops the server."""
    global _fake_users
    with _fake_lock:
        _fake_users = max(0, _fake_users - 1)
        last = _fake_users == 0
    if last:
        stop_builtin_fake_server()


def stop_builtin_fake_server() -> None:
    global _fake_server
    with _fake_lock:
        server, _fake_server = _fake_server, None
    if server is not None:
        server.stop()

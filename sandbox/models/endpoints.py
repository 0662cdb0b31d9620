"""Where a model string is served: a remote provider, the embedded local model,
or the built-in fake server.

- ``fake/<policy>`` (e.g. ``fake/legal-random``): the built-in fake server,
  started on first use on a free loopback port (or the ``api_base`` given, e.g.
  a ``sandbox fake-llm`` server). Each seat using it holds a reference and
  releases it in ``Agent.close()`` (the session closes every agent after a
  game); the last release stops it. It runs in a daemon thread and is also
  stopped at exit, so a run that never closes its agents cannot hang.
- ``local/NAME`` or ``local:PATH.gguf``: ``sandbox.models.local.endpoint_for``.
- anything else: a litellm model string (``sandbox.models.remote``, the remote
  provider route); the key comes from ``api_key_env`` or the provider's
  standard environment variable (litellm reads it).
"""

from __future__ import annotations

import atexit
import importlib
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import sandbox.models.remote as remote
from sandbox.models.local.weights import is_local_model

if TYPE_CHECKING:
    from sandbox.models.fake.server import FakeLLMServer

EndpointKind = Literal["remote", "local", "fake"]
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
    model: str  # the litellm model string actually called
    api_base: str | None
    api_key: str | None = None
    kind: EndpointKind = "remote"
    route: Route = "litellm"  # see sandbox.models.client

    @property
    def free(self) -> bool:
        """Local and fake models cost nothing (litellm has no price for them)."""
        return self.kind != "remote"


def uses_builtin_fake(spec: Target) -> bool:
    return spec.model.startswith(FAKE_PREFIX) and spec.api_base is None


async def resolve(spec: Target) -> Endpoint:
    """Where to send ``spec``'s calls. A built-in fake reference is taken by the
    caller (see :func:`acquire_builtin_fake`), not here."""
    model = spec.model
    if model.startswith(FAKE_PREFIX):
        api_base = spec.api_base or builtin_fake_server().base_url
        name = f"openai/fake-{model[len(FAKE_PREFIX) :]}"
        return Endpoint(name, api_base, FAKE_KEY, "fake", own_server_route())
    if is_local_model(model):
        local = importlib.import_module("sandbox.models.local")
        api_base, litellm_model = await local.endpoint_for(model)
        return Endpoint(str(litellm_model), str(api_base), LOCAL_KEY, "local", own_server_route())
    return Endpoint(model, spec.api_base, _key_from_env(spec.api_key_env), "remote")


def own_server_route() -> Route:
    """Our own OpenAI-protocol servers need no translation: the openai SDK
    straight (unless the environment asks for litellm, e.g. to measure it)."""
    return "litellm" if os.environ.get(ROUTE_ENV) == "litellm" else "openai"


def check_fake_policy(spec: Target) -> None:
    """``fake/<policy>`` must name a known policy: a typo would otherwise play
    another experiment (the server's default policy) without a word."""
    model = spec.model
    if not model.startswith(FAKE_PREFIX):
        return
    from sandbox.models.fake.answers import POLICIES

    policy = model[len(FAKE_PREFIX) :]
    if policy not in POLICIES:
        raise EndpointError(
            f"unknown fake policy {policy!r} in model {model!r}; allowed: {', '.join(POLICIES)}"
        )


def check_local(spec: Target) -> None:
    """A ``local/...`` or ``local:PATH`` model must be installed (`make setup` builds
    llama-server) and its weights found, before any game starts; nothing is started here."""
    if not is_local_model(spec.model):
        return
    local = importlib.import_module("sandbox.models.local")
    try:
        local.resolve_model(spec.model)
        local.check_server_installed()
    except local.LocalModelError as err:
        raise EndpointError(str(err)) from None


def check_key(spec: Target) -> None:
    """Raise EndpointError now if ``spec``'s key is unset, so a game never
    starts with a seat that cannot call its model: the ``api_key_env``
    variable, else the provider's standard variable(s) as litellm names them.
    Only remote models read a key; fake and local ones are not started here.
    The message names variables, never a value."""
    model = spec.model
    if model.startswith(FAKE_PREFIX) or is_local_model(model):
        return
    if spec.api_key_env is not None:
        _key_from_env(spec.api_key_env)
        return
    missing = remote.missing_keys(model, spec.api_base)
    if missing:
        names = ", ".join(missing)
        raise EndpointError(
            f"model {model!r} needs the environment variable {names}, which is not set "
            "(set it, or name another variable with api_key_env)"
        )


def _key_from_env(name: str | None) -> str | None:
    if name is None:
        return None  # litellm reads the provider's standard variable itself
    value = os.environ.get(name)
    if not value:
        raise EndpointError(f"environment variable {name} (api_key_env) is not set")
    return value


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

"""Providers as classes (sandbox/models/providers): the registry picks one by
the model string and imports it lazily after checking its packages; each
answers the seat's capability questions itself."""

from __future__ import annotations

import pytest

import sandbox.models.providers.registry as registry
from sandbox.models import endpoints, remote
from sandbox.models.endpoints import Endpoint, EndpointError, Target
from sandbox.models.providers import (
    Provider,
    ProviderUnavailable,
    provider_class,
    provider_for,
    register_provider,
)


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("fake/legal-random", "fake"),
        ("local/smollm2", "local"),
        ("local:/models/x.gguf", "local"),
        ("openai/gpt-4o", "litellm"),
        ("anthropic/claude-sonnet-4-5", "litellm"),
    ],
)
def test_the_model_string_picks_the_provider(model: str, name: str) -> None:
    assert provider_for(Target(model)).name == name


def test_an_unknown_or_uninstalled_provider_is_an_endpoint_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ProviderUnavailable, match="unknown provider 'nope'"):
        provider_class("nope")
    monkeypatch.setattr(registry, "_PROVIDERS", dict(registry._PROVIDERS))
    monkeypatch.setattr(registry, "_loaded", {})
    register_provider("elsewhere", "no_such_module_here.x", "P", ("no_such_package_here",))
    with pytest.raises(EndpointError, match="needs no_such_package_here"):
        provider_class("elsewhere")  # checked before the module is imported
    register_provider("inspect", "sandbox.models.providers.inspect_ai", "X", ("no_pkg",))
    with pytest.raises(ProviderUnavailable, match="not installed"):
        provider_class("inspect")


def test_another_package_registers_a_provider_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_PROVIDERS", dict(registry._PROVIDERS))
    monkeypatch.setattr(registry, "_loaded", {})
    register_provider("plain", "sandbox.models.providers.base", "Provider")
    plain = provider_class("plain")(Target("m"))
    endpoint = Endpoint("m", None)
    # what a provider that knows nothing of its model answers
    assert plain.best_rung(endpoint) == "prompt" and plain.context_window(endpoint) is None
    assert not plain.takes_grammar() and plain.request_fields(3) == {}
    assert plain.concurrency(7) == 7 and plain.slot_router(endpoint, wanted=True) is None


async def test_the_fake_provider_holds_the_builtin_server_until_closed() -> None:
    fake = provider_for(Target("fake/legal-random"))
    fake.check()
    endpoint = await fake.open()
    assert endpoint.model == "openai/fake-legal-random" and endpoint.route == "openai"
    assert endpoint.provider == "fake" and endpoints._fake_server is not None
    assert fake.own_server and fake.best_rung(endpoint) == "json"
    assert fake.context_window(endpoint) is None and fake.call_cost(object()) == 0.0
    assert fake.http() is not None  # the pooled client of our own server
    await fake.close()
    assert endpoints._fake_server is None and fake.http() is None
    with pytest.raises(EndpointError, match="unknown fake policy 'legal-randm'"):
        provider_for(Target("fake/legal-randm")).check()


async def test_the_litellm_provider_asks_litellm_and_reads_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SANDBOX_TEST_KEY", raising=False)
    target = Target("openai/gpt-4o", None, "SANDBOX_TEST_KEY")
    with pytest.raises(EndpointError, match="SANDBOX_TEST_KEY"):
        provider_for(target).check()
    monkeypatch.setenv("SANDBOX_TEST_KEY", "sk-not-a-real-key")
    litellm = provider_for(target)
    endpoint = await litellm.open()
    assert (endpoint.provider, endpoint.route) == ("litellm", "litellm")
    assert not litellm.own_server and litellm.best_rung(endpoint) == "schema"
    assert litellm.context_window(endpoint) == remote.context_window("openai/gpt-4o")
    assert litellm.http() is not None  # an OpenAI-protocol model shares the pooled client
    await litellm.close()
    claude = Endpoint("anthropic/claude-sonnet-4-5", None, "k")
    assert litellm.cache_breakpoints(claude) and not litellm.cache_breakpoints(endpoint)


def test_every_registered_provider_is_a_provider_class() -> None:
    for name in registry.provider_names():
        assert issubclass(provider_class(name), Provider)
        assert provider_class(name).name == name

"""Providers by name. A provider's module is imported only when a seat first
uses it, after its optional packages are found (an inspect seat needs the
``inspect`` extra; a fake game never imports litellm's provider code).

``register_provider`` adds one from another package; ``provider_for`` picks
the provider a model string names: ``fake/...`` the fake server, ``local/...``
or ``local:PATH`` the embedded model, anything else litellm.
"""

from __future__ import annotations

import importlib
import importlib.util

from sandbox.models.endpoints import FAKE_PREFIX, EndpointError, Target
from sandbox.models.local.weights import is_local_model
from sandbox.models.providers.base import Provider

_HOME = "sandbox.models.providers"
# name -> (module, class, the optional packages it imports): imported on first use.
_PROVIDERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "litellm": (f"{_HOME}.litellm", "LiteLLMProvider", ("litellm",)),
    "openai": (f"{_HOME}.openai_client", "OpenAIClientProvider", ("openai",)),
    "fake": (f"{_HOME}.fake", "FakeProvider", ("openai",)),
    "local": (f"{_HOME}.local", "LocalProvider", ("openai",)),
    "inspect": (f"{_HOME}.inspect_ai", "InspectProvider", ("inspect_ai",)),
}
EXTRAS = {"inspect_ai": "inspect"}  # package -> the extra that installs it
_loaded: dict[str, type[Provider]] = {}


class ProviderUnavailable(EndpointError):
    """A provider that is unknown, or whose optional packages are not installed."""


def register_provider(
    name: str, module: str, class_name: str, requires: tuple[str, ...] = ()
) -> None:
    """Serve ``name`` with ``module``'s ``class_name`` (a Provider subclass),
    imported when first asked for, once the ``requires`` packages are found."""
    _PROVIDERS[name] = (module, class_name, requires)
    _loaded.pop(name, None)


def provider_names() -> list[str]:
    return sorted(_PROVIDERS)


def provider_class(name: str) -> type[Provider]:
    """The class registered as ``name``, its optional packages checked first."""
    found = _loaded.get(name)
    if found is not None:
        return found
    if name not in _PROVIDERS:
        known = ", ".join(provider_names())
        raise ProviderUnavailable(f"unknown provider {name!r}; known: {known}")
    module_name, class_name, requires = _PROVIDERS[name]
    missing = [p for p in requires if importlib.util.find_spec(p) is None]
    if missing:
        hint = "".join(f" (pip install '.[{EXTRAS[p]}]')" for p in missing if p in EXTRAS)
        raise ProviderUnavailable(
            f"provider {name!r} needs {', '.join(missing)}, which is not installed{hint}"
        )
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Provider)):
        raise ProviderUnavailable(f"{module_name}.{class_name} is not a Provider")
    _loaded[name] = cls
    return cls


def name_for(model: str) -> str:
    """Which provider serves a model string (docs/config.md, "model")."""
    if model.startswith(FAKE_PREFIX):
        return "fake"
    if is_local_model(model):
        return "local"
    return "litellm"


def provider_for(target: Target) -> Provider:
    """A new provider for one seat's target."""
    return provider_class(name_for(target.model))(target)

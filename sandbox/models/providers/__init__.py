"""Providers: each way a seat's model is served is one class here, which
answers the capability questions the seat asks (structured-output rung,
grammar, window, pinned slot, warm-up, cost) so the seat never branches on
which provider it holds.

- ``base``: :class:`Provider`, what every provider answers (and the defaults);
- ``registry``: providers by name, imported lazily after their optional
  packages are found; ``provider_for`` picks one by the model string;
- ``litellm``: every remote model, through litellm;
- ``openai_client``: our own OpenAI-protocol servers, through the openai SDK;
- ``fake`` and ``local``: the fake provider and the embedded llama-server,
  both our own servers;
- ``inspect_ai``: inspect_ai's model (the ``inspect`` extra).
"""

from sandbox.models.providers.base import Provider
from sandbox.models.providers.registry import (
    ProviderUnavailable,
    name_for,
    provider_class,
    provider_for,
    provider_names,
    register_provider,
)

__all__ = [
    "Provider",
    "ProviderUnavailable",
    "name_for",
    "provider_class",
    "provider_for",
    "provider_names",
    "register_provider",
]

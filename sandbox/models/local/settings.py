"""How the embedded model's server is found and run: the ``llama-server``
binary that ``make setup`` builds, and its settings (slots, window, threads,
prompt cache), each of which an environment variable can override."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from sandbox.models.local.weights import INSTALL_HINT, LocalModelError

# One slot per seat of the largest table a config plays (Killer at 11, plus
# one): each seat's calls are pinned to their own slot (slots.py), so a seat's
# evaluated prompt stays in its slot's KV window between its decisions, and a
# sealed step's answers are generated in one batch. Issue 24 measured the
# earlier 4 slots (seats sharing them through the RAM prompt cache) at 43% of
# prompt tokens from the cache. KV memory: slots x n_ctx x ~23 KB.
SERVER_SLOTS = 12
# The client sends at most this many requests at once (one per slot); more
# would only wait inside the server.
RECOMMENDED_CONCURRENCY = SERVER_SLOTS

# Where the server binary is: this variable, else next to the venv's python
# (where `make setup` installs it).
SERVER_BINARY_ENV = "SANDBOX_LLAMA_SERVER"
SERVER_BINARY_NAME = "llama-server"


def server_binary() -> Path | None:
    """The llama-server executable: $SANDBOX_LLAMA_SERVER, else the venv's copy."""
    configured = os.environ.get(SERVER_BINARY_ENV, "").strip()
    candidate = Path(configured) if configured else Path(sys.executable).parent / SERVER_BINARY_NAME
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    return None


def missing_server_parts() -> list[str]:
    """What is missing to run a local model (empty when the server is installed)."""
    if server_binary() is not None:
        return []
    configured = os.environ.get(SERVER_BINARY_ENV, "").strip()
    if configured:
        return [f"{SERVER_BINARY_ENV}={configured} is not an executable file"]
    return [f"{SERVER_BINARY_NAME} next to {sys.executable}"]


def check_server_installed() -> None:
    missing = missing_server_parts()
    if missing:
        raise LocalModelError(
            f"local models need llama.cpp's llama-server (missing: {', '.join(missing)}); "
            + INSTALL_HINT
        )


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise LocalModelError(f"{name} must be an integer (got {value!r})") from None


def _env_args(name: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(os.environ.get(name, "")))
    except ValueError as err:
        raise LocalModelError(f"{name} is not a valid argument list ({err})") from None


# A model file under this size is small enough that one thread writes its
# tokens faster than two (ServerSettings.decode_threads).
SMALL_MODEL_BYTES = 512 * 1024 * 1024

# n-gram drafts (ServerSettings.ngram_drafts): tokens looked up, tokens drafted.
NGRAM_LOOKUP = 3
NGRAM_DRAFT = 8


@dataclass(frozen=True)
class ServerSettings:
    """How the server is run. Each field can be overridden by SANDBOX_LOCAL_<FIELD>."""

    slots: int = SERVER_SLOTS
    # Per slot (each slot has its own KV window, llama.cpp's --no-kv-unified):
    # a late-game full-style Killer prompt fits. KV memory is slots x n_ctx x
    # ~23 KB for SmolLM2 (~1.1 GB at 12 x 4096), allocated at start.
    n_ctx: int = 4096
    n_threads: int = field(default_factory=_cpu_count)
    # Threads for a step that writes one token of one answer (llama-server's
    # --threads; n_threads stays --threads-batch, for reading prompts and for
    # the steps that write a token of several answers at once). 0: one thread
    # for a small model, else n_threads. A 135M model's step is some 400 tiny
    # operations, and two threads spend more on meeting after each than they
    # save: on the 2-core machine SmolLM2 wrote 31-33 tokens/s with one thread
    # against 26 with two, and a speech call took 2.6 s against 3.4-3.6 s
    # (docs/benchmarks.md, issue 40). A large model's operations are big
    # enough to share. SANDBOX_LOCAL_DECODE_THREADS overrides.
    decode_threads: int = 0
    n_batch: int = 512
    # Keep evaluated prompts: in each slot, and, when a slot passes to another
    # seat, in a RAM prompt cache from which the seat's next decision restores
    # its own prefix (primer, role card, the history it already read).
    cache: bool = True
    cache_ram_mib: int = 1024
    start_timeout_s: int = 120
    # ggml's worker threads wait without spinning (llama-server's --poll; its
    # default 50 spins). With another process on a core, a spinning thread
    # takes CPU from the one doing the work: 2 threads read prompts at 46-52
    # tokens/s with spinning and 58-64 without, at load 11 (1 thread: 60-66).
    poll: int = 0
    # Pin each seat's calls to its own slot (slots.py; SANDBOX_LOCAL_PIN_SLOTS=1).
    # Off by default: measured, a pinned seat kept only ~300 tokens of its own
    # previous prompt (the 6-item record window had moved on), while
    # llama.cpp's own choice restores ~445 from another seat's prompt of the
    # same phase through the RAM cache (docs/local-model.md, issue 24).
    pin_slots: bool = False
    # Local calls send the constrained route's GBNF grammar (agents/llm/
    # grammar.py); 0 sends the JSON-schema form, as before issue 24.
    grammar: bool = True
    # The client picks each call's slot and copies another slot's evaluated
    # prompt into it when that one shares a longer prefix (router.py; the
    # server saves slot files under a temporary --slot-save-path). Seats with
    # the shared record ([llm] shared_record) always route their calls; this
    # setting (SANDBOX_LOCAL_ROUTE=1) routes every seat's. Off for the others
    # by default: with each seat's own layout it read a little more than the
    # server's own choice (docs/local-model.md).
    route: bool = False
    # llama.cpp's flash attention (its "auto" turns it on for this CPU build).
    # On: five whole games of the shared record took 1.78 s per decision with
    # it against 2.07 s without (issue 24's sixth pass, bench_local.py compare),
    # most of all on calls that read 700 tokens or more at once (a day's first
    # calls, a sealed vote's first); a single call after a cached context and a
    # sealed step's nine short calls after one prefix are a little faster
    # without it (bench_local.py context, sealed). SANDBOX_LOCAL_FLASH_ATTN=0
    # turns it off.
    flash_attn: bool = True
    # Drafts from the context's own n-grams (llama.cpp's speculative decoding
    # with no draft model: --spec-type ngram-simple): when the last 3 tokens
    # were seen before in the prompt or answer, the 8 that followed them are
    # checked in one step instead of written one by one. The answer is drawn
    # from the same distribution: a draft token is kept only where the
    # sampler, run as without drafts, picks it. Off by default: whole games
    # showed no gain beyond the noise, and one sealed step's nine calls were
    # slower (6.17 s against 5.15 s: drafts checked and refused; docs/
    # local-model.md, issue 24). SANDBOX_LOCAL_NGRAM_DRAFTS=1 turns it on.
    ngram_drafts: bool = False
    # Extra llama-server arguments, appended last so they win over the ones
    # above (SANDBOX_LOCAL_SERVER_ARGS, split as a shell would).
    extra_args: tuple[str, ...] = ()

    @classmethod
    def from_env(cls) -> ServerSettings:
        base = cls()
        return replace(
            base,
            slots=_env_int("SANDBOX_LOCAL_SLOTS", base.slots),
            n_ctx=_env_int("SANDBOX_LOCAL_N_CTX", base.n_ctx),
            n_threads=_env_int("SANDBOX_LOCAL_N_THREADS", base.n_threads),
            decode_threads=_env_int("SANDBOX_LOCAL_DECODE_THREADS", base.decode_threads),
            n_batch=_env_int("SANDBOX_LOCAL_N_BATCH", base.n_batch),
            cache=bool(_env_int("SANDBOX_LOCAL_CACHE", int(base.cache))),
            cache_ram_mib=_env_int("SANDBOX_LOCAL_CACHE_RAM_MIB", base.cache_ram_mib),
            start_timeout_s=_env_int("SANDBOX_LOCAL_START_TIMEOUT_S", base.start_timeout_s),
            poll=_env_int("SANDBOX_LOCAL_POLL", base.poll),
            pin_slots=bool(_env_int("SANDBOX_LOCAL_PIN_SLOTS", int(base.pin_slots))),
            grammar=bool(_env_int("SANDBOX_LOCAL_GRAMMAR", int(base.grammar))),
            route=bool(_env_int("SANDBOX_LOCAL_ROUTE", int(base.route))),
            flash_attn=bool(_env_int("SANDBOX_LOCAL_FLASH_ATTN", int(base.flash_attn))),
            ngram_drafts=bool(_env_int("SANDBOX_LOCAL_NGRAM_DRAFTS", int(base.ngram_drafts))),
            extra_args=_env_args("SANDBOX_LOCAL_SERVER_ARGS"),
        )

    def threads_for_one(self, model_bytes: int | None) -> int:
        """--threads: how many threads write a token of a single answer."""
        if self.decode_threads > 0:
            return self.decode_threads
        if model_bytes is not None and model_bytes < SMALL_MODEL_BYTES:
            return 1
        return self.n_threads

    def server_args(
        self, slot_dir: Path | None = None, model_bytes: int | None = None
    ) -> list[str]:
        """llama-server's arguments; ``slot_dir``: where it may save slot files;
        ``model_bytes``: the weights' size (a small model writes on one thread)."""
        slots = max(1, self.slots)
        saves = ["--slot-save-path", str(slot_dir)] if slot_dir is not None else []
        drafts = [
            "--spec-type", "ngram-simple",
            "--spec-ngram-simple-size-n", str(NGRAM_LOOKUP),
            "--spec-ngram-simple-size-m", str(NGRAM_DRAFT),
        ] if self.ngram_drafts else []  # fmt: skip
        return [
            "--parallel", str(slots),
            # One KV window per slot: a unified pool made every sequence attend
            # over the cells of all slots (the first llama-server attempt).
            "--no-kv-unified",
            "--ctx-size", str(slots * self.n_ctx),
            "--threads", str(self.threads_for_one(model_bytes)),
            "--threads-batch", str(self.n_threads),
            "--poll", str(self.poll),
            "--flash-attn", "on" if self.flash_attn else "off",
            "--batch-size", str(self.n_batch),
            "--ubatch-size", str(self.n_batch),
            "--cache-ram", str(self.cache_ram_mib if self.cache else 0),
            # A slot's prompt goes to the RAM cache only when the slot passes to
            # another prompt, not every idle slot at every request.
            "--no-cache-idle-slots",
            # Sampling as llama-cpp-python's server did (its request defaults):
            # llama-server's own repeat penalty is off, and without it SmolLM2's
            # speeches looped ("King Jack on King King ...").
            "--repeat-penalty", "1.1",
            "--repeat-last-n", "64",
            "--top-k", "40",
            "--top-p", "0.95",
            "--min-p", "0.05",
            # Chat templates from the GGUF file, as the model was trained.
            "--jinja",
            "--no-webui",
            *drafts,
            *saves,
            *self.extra_args,
        ]  # fmt: skip

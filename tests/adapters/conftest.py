"""Shared by the adapter tests: inspect's mockllm counts tokens with tiktoken's
o200k_base encoding, which tiktoken downloads on first use. This machine may be
offline, so tiktoken is pointed at the copy of that file litellm (a core
dependency) ships, as litellm itself does when it is imported."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

TIKTOKEN_ENV = "TIKTOKEN_CACHE_DIR"


def litellm_tokenizers() -> Path:
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"


@pytest.fixture(autouse=True)
def offline_tokenizer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not os.environ.get(TIKTOKEN_ENV):
        monkeypatch.setenv(TIKTOKEN_ENV, str(litellm_tokenizers()))
    yield

"""Least-recently-used caches bounded in bytes, not only in entries:
cachetools' ``LRUCache`` with a byte budget as its ``maxsize`` and each
entry's bytes as its size.

``functools.lru_cache(maxsize=N)`` bounds the number of entries; an entry's
cost is whatever it holds. The answer-format caches hold pydantic models
(tens of kilobytes each) and JSON schemas (a few kilobytes, more with a big
belief probe), so an entry limit said nothing about memory: a long study
filled them to ~90 MB (docs/faults.md, "Long runs"). Here every entry is
charged its size when it is stored, and cachetools drops the least recently
used entries until the total is within the budget again.

How a size is measured (:func:`deep_size`): ``sys.getsizeof`` summed over
the object and everything reachable through containers (dicts, lists,
tuples, sets) and plain objects' ``__dict__``, each object counted once per
entry. Objects shared between entries (an interned key string, a schema
that sits in two caches) are counted in each: the total over-counts, never
under-counts, what the Python heap holds. A pydantic model also owns memory
in pydantic-core (Rust) that ``getsizeof`` cannot see: :func:`model_size`
says why its Python side is charge enough.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, overload

from cachetools import LRUCache, cached
from cachetools.keys import hashkey
from pydantic import BaseModel

if TYPE_CHECKING:
    from cachetools import _cached_wrapper_info

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

# Atoms: no references worth following.
_ATOMS = (str, bytes, int, float, bool, type(None), complex)


def deep_size(obj: Any) -> int:
    """Bytes of ``obj`` and everything it holds, each object counted once.

    Follows dict keys and values, list/tuple/set/frozenset items and an
    instance's ``__dict__`` (and ``__slots__``); classes, functions and
    modules are charged ``getsizeof`` only (they are shared program text, not
    the entry's data)."""
    seen: set[int] = set()
    total = 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, (*_ATOMS, type)) or callable(item):
            continue
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        else:
            stack.extend(_attributes(item))
    return total


def _attributes(item: Any) -> list[Any]:
    found: list[Any] = []
    own = getattr(item, "__dict__", None)
    if isinstance(own, dict):
        found.append(own)
    for cls in type(item).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(item, name):
                found.append(getattr(item, name))
    return found


def model_size(model: type[BaseModel]) -> int:
    """What one pydantic model class costs, in bytes: the class object and
    the deep size of its namespace (core schema, fields, decorators).

    pydantic-core's compiled validator and serializer live in Rust, where
    ``getsizeof`` cannot see; measured on distinct Killer vote models
    (RSS grown per model over 300 models built): 16 KB per model, against
    this function's 20 KB, so the Python side alone already errs high."""
    return sys.getsizeof(model) + deep_size(dict(vars(model)))


class ByteLRU(LRUCache[K, V]):
    """cachetools' LRU cache of at most ``max_bytes``. An entry is charged its
    value's size and its key's (the key holds its parts alive too; cachetools
    sizes values only, so the key is added here); one bigger than the whole
    budget is refused with cachetools' ``ValueError``. Each operation holds
    ``lock``, so a worker's event loop and its writer thread may share it."""

    def __init__(
        self,
        max_bytes: int,
        size_of: Callable[[V], int] = deep_size,
        key_size: Callable[[K], int] = deep_size,
    ) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive; got {max_bytes}")
        super().__init__(max_bytes, getsizeof=self._charged)
        self._size_of = size_of
        self._key_size = key_size
        self._charge = 0  # the entry being stored: its value's and its key's bytes
        self.lock = threading.RLock()

    def _charged(self, value: V) -> float:
        return self._charge

    def __getitem__(self, key: K) -> V:
        with self.lock:
            return super().__getitem__(key)

    def __setitem__(self, key: K, value: V) -> None:
        charge = self._size_of(value) + self._key_size(key)
        with self.lock:
            self._charge = charge
            super().__setitem__(key, value)

    def __delitem__(self, key: K) -> None:
        with self.lock:
            super().__delitem__(key)

    def put(self, key: K, value: V) -> None:
        """Store ``value`` unless it is bigger than the whole budget (then
        nothing is kept under ``key``, as cachetools' ``cached`` does)."""
        with self.lock:
            try:
                self[key] = value
            except ValueError:  # cachetools: "value too large"
                self.pop(key, None)

    @overload
    def get(self, key: K, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V | T, /) -> V | T: ...
    def get(self, key: K, default: Any = None, /) -> Any:
        with self.lock:  # one step: the entry cannot be dropped between look and read
            return super().get(key, default)

    def clear(self) -> None:
        with self.lock:
            super().clear()


def byte_lru(
    max_bytes: int,
    size_of: Callable[[Any], int] = deep_size,
    key_size: Callable[[Any], int] = deep_size,
    key: Callable[..., Hashable] = hashkey,
) -> Callable[[Callable[P, R]], _cached_wrapper_info[P, R]]:
    """Decorator: like ``functools.lru_cache``, bounded by ``max_bytes`` of
    results and keys (cachetools' ``cached`` with its hit counts; the key is
    the tuple of the arguments unless ``key`` builds another)."""

    def wrap(fn: Callable[P, R]) -> _cached_wrapper_info[P, R]:
        cache: ByteLRU[Any, R] = ByteLRU(max_bytes, size_of, key_size)
        return cached(cache, key=key, lock=cache.lock, info=True)(fn)

    return wrap

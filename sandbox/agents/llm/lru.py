"""Least-recently-used caches bounded in bytes, not only in entries.

``functools.lru_cache(maxsize=N)`` bounds the number of entries; an entry's
cost is whatever it holds. The answer-format caches hold pydantic models
(tens of kilobytes each) and JSON schemas (a few kilobytes, more with a big
belief probe), so an entry limit said nothing about memory: a long study
filled them to ~90 MB (docs/faults.md, "Long runs"). Here every entry is
charged its size when it is stored, and the least recently used entries are
dropped until the total is within the budget again.

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
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar, cast

from pydantic import BaseModel

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")

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


@dataclass(frozen=True)
class CacheInfo:
    """A cache's counters (``bytes`` is the sum of the stored entries' sizes)."""

    hits: int
    misses: int
    entries: int
    bytes: int
    max_bytes: int


class ByteLRU(Generic[K, V]):
    """A mapping of at most ``max_bytes``, least recently used dropped first.
    An entry is charged its value's size and its key's (the key holds its parts
    alive too); one bigger than the whole budget is not kept. Safe across
    threads (a worker's event loop and its writer thread may share it)."""

    def __init__(
        self,
        max_bytes: int,
        size_of: Callable[[V], int] = deep_size,
        key_size: Callable[[K], int] = deep_size,
    ) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive; got {max_bytes}")
        self.max_bytes = max_bytes
        self._size_of = size_of
        self._key_size = key_size  # a key holds its parts alive too
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._hits = 0
        self._misses = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> tuple[bool, V | None]:
        """(found, value); a hit makes the entry the most recently used."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self._misses += 1
                return False, None
            self._entries.move_to_end(key)
            self._hits += 1
            return True, entry[0]

    def put(self, key: K, value: V) -> None:
        size = self._size_of(value) + self._key_size(key)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self.max_bytes:
                return
            self._entries[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._hits = self._misses = 0

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(
                self._hits, self._misses, len(self._entries), self._bytes, self.max_bytes
            )

    def __len__(self) -> int:
        return len(self._entries)


class _Cached(Generic[P, R]):
    """A function memoised in a ByteLRU, keyed by its positional and keyword
    arguments (all hashable, as for functools.lru_cache)."""

    def __init__(self, fn: Callable[P, R], cache: ByteLRU[Any, R]) -> None:
        self.__wrapped__ = fn
        self.cache = cache
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", "cached")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__module__ = fn.__module__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        found, value = self.cache.get(key)
        if found:
            return cast(R, value)
        value = self.__wrapped__(*args, **kwargs)
        self.cache.put(key, value)
        return value

    def cache_info(self) -> CacheInfo:
        return self.cache.info()

    def cache_clear(self) -> None:
        self.cache.clear()


def byte_lru(
    max_bytes: int,
    size_of: Callable[[Any], int] = deep_size,
    key_size: Callable[[Any], int] = deep_size,
) -> Callable[[Callable[P, R]], _Cached[P, R]]:
    """Decorator: like ``functools.lru_cache``, bounded by ``max_bytes`` of
    results and arguments (the key is the tuple of positional arguments)."""

    def wrap(fn: Callable[P, R]) -> _Cached[P, R]:
        return _Cached(fn, ByteLRU(max_bytes, size_of, key_size))

    return wrap

"""The registry of game variants, found through the ``sandbox.variants`` entry points.

A package adds a variant without touching this project by declaring, in its
``pyproject.toml``::

    [project.entry-points."sandbox.variants"]
    my_game = "my_package.my_game:VARIANT"

where ``VARIANT`` is a :class:`sandbox.core.variant.Variant` instance (or a class
taking no arguments) whose ``info.name`` is the entry point's name. The built-in
variants are declared the same way in this project's ``pyproject.toml``; they are
also found directly, as the subpackages of :mod:`sandbox.games` (each exposes its
``VARIANT``), when the installed metadata does not list them yet (a checkout run
without reinstalling).

Nothing outside a variant's own folder names a variant: the tools ask the
registry (:func:`get_variant`, :func:`find_variant`) and the variant's hooks.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterator, Set
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import sandbox.games
from sandbox.core.variant import Variant

GROUP = "sandbox.variants"


def _builtin_entries() -> dict[str, str]:
    """name -> "module:attribute" for each subpackage of sandbox.games: one
    built-in variant each, exposed as its ``VARIANT``."""
    package = sandbox.games
    return {
        found.name: f"{package.__name__}.{found.name}:VARIANT"
        for found in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
        if found.ispkg
    }


# name -> "module:attribute", exactly as in pyproject.toml's entry-point table.
BUILTIN: dict[str, str] = _builtin_entries()

_REGISTRY: dict[str, Variant[Any, Any]] = {}
_BROKEN: dict[str, str] = {}  # entry-point name -> why it could not be loaded
_loaded = False


def register(variant: Variant[Any, Any]) -> Variant[Any, Any]:
    """Add a variant by hand (tests, notebooks); a name may be taken only once."""
    if variant.name in _REGISTRY:
        raise ValueError(f"variant {variant.name!r} is already registered")
    _REGISTRY[variant.name] = variant
    return variant


def get_variant(name: str) -> Variant[Any, Any]:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        why = f" ({_BROKEN[name]})" if name in _BROKEN else ""
        raise KeyError(f"unknown variant {name!r}{why}; known: {known}") from None


def find_variant(name: str) -> Variant[Any, Any] | None:
    """The variant named ``name``, or None when none is registered under it (a
    transcript of a variant this installation does not have)."""
    _load()
    return _REGISTRY.get(name)


def variant_names() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def speech_kinds(variant: str | None = None) -> frozenset[str]:
    """The public speech event kinds of ``variant`` (``VariantInfo.speech_kinds``;
    none for an unknown variant), or of every registered variant."""
    if variant is not None:
        found = find_variant(variant)
        return found.info.speech_kinds if found is not None else frozenset()
    _load()
    return frozenset().union(*(v.info.speech_kinds for v in _REGISTRY.values()))


class _AllSpeechKinds(Set[str]):
    """The speech kinds of every registered variant, read from the registry when
    used (so that importing this module loads no variant). Event kinds carry
    their variant's prefix, so one set serves a game of any variant."""

    def _kinds(self) -> frozenset[str]:
        return speech_kinds()

    def __contains__(self, kind: object) -> bool:
        # a damaged transcript's "kind" may be any JSON value, a list included
        return isinstance(kind, str) and kind in self._kinds()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds()))

    def __len__(self) -> int:
        return len(self._kinds())

    def __repr__(self) -> str:
        return f"SPEECH_KINDS({sorted(self._kinds())})"


SPEECH_KINDS: Set[str] = _AllSpeechKinds()


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    for name, target in BUILTIN.items():
        found.setdefault(name, EntryPoint(name, target, GROUP))
    for name, entry in sorted(found.items()):
        if name not in _REGISTRY:
            _load_entry(name, entry)


def _load_entry(name: str, entry: EntryPoint) -> None:
    try:
        variant = _instance(entry.load())
    except Exception as err:  # a broken plugin must not take the built-ins down
        _BROKEN[name] = f"entry point {entry.value!r} failed to load: {err}"
        return
    if variant.name != name:
        _BROKEN[name] = f"entry point {entry.value!r} gives a variant named {variant.name!r}"
        return
    _REGISTRY[name] = variant


def _instance(value: object) -> Variant[Any, Any]:
    if isinstance(value, type) and issubclass(value, Variant):
        value = value()
    if not isinstance(value, Variant):
        raise TypeError(f"{value!r} is not a Variant")
    return value

"""The registry of game variants, found through the ``sandbox.variants`` entry points.

A package adds a variant without touching this project by declaring, in its
``pyproject.toml``::

    [project.entry-points."sandbox.variants"]
    my_game = "my_package.my_game:VARIANT"

where ``VARIANT`` is a :class:`sandbox.core.variant.Variant` instance (or a class
taking no arguments) whose ``info.name`` is the entry point's name. The built-in
variants are declared the same way in this project's ``pyproject.toml``; they are
also loaded directly when the installed metadata does not list them yet (a
checkout run without reinstalling).
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from sandbox.core.variant import Variant

GROUP = "sandbox.variants"

# name -> "module:attribute", exactly as in pyproject.toml's entry-point table.
BUILTIN: dict[str, str] = {
    "four_factions": "sandbox.games.four_factions:VARIANT",
    "killer": "sandbox.games.killer:VARIANT",
    "werewolf": "sandbox.games.werewolf:VARIANT",
}

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


def variant_names() -> list[str]:
    _load()
    return sorted(_REGISTRY)


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

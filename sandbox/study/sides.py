"""The sides contestants are matched over, per variant.

Killer has two sides (KG-1): the killers, and the police side — the police and
the civilians, who win and lose together. Four Factions has four (FF-1): the
factions. Any other variant falls back to the role group (the role label up to
its first '/').
"""

from __future__ import annotations

from collections.abc import Mapping

KILLER_SIDES: Mapping[str, str] = {"killer": "killer", "police": "police", "civilian": "police"}

SIDES: Mapping[str, tuple[str, ...]] = {
    "killer": ("killer", "police"),
    "four_factions": ("wolves", "spies", "justice", "army"),
}


def role_group(role: str) -> str:
    return role.split("/", 1)[0]


def side_of(variant: str, role: str) -> str:
    """The side a seat with ``role`` plays for."""
    group = role_group(role)
    if variant == "killer":
        return KILLER_SIDES.get(group, group)
    return group


def sides_of(variant: str, roles: Mapping[int, str]) -> tuple[str, ...]:
    """The variant's sides in their documented order; sides of unknown variants
    are read from the roles dealt."""
    known = SIDES.get(variant)
    if known is not None:
        return known
    return tuple(sorted({side_of(variant, r) for r in roles.values()}))

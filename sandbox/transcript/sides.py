"""The sides contestants are matched over, per variant.

Each variant says them (``Variant.research.study_sides`` and ``Variant.research.study_side``): its
declared sides, where sides that win and lose together are seated as one
(``VariantInfo.seated_with``). A variant that is not registered here (a
transcript from elsewhere) falls back to the role group (the role label up to
its first '/').
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox.core.variant import Variant


def role_group(role: str) -> str:
    return role.split("/", 1)[0]


def _variant(name: str) -> Variant[Any] | None:
    # the registry when asked, not on import: reading a transcript's lines
    # needs no variant (sandbox.transcript stays light to import)
    from sandbox.games.registry import find_variant

    return find_variant(name)


def side_of(variant: str, role: str) -> str:
    """The side a seat with ``role`` plays for."""
    found = _variant(variant)
    return found.research.study_side(role) if found is not None else role_group(role)


def sides_of(variant: str, roles: Mapping[int, str]) -> tuple[str, ...]:
    """The variant's sides in their documented order; sides of variants that do
    not declare them are read from the roles dealt."""
    found = _variant(variant)
    known = found.research.study_sides() if found is not None else ()
    if known:
        return known
    return tuple(sorted({side_of(variant, r) for r in roles.values()}))

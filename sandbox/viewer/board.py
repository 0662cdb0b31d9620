"""What an event changes on the seat board of the viewer: deaths, HP, roles
learned (each variant's ``VariantWords.board``), claims made (any speech's
structured claims).

An event's effects travel with that event, so an audience's board is the fold of
the effects of the events it may see: a seat's board can never show a death, an
HP or a role it did not learn (the referee's board takes true roles from the
header instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.variant import Variant
from sandbox.core.words import BoardEffects, BoardMaker, Words
from sandbox.games.registry import get_variant, variant_names
from sandbox.words import lang, variant_words, words_of

# {"dead": [seat], "hp": {seat: hp}, "role": {seat: words}, "claim": {seat: words}}
Effects = BoardEffects


def effects_of(
    kind: str,
    data: Mapping[str, Any],
    words: Words,
    language: str = "en",
    variant: Variant[Any, Any] | None = None,
) -> Effects:
    """The board effects of one event of ``variant`` (without it, the variant
    whose board knows ``kind``: event kinds carry their variant's prefix)."""
    maker = _maker(kind, variant)
    L = lang(language, variant if variant is not None else known_variants())
    fx: Effects = dict(maker(data, L)) if maker is not None else {}
    if words.claims and words.speaker is not None:
        fx["claim"] = {str(words.speaker): L.items(words.claims)}
    return {k: v for k, v in fx.items() if v}


def _maker(kind: str, variant: Variant[Any, Any] | None) -> BoardMaker | None:
    if variant is not None:
        found = variant_words(variant)
        return found.board.get(kind) if found is not None else None
    return next((w.board[kind] for w in words_of(known_variants()) if kind in w.board), None)


def known_variants() -> list[Variant[Any, Any]]:
    """Every registered variant, by name: whose words a line says when it
    belongs to no one game (a role label in a header, a phase title)."""
    return [get_variant(name) for name in variant_names()]

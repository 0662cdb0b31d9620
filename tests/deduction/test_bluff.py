"""The top level's bluff (sandbox/deduction/bluff.py): a hidden lead fakes the
checker's claim only at a table that accuses on no evidence (before any vote,
checker claim or checker shown dead), then keeps its story."""

from __future__ import annotations

from typing import Any

from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction import bluff
from sandbox.deduction.mind import Mind, PublicKinds
from sandbox.games.werewolf.bot import LADDER
from tests.deduction.test_mind import DECK, SEATS, TABLE

KINDS = PublicKinds(speeches=("t.speech",), deaths={}, night="t.dawn", ballots="t.ballots")
PACK = {1, 2}  # seat 1 (the viewer) and its partner


def _speech(seq: int, speaker: int, day: int = 1, **facts: Any) -> HistoryItem:
    return HistoryItem(seq, "t.speech", day, "day", speaker, "words", facts, public=True)


def _view(items: list[HistoryItem], day: int = 1) -> SeatView:
    return SeatView(None, 1, {}, {"day": day}, tuple(items))  # type: ignore[arg-type]


def _mind() -> Mind:
    mind = Mind(TABLE, 4, seed=1, levels=LADDER)
    mind.start(SEATS, DECK)
    return mind


HERD = [_speech(1, 3, accuse=[4]), _speech(2, 4, accuse=[5]), _speech(3, 5, accuse=[4])]


def test_a_table_that_accuses_on_nothing_herds() -> None:
    assert bluff.herds(_mind(), _view(HERD), KINDS, PACK)


def test_a_table_that_waits_for_evidence_does_not() -> None:
    items = [_speech(1, 3), _speech(2, 4, accuse=[5]), _speech(3, 5)]
    assert not bluff.herds(_mind(), _view(items), KINDS, PACK)


def test_the_team_s_own_speeches_and_too_few_do_not_count() -> None:
    assert not bluff.herds(_mind(), _view([_speech(1, 3, accuse=[4])]), KINDS, PACK)
    items = [_speech(1, 2, accuse=[4]), _speech(2, 3, accuse=[4]), _speech(3, 4)]
    assert not bluff.herds(_mind(), _view(items), KINDS, PACK)  # seat 2 is a partner


def test_no_bluff_once_a_checker_has_claimed() -> None:
    items = [*HERD, _speech(4, 6, claim="b", accuse=[5])]
    assert not bluff.herds(_mind(), _view(items), KINDS, PACK)


def test_no_bluff_once_a_vote_has_told_something() -> None:
    ballots = HistoryItem(4, "t.ballots", 1, "day", None, None, {"ballots": {}}, public=True)
    assert not bluff.herds(_mind(), _view([*HERD, ballots]), KINDS, PACK)


def test_no_bluff_once_the_checker_is_shown_dead() -> None:
    mind = _mind()
    mind.revealed[6] = frozenset({"b"})
    assert not bluff.herds(mind, _view(HERD), KINDS, PACK)


def test_a_bluffer_keeps_its_claim_and_its_target() -> None:
    items = [_speech(1, 1, claim="b", accuse=[5]), _speech(2, 3, day=2, claim="b", accuse=[1])]
    view = _view(items, day=2)
    assert [i.seq for i in bluff.claimed(view, KINDS.speeches, "b")] == [1]
    assert bluff.target(_mind(), view, KINDS.speeches, [3, 4, 5, 6]) == 5
    assert bluff.target(_mind(), view, KINDS.speeches, [3, 4, 6]) in (3, 4, 6)  # 5 is gone

"""The metric readings the variants share (sandbox/core/metrics.py): who died
by when, the next ballot of a seat, survival and claim honesty, read from a
small hand-made game so each rule is seen on its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox.core import metrics as shared
from sandbox.core.metrics import MetricItem


@dataclass
class Game:
    events: list[dict[str, Any]]
    outcome: dict[str, Any] | None = field(default_factory=lambda: {"winner": "x"})
    game_id: str = "g1"
    roles: dict[int, str] = field(default_factory=lambda: {1: "wolf", 2: "seer", 3: "wolf"})
    sides: dict[int, str] = field(default_factory=lambda: {1: "bad", 2: "good", 3: "bad"})
    contestants: dict[int, str] = field(default_factory=lambda: {1: "a", 2: "b", 3: "c"})

    def of_kind(self, *kinds: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] in kinds]


GAME = Game(
    [
        {"seq": 1, "kind": "dawn", "victim": None},
        {"seq": 2, "kind": "speech", "seat": 1, "claim": "seer"},
        {"seq": 3, "kind": "speech", "seat": 2, "claim": "none"},
        {"seq": 4, "kind": "ballots", "ballots": {"1": 2, "2": 1}},
        {"seq": 5, "kind": "out", "seat": 2},
        {"seq": 6, "kind": "dawn", "victim": 3},
        {"seq": 7, "kind": "ballots", "ballots": {"1": None}},
    ]
)


def test_dead_by_counts_night_victims_and_the_voted_out_before_an_event() -> None:
    assert shared.dead_by(GAME, "dawn", "out") == {2, 3}
    assert shared.dead_by(GAME, "dawn", "out", before=6) == {2}  # seq 6 itself is not before
    assert shared.dead_by(GAME, "dawn", "out", before=5) == set()


def test_next_ballot_is_the_first_after_the_event_naming_the_seat() -> None:
    ballots = GAME.of_kind("ballots")
    assert shared.next_ballot(ballots, 1, 2) == ballots[0]
    assert shared.next_ballot(ballots, 1, 4) == ballots[1]
    assert shared.next_ballot(ballots, 2, 4) is None


def test_survival_of_counts_the_role_alive_only_in_a_finished_game() -> None:
    dead = shared.dead_by(GAME, "dawn", "out")
    assert list(shared.survival_of(GAME, "wolf", dead)) == [
        MetricItem("g1", "a", 1.0),
        MetricItem("g1", "c", 0.0),
    ]
    assert list(shared.survival_of(Game(GAME.events, outcome=None), "wolf", dead)) == []


def test_claim_honesty_of_skips_speeches_without_a_claim() -> None:
    assert list(shared.claim_honesty_of(GAME, "speech")) == [MetricItem("g1", "a", 0.0)]


def test_consistency_of_credits_a_ballot_for_an_accused_seat() -> None:
    def pairs(game: shared.GameRecord) -> Any:
        yield 1, {2}, 2
        yield 2, {3}, None

    assert list(shared.consistency_of(GAME, pairs)) == [
        MetricItem("g1", "a", 1.0),
        MetricItem("g1", "b", 0.0),
    ]


def test_vote_pair_reads_the_ballot_and_makes_none_without_an_accused_seat() -> None:
    ballot = {"ballots": {"1": "3", "2": None}}
    assert list(shared.vote_pair(1, {3}, ballot)) == [(1, {3}, 3)]
    assert list(shared.vote_pair(2, {3}, ballot)) == [(2, {3}, None)]
    assert list(shared.vote_pair(1, set(), ballot)) == []


def test_consistency_metric_is_the_variants_speech_action_consistency() -> None:
    def pairs(game: shared.GameRecord) -> Any:
        yield 1, {2}, 2

    metric = shared.consistency_metric(pairs)
    assert metric.__name__ == "speech_action_consistency"
    assert list(metric(GAME)) == list(shared.consistency_of(GAME, pairs))

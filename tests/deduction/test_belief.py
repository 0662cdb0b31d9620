"""The belief over role assignments: small tables worked out by hand, and
properties that hold on any table (hypothesis)."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from importlib.resources import files

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.deduction.belief import EXACT_LIMIT, PARTICLES, Belief, brier, hidden_brier
from sandbox.deduction.evidence import (
    Ballot,
    CheckReport,
    Evidence,
    Killed,
    RoleClaim,
    SeatIs,
    VotePromise,
)
from sandbox.deduction.likelihood import Behaviour, load_behaviour
from sandbox.deduction.space import Space
from sandbox.deduction.tables import RoleTable

# a: the hidden role, b: the checker, c: a plain honest role
TABLE = RoleTable(roles=("a", "b", "c"), hidden=frozenset({"a"}), checker="b")
EASY = Behaviour(
    claim_false_hidden=0.5,
    claim_false_honest=0.1,
    said_false_honest=0.5,
    said_true_hidden=0.5,
    check_false_checker=0.1,
    vote_honest_wrong=0.5,
    vote_hidden_partner=0.25,
    killed_hidden=0.5,
)


def three() -> Belief:
    """Seats 1-3, one a and two c; seat 1 knows it is c."""
    belief = Belief(Space((1, 2, 3), {"a": 1, "c": 2}), TABLE, EASY)
    belief.know(1, {"c"})
    return belief


def test_a_kill_by_hand() -> None:
    belief = three()
    belief.observe(Killed(2))
    # seat 2 is a with weight 0.5 (killed_hidden), c with 1
    assert belief.probability(2, {"a"}) == pytest.approx(0.5 / 1.5)
    assert belief.probability(3, {"a"}) == pytest.approx(1 / 1.5)


def test_a_claim_by_hand_and_said_again_counts_once() -> None:
    belief = three()
    claim = RoleClaim(2, frozenset({"c"}))
    belief.observe(claim)
    belief.observe(claim)
    assert belief.probability(2, {"a"}) == pytest.approx(0.5 / 1.5)


def test_a_check_report_then_proved_wrong_by_hand() -> None:
    """Seats 1-4 with a, b, c, c; seat 1 knows it is c. Seat 2 reports its check:
    seat 3 is a. The six assignments of seats 2, 3, 4 weigh (claim x report):
    (b,a,c) 1x1, (b,c,a) 1x0.1, (a,b,c) 0.5x1, (a,c,b) 0.5x1, (c,a,b) 0.1x1,
    (c,b,a) 0.1x0.5: 2.25 in all."""
    belief = Belief(Space((1, 2, 3, 4), {"a": 1, "b": 1, "c": 2}), TABLE, EASY)
    belief.know(1, {"c"})
    belief.observe(CheckReport(2, 3, frozenset({"a"})))
    assert belief.probability(2, {"a"}) == pytest.approx(1.0 / 2.25)
    assert belief.probability(3, {"a"}) == pytest.approx(1.1 / 2.25)
    assert belief.probability(2, {"b"}) == pytest.approx(1.1 / 2.25)
    # seat 3 dies and is shown to be c: the report was false. Left: (b,c,a) 0.1, (a,c,b) 0.5
    belief.know(3, {"c"})
    assert belief.probability(2, {"a"}) == pytest.approx(0.5 / 0.6)


def test_votes_by_hand() -> None:
    belief = three()
    belief.observe(Ballot(2, 3))
    # (a at 2): a votes for c -> 1; (a at 3): c votes for a -> 1; no difference
    assert belief.probability(2, {"a"}) == pytest.approx(0.5)
    belief.observe(VotePromise(3, 1))
    # (a at 2): seat 3 is c, promises c -> 0.5; (a at 3): a promises c -> 1
    assert belief.probability(2, {"a"}) == pytest.approx(0.5 / 1.5)


def test_brier_by_hand() -> None:
    truth = {1: "a", 2: "c"}
    sure = {1: {"a": 1.0, "c": 0.0}, 2: {"a": 0.0, "c": 1.0}}
    assert brier(sure, truth) == 0.0
    wrong = {1: {"a": 0.0, "c": 1.0}, 2: {"a": 1.0, "c": 0.0}}
    assert brier(wrong, truth) == 2.0
    even = {1: {"a": 0.5, "c": 0.5}, 2: {"a": 0.5, "c": 0.5}}
    assert brier(even, truth) == 0.5
    assert hidden_brier(even, truth, frozenset({"a"})) == 0.25
    assert brier(even, truth, seats=[1]) == 0.5


def test_the_shipped_parameters_are_the_documented_defaults() -> None:
    raw = tomllib.loads((files("sandbox.deduction") / "behaviour.toml").read_text("utf-8"))
    assert load_behaviour() == Behaviour() == Behaviour.from_mapping(raw)
    assert set(raw) == {f.name for f in dataclasses.fields(Behaviour)}
    with pytest.raises(ValueError, match="unknown"):
        Behaviour.from_mapping({"nonsense": 0.5})
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        Behaviour(killed_hidden=0.0)


def test_a_large_table_is_sampled_and_a_small_one_exact() -> None:
    table = RoleTable(roles=("a", "b", "c", "d"), hidden=frozenset({"a"}), checker="b")
    big = Belief(
        Space(tuple(range(1, 17)), {"a": 4, "b": 1, "c": 1, "d": 10}), table, particles=200
    )
    assert not big.exact and len(big.support()) == 200
    small = Belief(Space(tuple(range(1, 9)), {"a": 2, "b": 1, "c": 1, "d": 4}), table)
    assert small.exact and len(small.support()) == 840


def test_contradictory_knowledge_is_refused() -> None:
    belief = three()
    belief.know(2, {"c"})
    with pytest.raises(ValueError, match="no assignment"):
        belief.know(3, {"c"})


def test_evidence_about_a_seat_not_at_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="seat 9"):
        three().observe(SeatIs(2, 9, frozenset({"a"})))


# ----------------------------------------------------------------- properties


Game = tuple[Space, dict[int, str], list[int], list[Evidence]]


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A small deck, a true deal, the seats whose roles are known, and evidence."""
    counts = {r: draw(st.integers(0, 2)) for r in TABLE.roles}
    counts["c"] += draw(st.integers(1, 2))
    seats = tuple(range(1, sum(counts.values()) + 1))
    deal = [r for r, n in counts.items() for _ in range(n)]
    random.Random(draw(st.integers(0, 10**6))).shuffle(deal)
    truth = dict(zip(seats, deal, strict=True))
    known = draw(st.lists(st.sampled_from(seats), unique=True, max_size=len(seats) // 2))
    seat = st.sampled_from(seats)
    roles = st.frozensets(st.sampled_from(TABLE.roles), min_size=1)
    item = st.one_of(
        st.builds(RoleClaim, seat, roles),
        st.builds(SeatIs, seat, seat, roles),
        st.builds(CheckReport, seat, seat, roles),
        st.builds(VotePromise, seat, seat),
        st.builds(Ballot, seat, seat),
        st.builds(Killed, seat),
    )
    return Space(seats, counts), truth, known, draw(st.lists(item, max_size=8))


def _built(
    game: Game, exact_limit: int = EXACT_LIMIT, particles: int = PARTICLES, seed: int = 0
) -> Belief:
    space, truth, known, evidence = game
    belief = Belief(space, TABLE, exact_limit=exact_limit, particles=particles, seed=seed)
    for seat in known:
        belief.know(seat, {truth[seat]})
    belief.observe_all(evidence)
    return belief


@settings(max_examples=60, deadline=None)
@given(games())
def test_marginals_sum_to_one_and_knowledge_is_certain(game: Game) -> None:
    space, truth, known, _ = game
    marginals = _built(game).marginals()
    for dist in marginals.values():
        assert sum(dist.values()) == pytest.approx(1.0)
        for role, p in dist.items():
            if space.deck[role] == 0:
                assert p == 0.0  # a role not dealt is impossible
    for seat in known:
        assert marginals[seat][truth[seat]] == pytest.approx(1.0)
        assert all(p == 0.0 for r, p in marginals[seat].items() if r != truth[seat])


@settings(max_examples=20, deadline=None)
@given(games(), st.integers(0, 1000))
def test_sampled_agrees_with_exact_and_a_seed_repeats(game: Game, seed: int) -> None:
    exact = _built(game).marginals()
    sampled = _built(game, exact_limit=0, particles=2000, seed=seed)
    assert not sampled.exact
    found = sampled.marginals()
    for seat, dist in exact.items():
        for role, p in dist.items():
            assert found[seat][role] == pytest.approx(p, abs=0.08), (seat, role)
    assert _built(game, exact_limit=0, particles=2000, seed=seed).marginals() == found
    _, truth, known, _ = game
    for seat in known:  # every particle keeps to the knowledge
        assert found[seat][truth[seat]] == pytest.approx(1.0)

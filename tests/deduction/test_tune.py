"""Choosing the likelihood parameters by the belief's Brier score
(sandbox/deduction/tune.py, issue 37 item 1): hand-built games where the right
weight is known (ballots that tell nothing, ballots that tell everything), the
score on a hand-computed vote, and the fold against a mind that weighs the same
games directly."""

from __future__ import annotations

import dataclasses
import random
import tomllib

import numpy as np
import pytest

from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction import tune
from sandbox.deduction.belief import brier
from sandbox.deduction.evidence import Ballot
from sandbox.deduction.likelihood import Behaviour
from sandbox.deduction.mind import Heard, Level, Mind
from sandbox.deduction.tables import RoleTable
from sandbox.games.registry import get_variant

# one hidden w among four seats, three plain v
TABLE = RoleTable(roles=("w", "v"), hidden=frozenset({"w"}), words={"en": {"w": ("wolf",)}})
LEVELS = {1: Level(1, words=False, forget=0.0, noise=0.0)}
SEATS = (1, 2, 3, 4)
VARIANT = get_variant("werewolf")  # a view's variant: only carried, never asked here


def read(item: HistoryItem) -> Heard | None:
    f = item.facts
    if item.kind == "ballot":
        return Heard(evidence=[Ballot(int(f["voter"]), int(f["target"]))])
    return None


def think(mind: Mind, view: SeatView) -> None:
    if not mind.started:
        mind.start(SEATS, {"w": 1, "v": 3})
    mind.know_seat(view.seat, frozenset({"v"}))  # the watched seat is plain
    mind.update(view, read)


def game(rng: random.Random, informative: bool) -> tune.Watched:
    """Day 1: every seat casts a ballot; day 2: seat 1 (always plain) votes.
    Informative: the plain seats always vote the wolf, the wolf a plain seat;
    else every ballot names any other seat."""
    wolf = rng.choice(SEATS[1:])
    roles = {s: ("w" if s == wolf else "v") for s in SEATS}
    items: list[HistoryItem] = []
    for voter in SEATS:
        others = [s for s in SEATS if s != voter]
        target = wolf if informative and voter != wolf else rng.choice(others)
        if informative and voter == wolf:
            target = rng.choice(others)
        facts = {"voter": voter, "target": target}
        items.append(HistoryItem(len(items), "ballot", 1, "day", facts=facts, public=True))
    view = SeatView(VARIANT, 1, {}, {"living": list(SEATS), "day": 2}, tuple(items))
    return tune.Watched(roles, {1: [view]})


def folded(informative: bool, n: int = 240, seed: int = 7) -> list[tune.Point]:
    rng = random.Random(seed)
    games = [game(rng, informative) for _ in range(n)]
    return tune.fold(games, TABLE, think, 1, LEVELS)


def test_ballots_that_tell_nothing_move_their_weight_to_no_update() -> None:
    points = folded(informative=False)
    start = Behaviour()  # vote_honest_wrong 0.7: it believes ballots
    tuned = tune.search(points, start)
    assert tuned.behaviour.vote_honest_wrong >= 0.85
    assert tuned.score < tuned.start  # believing random ballots scored worse
    # the parameters these games never weigh keep their value
    assert tuned.behaviour.claim_false_hidden == start.claim_false_hidden
    assert tuned.behaviour.said_false_honest == start.said_false_honest


def test_ballots_that_tell_everything_move_their_weight_to_the_extreme() -> None:
    points = folded(informative=True)
    tuned = tune.search(points, Behaviour())
    assert tuned.behaviour.vote_honest_wrong <= 0.05
    # near certainty: the wolf is found by the plain seats' ballots
    assert tuned.score < 0.02 < tuned.start
    assert tuned.score == pytest.approx(tune.score(points, tune.logs(tuned.behaviour)))
    # a parameter held fixed keeps its value, the temperature included
    held = tune.search(points, Behaviour(), fixed=["vote_honest_wrong"])
    assert held.behaviour.vote_honest_wrong == Behaviour().vote_honest_wrong
    with pytest.raises(ValueError, match="unknown"):
        tune.search(points, Behaviour(), fixed=["no_such_weight"])


def test_the_fold_gives_the_belief_a_mind_holds() -> None:
    """Folded once, any weights give what a mind with those weights believes."""
    rng = random.Random(3)
    games = [game(rng, informative=bool(i % 2)) for i in range(6)]
    points = tune.fold(games, TABLE, think, 1, LEVELS)
    for weights in (Behaviour(), Behaviour(vote_honest_wrong=0.2, vote_hidden_partner=0.9)):
        table = dataclasses.replace(TABLE, behaviour=dataclasses.asdict(weights))
        for g, point in zip(games, points, strict=True):
            mind = Mind(table, 1, 1, levels=LEVELS)
            think(mind, g.votes[1][0])
            scored = [s for s in SEATS if s != 1]
            want = np.array([mind.hidden(s) for s in scored])
            logw = point.counts @ tune.logs(weights) + point.size
            w = np.exp(logw - logw.max())
            assert (w @ point.hidden) / w.sum() == pytest.approx(want, abs=1e-9)
            truth = np.array([float(g.roles[s] == "w") for s in scored])
            expected = float(np.mean((want - truth) ** 2))
            theta = tune.logs(weights)
            assert tune.brier(point, theta, "hidden") == pytest.approx(expected, abs=1e-9)
            marginals = mind.belief.marginals() if mind.belief else {}
            full = brier(marginals, g.roles, scored)  # the belief's own score
            assert tune.brier(point, theta) == pytest.approx(full, abs=1e-9)


def test_a_hand_computed_vote() -> None:
    """Two scored seats a, b and two classes of assignment: a hidden (one
    assignment, counted once for parameter 0) or b hidden (two, no count)."""
    counts = np.zeros((2, len(tune.NAMES)))
    counts[0, 0] = 1.0
    point = tune.Point(
        day=1,
        counts=counts,
        size=np.log(np.array([1.0, 2.0])),
        roles=np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]),  # (w, v) of a, then b
        truth=np.array([1.0, 0.0, 0.0, 1.0]),  # a is the w
        hidden=np.array([[1.0, 0.0], [0.0, 1.0]]),
        hidden_truth=np.array([1.0, 0.0]),
    )
    theta = np.zeros(len(tune.NAMES))
    theta[0] = np.log(0.5)  # weights 0.5 * 1 against 1 * 2: P(a hidden) 0.2, P(b) 0.8
    hidden = ((0.2 - 1) ** 2 + (0.8 - 0) ** 2) / 2
    assert tune.brier(point, theta, "hidden") == pytest.approx(hidden)
    # each seat's two roles both miss by 0.8: twice the hidden score
    assert tune.brier(point, theta) == pytest.approx(2 * hidden)
    assert tune.score([point, point], theta) == pytest.approx(tune.brier(point, theta))
    ((day, (value, n)),) = tune.by_day([point], theta, "hidden").items()
    assert (day, n) == (1, 1)
    assert value == pytest.approx(0.64)
    # no deduction: each seat half w, half v
    assert tune.flat([point]) == pytest.approx(0.5)
    assert tune.flat([point], "hidden") == pytest.approx(0.25)
    with pytest.raises(ValueError):
        tune.score([], theta)
    with pytest.raises(ValueError, match="kind"):
        tune.brier(point, theta, "seer")


def test_a_sampled_belief_is_refused() -> None:
    rng = random.Random(1)
    games = [game(rng, informative=True)]

    def sampled(mind: Mind, view: SeatView) -> None:
        think(mind, view)
        assert mind.belief is not None
        mind.belief.exact = False  # as a table too large to list would be

    with pytest.raises(ValueError, match="sampled"):
        tune.fold(games, TABLE, sampled, 1, LEVELS)


def test_the_weights_written_read_back() -> None:
    b = Behaviour(vote_honest_wrong=0.25)
    text = tune.to_toml(b, "chosen on hand-built games")
    assert Behaviour.from_mapping(tomllib.loads(text)) == b
    assert text.startswith("# chosen on hand-built games\n")

"""Ratings a reviewer accepts: a function of the set of games (not of their
order or start times), the point inside its interval, our Plackett–Luce update
equal to the openskill package's, and Nash averaging on hand-built
populations (a rock-paper-scissors cycle, a dominated contestant)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from sandbox.analysis.intervals import percentile_interval
from sandbox.analysis.load import load_games
from sandbox.analysis.nash import game_value, nash_table, role_ratings, symmetric_ratings
from sandbox.analysis.plackett_luce import rate_teams
from sandbox.analysis.ratings import (
    Match,
    bootstrap,
    bradley_terry,
    interval_around,
    openskill_ratings,
    pairwise,
    rate,
    rate_matches,
)
from tests.analysis.builders import write_transcript

ROLES = {1: "killer", 2: "police", 3: "civilian"}


def duel(winner: str, loser: str, key: str) -> Match:
    """A two-team game ``winner`` beat ``loser`` (teams in name order, as match_of makes them)."""
    first, second = sorted([winner, loser])
    return Match(((first,), (second,)), (1, 2) if first == winner else (2, 1), key)


def test_our_plackett_luce_update_is_the_packages() -> None:
    model = PlackettLuce()
    rng = random.Random(5)
    for _ in range(500):
        teams = [
            [(rng.uniform(10, 40), rng.uniform(1, 9)) for _ in range(rng.randint(1, 3))]
            for _ in range(rng.randint(2, 4))
        ]
        ranks = [rng.randint(1, 3) for _ in teams]
        ours = rate_teams(teams, ranks)
        theirs = model.rate(
            [[model.rating(mu=m, sigma=s) for m, s in t] for t in teams], ranks=list(ranks)
        )
        for mine, lib in zip(ours, theirs, strict=True):
            for (mu, sigma), r in zip(mine, lib, strict=True):
                assert mu == pytest.approx(r.mu, abs=1e-9)
                assert sigma == pytest.approx(r.sigma, abs=1e-9)


def _games(tmp_path: Path, shuffle: random.Random | None = None) -> list[Path]:
    """Nine games of three contestants; start times all in one second (the tie
    that used to order them by chance), or shuffled ones."""
    who = ["A", "B", "C"]
    paths = []
    for n in range(9):
        killer, police = who[n % 3], who[(n + 1 + n // 3) % 3]
        if killer == police:
            police = who[(n + 2) % 3]
        won = n % 4 != 0
        stamp = f"2026-01-01T00:00:{shuffle.randrange(60) if shuffle else 0:02d}Z"
        paths.append(
            write_transcript(
                tmp_path / f"g{n}-{stamp[-3:-1]}.jsonl",
                "killer",
                ROLES,
                {1: killer, 2: police, 3: police},
                [],
                {
                    1: "win" if won else "lose",
                    2: "lose" if won else "win",
                    3: "lose" if won else "win",
                },
                seed=n,
                study={"name": "s", "cell": f"killer={killer},police={police}"},
                started=stamp,
            )
        )
    return paths


def test_ratings_are_a_function_of_the_set_of_games(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _games(first)
    _games(second, random.Random(3))  # same games, other start times and file names
    games_a = load_games([first]).games
    games_b = load_games([second]).games
    assert rate(games_a, samples=40) == rate(games_b, samples=40)
    shuffled = list(games_a)
    random.Random(1).shuffle(shuffled)
    assert rate(shuffled, samples=40) == rate(games_a, samples=40)
    assert rate(shuffled, per_role=True, samples=40) == rate(games_a, per_role=True, samples=40)


def test_permuting_matches_changes_no_rating() -> None:
    rng = random.Random(2)
    matches = [duel(*rng.sample("ABCD", 2), key=f"g{i}") for i in range(15)]
    expected = rate_matches(matches, samples=30)
    for _ in range(3):
        rng.shuffle(matches)
        assert rate_matches(matches, samples=30) == expected
    # the same outcomes under other identities (other file names): the same figures
    renamed = [Match(m.teams, m.ranks, f"other-{i}") for i, m in enumerate(matches)]
    assert rate_matches(renamed, samples=30) == expected


def test_openskill_point_depends_on_the_order_but_the_headline_does_not() -> None:
    # A beats B three times, then B beats A three times: a single pass rates B
    # higher, the reverse order A; the order-averaged figure is the same for both
    forward = [duel("A", "B", f"1{i}") for i in range(3)] + [
        duel("B", "A", f"2{i}") for i in range(3)
    ]
    one, other = openskill_ratings(forward), openskill_ratings(forward[::-1])
    assert one["B"][0] > one["A"][0] and other["A"][0] > other["B"][0]
    assert rate_matches(forward, samples=20) == rate_matches(forward[::-1], samples=20)


def test_the_point_sits_inside_its_interval_over_many_hand_built_sets() -> None:
    rng = random.Random(11)
    widened = checked = 0
    for _ in range(25):
        players = "ABCD"[: rng.randint(2, 4)]
        strength = {p: rng.uniform(0, 2) for p in players}
        matches = []
        for i in range(rng.randint(6, 16)):
            a, b = rng.sample(players, 2)
            p_a = strength[a] / (strength[a] + strength[b])
            matches.append(duel(a, b, f"g{i}") if rng.random() < p_a else duel(b, a, f"g{i}"))
        skill, elo, skill_draws, elo_draws = bootstrap(matches, samples=60)
        for player in skill:
            for point, draws in ((skill[player][0], skill_draws), (elo[player], elo_draws)):
                reported = interval_around(point, draws[player])
                assert reported is not None and reported[0] <= round(point, 3) <= reported[1]
                # how often the plain percentile interval needed widening to reach the point
                raw = percentile_interval(draws[player])
                assert raw is not None
                checked += 1
                widened += not raw[0] <= point <= raw[1]
    # built the same way as the point, the interval nearly always holds it unwidened
    assert checked > 100 and widened / checked < 0.05


# ------------------------------------------------------------------ Nash


def rock_paper_scissors() -> list[Match]:
    """A beats B, B beats C, C beats A, each 3 of 4 — but A and B meet twice as
    often: A gains most from its many wins over B, B loses most; Elo ranks
    A > C > B and OpenSkill puts A well above the other two."""
    games = []
    for n, (a, b, times) in enumerate([("A", "B", 2), ("B", "C", 1), ("C", "A", 1)]):
        for t in range(times):
            games += [duel(a, b, f"{n}{t}{k}") for k in range(3)] + [duel(b, a, f"{n}{t}x")]
    return games


def test_nash_rates_a_cycle_equal_where_elo_and_openskill_order_it() -> None:
    matches = rock_paper_scissors()
    nash = symmetric_ratings(pairwise(matches))
    assert {p: round(r, 9) for p, (r, _) in nash.items()} == {"A": 0.0, "B": 0.0, "C": 0.0}
    assert all(w == pytest.approx(1 / 3) for _, w in nash.values())
    elo = bradley_terry(pairwise(matches))
    assert elo["A"] > elo["C"] + 20 and elo["C"] > elo["B"] + 20
    skill = rate_matches(matches, samples=20)
    mu = {p: skill[p]["openskill_mu"] for p in "ABC"}
    assert mu["A"] > max(mu["B"], mu["C"]) + 1
    table = nash_table(matches, per_role=False, seed=1, samples=30)
    assert [table[p]["nash"] for p in "ABC"] == [0.0, 0.0, 0.0]


def test_a_dominated_contestant_gets_a_lower_nash_rating() -> None:
    matches = rock_paper_scissors()
    for n, other in enumerate("ABC"):  # D loses 3 of 4 to each of them
        matches += [duel(other, "D", f"d{n}{k}") for k in range(3)] + [duel("D", other, f"d{n}")]
    nash = symmetric_ratings(pairwise(matches))
    assert nash["D"][0] == pytest.approx(-0.25, abs=1e-6)  # 1/4 − 1/2 against the mixture
    assert nash["D"][1] == pytest.approx(0.0, abs=1e-6)
    for p in "ABC":
        assert nash[p][0] == pytest.approx(0.0, abs=1e-6)
        assert nash[p][1] == pytest.approx(1 / 3, abs=1e-6)


def test_nash_by_role_takes_out_the_side_advantage_and_keeps_the_cycle() -> None:
    # killers win 3 of 4 on average; a@killer beats x@police always, b@killer
    # beats y, c beats z, and each loses half to the other two: a cycle across sides
    matches: list[Match] = []
    beats = {"a": "x", "b": "y", "c": "z"}
    for killer in "abc":
        for police in "xyz":
            share = 1.0 if beats[killer] == police else 0.625
            wins = round(8 * share)
            for k in range(8):
                won = k < wins
                teams = ((f"{killer}@killer",), (f"{police}@police",))
                matches.append(Match(teams, (1, 2) if won else (2, 1), f"{killer}{police}{k}"))
    found = role_ratings(pairwise(matches))
    for player, (rating, weight) in found.items():
        assert rating == pytest.approx(0.0, abs=1e-6), player
        assert weight == pytest.approx(1 / 3, abs=1e-5), player
    # a fourth killer beaten by the cycle's mixture rates below 0
    for police in "xyz":
        for k in range(8):
            won = k < 4
            teams = (("d@killer",), (f"{police}@police",))
            matches.append(Match(teams, (1, 2) if won else (2, 1), f"d{police}{k}"))
    found = role_ratings(pairwise(matches))
    value = 0.75 - 0.5  # the killers' share against the police's mixture, less ½
    assert found["d@killer"][0] == pytest.approx(0.0 - value, abs=1e-6)
    assert found["a@killer"][0] == pytest.approx(0.0, abs=1e-6)


def test_the_game_value_by_simplex() -> None:
    assert game_value([[0.5, -0.5], [-0.5, 0.5]]) == pytest.approx(0.0)  # matching pennies
    assert game_value([[3.0, 1.0], [0.0, 2.0]]) == pytest.approx(1.5)  # x = (1/2, 1/2)
    assert game_value([[1.0, 2.0], [0.0, 5.0]]) == pytest.approx(1.0)  # a saddle point


def test_without_scipy_the_summary_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sandbox.analysis.nash import nash_summary
    from sandbox.report.page import leaderboard_rows, render_markdown

    monkeypatch.setitem(sys.modules, "scipy.optimize", None)  # import fails as if absent
    found = nash_summary(rock_paper_scissors(), [], seed=1, samples=5)
    assert set(found) == {"unavailable"} and "pip install -e '.[study]'" in found["unavailable"]
    summary = {"ratings": rate_matches(rock_paper_scissors(), samples=5), "nash": found}
    assert all(row[7:9] == ["–", "–"] for row in leaderboard_rows(summary))
    assert found["unavailable"] in render_markdown(summary, "t")

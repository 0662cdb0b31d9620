"""Fitting the likelihood parameters (sandbox/deduction/fit.py, issue 37 item 1):
hand-built games where each ratio is known exactly, the edges (no observations,
the clip), and the records read as a deducing seat reads the game."""

from __future__ import annotations

import pytest

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.core.variant import HistoryItem
from sandbox.deduction import evidence as ev
from sandbox.deduction.fit import FLOOR, Fit, Record, Seen, fit, record_of, to_toml, weighed
from sandbox.deduction.likelihood import Behaviour, load_behaviour
from sandbox.deduction.mind import Heard, heard_speech
from sandbox.deduction.tables import RoleTable
from sandbox.games.registry import get_variant
from sandbox.games.werewolf import bot as werewolf_bot
from sandbox.session.seating import seat_seed

# w is hidden, s the checker, v plain.
TABLE = RoleTable(
    roles=("w", "s", "v"),
    hidden=frozenset({"w"}),
    checker="s",
    words={"en": {"w": ("wolf",), "s": ("seer",), "v": ("villager",)}},
)
HAND = Behaviour()
W, S = frozenset({"w"}), frozenset({"s"})
GOOD = frozenset({"s", "v"})
KEPT = "no observations: hand-set kept"


def game(roles: str, *items: ev.Evidence, living: str = "") -> Record:
    """A record: roles by seat from 1 ("wsvv": 1 w, 2 s, 3 v, 4 v)."""
    alive = frozenset(int(c) for c in living)
    return Record({i + 1: r for i, r in enumerate(roles)}, [Seen(e, alive) for e in items])


def check(
    fitted: Fit, name: str, observed: float, expected: float, value: float, note: str = "fitted"
) -> None:
    """``name``'s estimate: its counts O and E, its value (in the behaviour too), its note."""
    e = next(e for e in fitted.estimates if e.name == name)
    assert (e.observed, e.note) == (observed, note)
    assert e.expected == pytest.approx(expected)
    assert e.value == pytest.approx(value)
    assert getattr(fitted.behaviour, name) == e.value


def test_claims_are_counted_per_seat_against_the_true_claim_rate() -> None:
    games = [
        # the seer, the wolf and villager 3 claim the seer (the wolf twice: once)
        game(
            "wsvv", ev.RoleClaim(2, S), ev.RoleClaim(1, S), ev.RoleClaim(1, S), ev.RoleClaim(3, S)
        ),
        game("wsvv", ev.RoleClaim(2, S)),
        game("wsvv"),  # nobody claims: exposure all the same
    ]
    fitted = fit(games, TABLE, HAND)
    # true claims: 2 of 3 seers; the wolf lacks it in 3 games: E = 3 * 2/3 = 2, O = 1
    check(fitted, "claim_false_hidden", 1, 2, 0.5)
    # villagers lack it 6 times: E = 6 * 2/3 = 4, O = 1
    check(fitted, "claim_false_honest", 1, 4, 0.25)
    assert fitted.behaviour.claim_false_hidden == 0.5
    assert fitted.behaviour.claim_false_honest == 0.25


def test_each_claimed_role_set_has_its_own_base_rate() -> None:
    games = [
        game("wsvv", ev.RoleClaim(2, S), ev.RoleClaim(3, frozenset({"v"}))),
        game("wsvv", ev.RoleClaim(2, S), ev.RoleClaim(1, frozenset({"v"}))),
    ]
    fitted = fit(games, TABLE, HAND)
    # {s}: 2 of 2 seers claim it, the wolf never (E = 2 * 1); {v}: 1 of 4 villagers
    # claims it, the wolf once in 2 (E = 2 * 1/4): O = 1, E = 2.5
    check(fitted, "claim_false_hidden", 1, 2.5, 0.4)


def test_statements_are_counted_per_pair_by_whether_they_are_true() -> None:
    roles = "wwvvvv"  # 1, 2 hidden; 3..6 honest
    accuse = [
        ev.SeatIs(3, 1, W),
        ev.SeatIs(4, 1, W),
        ev.SeatIs(5, 3, W),
        ev.SeatIs(1, 3, W),
        ev.SeatIs(1, 2, W),
    ]
    fitted = fit([game(roles, *accuse)], TABLE, HAND)
    # honest speakers: 8 true pairs (4 speakers x 2 wolves), 2 said: rate 1/4;
    # 12 false pairs (4 x 3 other villagers), 1 said: O = 1, E = 12 / 4 = 3
    check(fitted, "said_false_honest", 1, 3, 1 / 3)
    # hidden speakers: 8 false pairs (2 x 4 villagers), 1 said: rate 1/8;
    # 2 true pairs (each wolf its partner), 1 said (a bus): O = 1, E = 2/8
    check(fitted, "said_true_hidden", 1, 0.25, 1.0, "clipped from 4")


def test_the_checker_answers_for_its_reports_others_as_statements() -> None:
    roles = "wsvv"
    items = [
        ev.CheckReport(2, 1, W),  # the seer, true
        ev.CheckReport(2, 3, GOOD),  # the seer, true
        ev.CheckReport(3, 4, W),  # a villager claiming to check: a false statement
        ev.CheckReport(4, 1, W),  # a villager: a true statement
    ]
    fitted = fit([game(roles, *items)], TABLE, HAND)
    # the checker: {w}: 1 true pair (said: rate 1), 2 false ones; {s, v}: 2 true pairs
    # (1 said: rate 1/2), 1 false one; no false report: O = 0, E = 2 + 1/2 -> the floor
    check(fitted, "check_false_checker", 0, 2.5, FLOOR, "clipped from 0")
    # honest non-checkers (3, 4), ev.CheckReport {w}: 2 true pairs (1 said: rate 1/2),
    # 4 false ones (1 said): O = 1, E = 2; ev.CheckReport {s, v}: no true report by
    # them, so no base rate (left out)
    check(fitted, "said_false_honest", 1, 2, 0.5)
    # each report claims the checker role once for its speaker: two false claims
    check(fitted, "claim_false_honest", 2, 2, 1.0)


def test_ballots_are_counted_per_seat_the_voter_could_name() -> None:
    roles = {1: "w", 2: "v", 3: "v", 4: "v"}
    seen = [
        Seen(ev.Ballot(2, 1), frozenset({1, 2, 3, 4})),  # 1 hidden and 2 honest candidates
        Seen(ev.Ballot(3, 4), frozenset({1, 2, 3, 4})),  # a wrong vote
        Seen(ev.Ballot(4, 1), frozenset({1, 4})),  # only seat 1 to name
        Seen(ev.Ballot(1, 2), frozenset({1, 2, 3, 4})),  # a wolf: no partner alive to name
    ]
    fitted = fit([Record(roles, seen)], TABLE, HAND)
    # honest voters: hidden candidates 3, voted 2 (rate 2/3); honest ones 4, voted 1
    # (the promise stratum has no promise, so no base rate): O = 1, E = 4 * 2/3
    check(fitted, "vote_honest_wrong", 1, 8 / 3, 0.375)
    # the wolf had no partner to vote for: nothing to compare
    check(fitted, "vote_hidden_partner", 0, 0, HAND.vote_hidden_partner, KEPT)


def test_vote_promises_are_counted_per_pair_and_game() -> None:
    items = [ev.VotePromise(3, 1), ev.VotePromise(3, 1), ev.VotePromise(4, 5), ev.VotePromise(1, 2)]
    fitted = fit([game("wwvvv", *items)], TABLE, HAND)
    # honest: 6 pairs with a wolf (1 promised once, however often said), 6 with a villager (1)
    check(fitted, "vote_honest_wrong", 1, 1, 1.0)
    # hidden: 6 pairs with a villager (none promised): no base rate
    check(fitted, "vote_hidden_partner", 0, 0, HAND.vote_hidden_partner, KEPT)


def test_night_victims_are_counted_per_living_seat_and_clipped_at_one() -> None:
    roles = {1: "w", 2: "w", 3: "v", 4: "v", 5: "v"}
    seen = [
        Seen(ev.Killed(3), frozenset({1, 2, 3, 4, 5})),
        Seen(ev.Killed(1), frozenset({1, 2, 4, 5})),
        Seen(ev.Killed(4), frozenset({2, 4, 5})),
    ]
    fitted = fit([Record(roles, seen)], TABLE, HAND)
    # honest: 2 of 3 + 2 + 2 = 7 living; hidden: 1 of 2 + 2 + 1 = 5: O = 1, E = 10/7
    check(fitted, "killed_hidden", 1, 10 / 7, 0.7)
    fitted = fit([Record(roles, seen[1:])], TABLE, HAND)  # 1 of 3 hidden, 1 of 4 honest
    check(fitted, "killed_hidden", 1, 0.75, 1.0, "clipped from 1.333")


def test_no_observations_keep_the_hand_set_values() -> None:
    hand = Behaviour(claim_false_hidden=0.3, killed_hidden=0.05)
    fitted = fit([game("wsvv")], TABLE, hand)
    assert fitted.behaviour == hand
    assert {e.note for e in fitted.estimates} == {"no observations: hand-set kept"}
    assert fit([], TABLE, hand).behaviour == hand


def test_a_table_without_hidden_roles_fits_no_vote_or_kill() -> None:
    flat = RoleTable(roles=("a", "b"))
    seen = [Seen(ev.Ballot(1, 2)), Seen(ev.Ballot(2, 1)), Seen(ev.Killed(1))]
    fitted = fit([Record({1: "a", 2: "b", 3: "a"}, seen)], flat, HAND)
    for name in ("vote_honest_wrong", "vote_hidden_partner", "killed_hidden"):
        check(fitted, name, 0, 0, getattr(HAND, name), KEPT)


def test_weighed_counts_as_the_belief_does() -> None:
    items: list[ev.Evidence] = [
        ev.CheckReport(2, 1, W),
        ev.RoleClaim(2, S),  # already claimed by the report
        ev.CheckReport(2, 1, W),  # said again: once
        ev.Ballot(3, 1),
        ev.Ballot(3, 1),  # ballots count every time
        ev.SeatIs(3, 1, W),
    ]
    kept = [s.item for s in weighed([Seen(e) for e in items], TABLE)]
    assert kept == [
        ev.RoleClaim(2, S),
        ev.CheckReport(2, 1, W),
        ev.Ballot(3, 1),
        ev.Ballot(3, 1),
        ev.SeatIs(3, 1, W),
    ]


def test_record_of_follows_the_living_and_reads_the_words() -> None:
    def read(item: HistoryItem) -> Heard | None:
        if item.kind == "speech" and item.speaker is not None:
            claim, accuse = item.facts.get("claim"), item.facts.get("accuse", ())
            return heard_speech(TABLE, item.speaker, claim, accuse, (), item.speech or "")
        return None

    history = [
        HistoryItem(1, "speech", 1, "day", 2, "I am the seer.", {"claim": "s"}, True),
        HistoryItem(2, "death", 1, "day", None, None, {"seat": 4}, True),
        HistoryItem(3, "speech", 1, "day", 3, "Seat 1 is a wolf.", {"accuse": [2]}, True),
        HistoryItem(4, "secret", 1, "night", 3, "Seat 2 is a wolf.", {"accuse": [2]}, False),
    ]
    roles = {1: "w", 2: "s", 3: "v", 4: "v"}
    record = record_of(history, roles, TABLE, read, {"death": "seat"})
    # the fields, then the words (a repeat: the belief weighs it once, as weighed does)
    said = [ev.RoleClaim(2, S), ev.RoleClaim(2, S), ev.SeatIs(3, 2, W), ev.SeatIs(3, 1, W)]
    assert [s.item for s in record.seen] == said
    assert record.seen[0].living == {1, 2, 3, 4}
    assert record.seen[3].living == {1, 2, 3}
    assert record.met == {1: frozenset(), 2: {1, 2, 3, 4}, 3: {1, 2, 3}, 4: frozenset()}
    assert record.targets(3) == {1, 2}
    words_off = record_of(history, roles, TABLE, read, {"death": "seat"}, words=False)
    assert [s.item for s in words_off.seen] == [ev.RoleClaim(2, S), ev.SeatIs(3, 2, W)]


def test_a_record_holds_what_a_top_level_mind_weighs() -> None:
    """A real Werewolf game: the record's evidence is what each level-4 seat's
    mind took in (its notes), item for item."""
    variant = get_variant("werewolf")
    game_ = Game.new(variant, variant.parse_config({}), 3)
    agents = {s: baseline_bot(variant, seat_seed(3, s)) for s in game_.seats}
    for bot in agents.values():
        bot.at_level(4)  # type: ignore[attr-defined]
    while not game_.over:
        for request in game_.pending():
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game_, request))
            if answer.payload is None:
                game_.submit_fallback(request.id, answer.fallback_reason or "invalid")
            else:
                game_.submit(request.id, answer.payload)
    table, read = werewolf_bot.TABLE, werewolf_bot._heard
    history = game_.view(game_.seats[0]).history
    record = record_of(history, game_.roles(), table, read)
    assert len(record.seen) > 20
    for seat in game_.seats:
        mind = agents[seat].mind  # type: ignore[attr-defined]
        werewolf_bot.think(mind, game_.view(seat))  # read to the end
        assert [n.item for n in mind.notes] == [s.item for s in record.seen]


def test_to_toml_loads_back_as_the_fitted_behaviour(tmp_path: object) -> None:
    games = [game("wsvv", ev.RoleClaim(2, S), ev.RoleClaim(1, S)), game("wsvv", ev.RoleClaim(2, S))]
    fitted = fit(games, TABLE, load_behaviour())
    from pathlib import Path

    path = Path(str(tmp_path)) / "fitted.toml"
    path.write_text(to_toml(fitted, "a header\n\nline"), encoding="utf-8")
    assert load_behaviour(path) == fitted.behaviour
    assert path.read_text(encoding="utf-8").startswith("# a header\n#\n# line\n")

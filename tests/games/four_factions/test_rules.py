"""Four Factions rules FF-1..FF-29 and every ruling option, through the public Game API."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from sandbox.core.errors import ConfigError, IllegalDecision
from sandbox.games.four_factions import events as ev
from sandbox.games.four_factions.resolve import STRIKE_TABLE, Fighter, duel
from sandbox.session.gamefile import parse_config
from tests.games.four_factions.helpers import (
    VARIANT,
    answer_all,
    fallback_until,
    kinds,
    new,
    night,
    seats_of,
)


def layout(e1: str, e2: str, o1: str, o2: str) -> list[dict[str, Any]]:
    """Factions e1/e2 on even seats, o1/o2 on odd ones; elites at 2, 10, 1, 9."""
    return (
        seats_of(e1, 2, [(4, "rock"), (6, "scissors"), (8, "paper")])
        + seats_of(e2, 10, [(12, "rock"), (14, "scissors"), (16, "paper")])
        + seats_of(o1, 1, [(3, "paper"), (5, "rock"), (7, "scissors")])
        + seats_of(o2, 9, [(11, "paper"), (13, "rock"), (15, "scissors")])
    )


# Each odd seat's weapon beats the shield of the even seat above it (the even
# elites fall back to rock + anti-rock, FF-5 fallback): all eight strikes kill.
KILL_ALL = {1: 2, 3: 4, 5: 6, 7: 8, 9: 10, 11: 12, 13: 14, 15: 16}
PAPER = {1: ("paper", "anti-rock"), 9: ("paper", "anti-rock")}


# ---------------------------------------------------------------- FF-21/22
@pytest.mark.rule("FF-4", "FF-21")
def test_strike_table_is_complete_and_cyclic() -> None:
    weapons = ("rock", "scissors", "paper")
    assert set(STRIKE_TABLE) == {(w, g) for w in weapons for g in weapons}
    for w in weapons:
        effects = Counter(STRIKE_TABLE[(w, g)] for g in weapons)
        assert effects == Counter({"none": 1, "kill": 1, "wound": 1})


@pytest.mark.rule("FF-21", "FF-22", "FF-23")
def test_duel_kill_ends_it_and_survivor_strikes_back_once() -> None:
    paper = Fighter(1, False, "paper", "anti-paper", 3)
    rock = Fighter(2, False, "rock", "anti-rock", 3)
    assert [s.effect for s in duel(paper, rock, True)] == ["kill"]
    scissors = Fighter(3, False, "scissors", "anti-scissors", 3)
    strikes = duel(scissors, rock, True)
    assert [(s.striker, s.effect, s.hp_after) for s in strikes] == [(3, "wound", 2), (2, "kill", 0)]
    assert [s.effect for s in duel(scissors, rock, False)] == ["none", "kill"]  # FF-23 option


# ----------------------------------------------------------------- config
@pytest.mark.rule("FF-7", "FF-8", "FF-9")
@pytest.mark.parametrize(
    ("rules", "seats", "expected"),
    [
        ({"hp": 2}, [], "rules.hp"),
        ({"hp": 33}, [], "3 to 32"),
        ({}, [{"seat": 1, "hp": 2}], "seat[1].hp"),
        (
            {},
            [
                {"seat": 1, "faction": "wolves", "elite": True},
                {"seat": 2, "faction": "wolves", "elite": True},
            ],
            "2 elites",
        ),
        ({}, [{"seat": s, "faction": "army"} for s in range(1, 6)], "has 5 fixed seats"),
        ({}, [{"seat": 1, "elite": True, "weapon": "rock"}], "give 'weapon' only"),
        ({}, [{"seat": 1}, {"seat": 1}], "listed more than once"),
        ({}, [{"seat": 17}], "seat[1].seat"),
        ({}, [{"seat": 1, "faction": "pirates"}], "'wolves', 'spies', 'justice' or 'army'"),
        ({}, [{"seat": 1, "weapon": "gun"}], "'rock', 'scissors' or 'paper'"),
        ({"elite_knowledge": "some"}, [], "'all' or 'own_faction'"),
        ({"weapon_assignment": "x"}, [], "'balanced' or 'random'"),
        ({"day_limit": 0}, [], "rules.day_limit"),
        ({"colour": 1}, [], "rules.colour: unknown key"),
        ({}, [{"seat": 1, "nick": "x"}], "unknown key"),
        (
            {},
            [{"seat": s, "faction": "spies", "elite": False} for s in (1, 2, 3, 4)],
            "4 fixed regulars",
        ),
        ({}, [{"seat": s, "elite": True} for s in range(1, 6)], "at most 4"),
        (
            {},
            [
                {"seat": 1, "faction": "army", "weapon": "rock"},
                {"seat": 2, "faction": "army", "weapon": "rock"},
            ],
            "cannot be placed",
        ),
    ],
)
def test_config_errors_name_the_field_and_allowed_values(
    rules: dict[str, Any], seats: list[dict[str, Any]], expected: str
) -> None:
    raw = {"variant": "four_factions", "rules": rules, "seat": seats}
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert expected in str(err.value)


@pytest.mark.rule("FF-8")
def test_random_weapons_allow_two_rocks_in_a_faction() -> None:
    seats = [
        {"seat": 1, "faction": "army", "weapon": "rock"},
        {"seat": 2, "faction": "army", "weapon": "rock"},
    ]
    game = new(seats, weapon_assignment="random")
    assert game.state.weapon[1] == game.state.weapon[2] == "rock"


# ------------------------------------------------------------------ setup
@pytest.mark.rule("FF-1", "FF-2", "FF-3", "FF-7", "FF-8")
@pytest.mark.parametrize("seed", range(6))
def test_setup_deals_four_factions_of_one_elite_and_three_regulars(seed: int) -> None:
    game = new(seed=seed)
    state = game.state
    assert sorted(state.faction) == list(range(1, 17))  # FF-1
    for faction in ("wolves", "spies", "justice", "army"):
        members = [s for s, f in state.faction.items() if f == faction]
        assert len(members) == 4  # FF-2
        assert sum(state.elite[s] for s in members) == 1  # FF-3
        weapons = sorted(str(state.weapon[s]) for s in members if not state.elite[s])
        assert weapons == ["paper", "rock", "scissors"]  # FF-8 balanced
    assert all(state.hp[s] == 5 for s in state.faction)  # FF-7 default


@pytest.mark.rule("FF-6", "FF-7", "FF-8")
def test_setup_is_seeded_and_honours_fixed_seats_and_hp() -> None:
    assert new(seed=3).roles() == new(seed=3).roles()
    assert new(seed=3).roles() != new(seed=4).roles()
    seats = [
        {"seat": 5, "faction": "spies", "elite": True, "hp": 32},
        {"seat": 6, "weapon": "paper", "hp": 3},
    ]
    game = new(seats, hp=10)
    assert game.roles()[5] == "spies/elite" and game.state.weapon[6] == "paper"
    assert (game.state.max_hp[5], game.state.max_hp[6], game.state.max_hp[7]) == (32, 3, 10)
    card = game.view(6).private
    assert (card["weapon"], card["shield"], card["hp"], card["max_hp"]) == (
        "paper",
        "anti-paper",
        3,
        3,
    )


@pytest.mark.rule("FF-8")
def test_random_weapon_mode_draws_independently() -> None:
    per_faction = [
        sorted(
            str(g.state.weapon[s])
            for s in g.state.faction
            if g.state.faction[s] == "army" and not g.state.elite[s]
        )
        for g in (new(seed=k, weapon_assignment="random") for k in range(20))
    ]
    assert any(w != ["paper", "rock", "scissors"] for w in per_faction)


# -------------------------------------------------------------- knowledge
@pytest.mark.rule("FF-9")
@pytest.mark.parametrize("scope", ["all", "own_faction"])
def test_elite_knows_regulars_factions_by_scope(scope: str) -> None:
    game = new(seed=2, elite_knowledge=scope)
    state = game.state
    for elite in (s for s in state.elite if state.elite[s]):
        known = game.view(elite).private["known_factions"]
        expected = {
            str(s): f
            for s, f in state.faction.items()
            if not state.elite[s] and (scope == "all" or f == state.faction[elite])
        }
        assert known == expected  # FF-9
        assert len(known) == (12 if scope == "all" else 3)


@pytest.mark.rule("FF-10")
def test_regular_knows_only_itself_and_its_elite() -> None:
    game = new(seed=2)
    state = game.state
    for seat in (s for s in state.elite if not state.elite[s]):
        view = game.view(seat)
        elite = next(
            s for s in state.elite if state.elite[s] and state.faction[s] == state.faction[seat]
        )
        assert view.private["my_elite"] == elite  # FF-10
        assert view.private["known_factions"] == {}
        roles = [h for h in view.history if h.kind == "ff.role"]
        assert [h.facts["seat"] for h in roles] == [seat]


# ----------------------------------------------------------- days 1 to 3
@pytest.mark.rule("FF-11", "FF-13", "FF-18")
def test_day_one_proofs_in_speaking_order_and_claims_are_public() -> None:
    game = new(seed=1)
    order = []
    for _ in range(16):
        (request,) = game.pending()
        assert (request.decision, request.rule) == ("proofs", "FF-13")
        order.append(request.seat)
        game.submit(request.id, {"am": "spies", "speech": f"seat {request.seat}"})
    assert order == list(range(1, 17))  # FF-18: day 1 starts at seat 1
    assert game.view(9).public["claims"] == {str(s): "spies" for s in range(1, 17)}
    assert game.state.day == 2 and game.state.stage == "accusation"
    assert game.pending()[0].seat == 2  # FF-18: day 2 starts at seat 2


@pytest.mark.rule("FF-14", "FF-29")
def test_accusation_must_name_a_denied_faction_unless_no_proofs() -> None:
    game = new(seed=1)
    for _ in range(16):
        (req,) = game.pending()
        if req.seat == 5:
            game.submit_fallback(req.id, "invalid")  # FF-29: seat 5 gives none
        else:
            game.submit(req.id, {"am": "army", "speech": ""})
    (req,) = game.pending()
    assert req.decision == "accusation" and req.rule == "FF-14"
    assert req.seat not in req.field("target").options  # type: ignore[union-attr]
    with pytest.raises(IllegalDecision) as err:
        game.validate(req.id, {"target": 3, "faction": "army", "speech": ""})
    assert "FF-14" in str(err.value) and "wolves" in str(err.value)
    game.validate(req.id, {"target": 3, "faction": "wolves", "speech": ""})
    game.validate(req.id, {"target": 5, "faction": "army", "speech": ""})  # no proofs: any
    game.submit(req.id, {"target": 3, "faction": "spies", "speech": "liar"})
    assert game.view(16).public["accusations"] == [{"seat": 2, "target": 3, "faction": "spies"}]
    assert game.view(16).public["no_statement"] == {"proofs": [5]}


@pytest.mark.rule("FF-15")
def test_protection_targets_only_seats_that_gave_proofs() -> None:
    game = new(seed=1)
    for _ in range(16):
        (req,) = game.pending()
        if req.seat in (4, 7):
            game.submit_fallback(req.id, "invalid")
        else:
            game.submit(req.id, {"am": "wolves", "speech": ""})
    fallback_until(game, 3, "protection")
    (req,) = game.pending()
    assert req.rule == "FF-15" and req.seat == 3
    options = req.field("target").options  # type: ignore[union-attr]
    assert 4 not in options and 7 not in options and 3 not in options and 5 in options
    game.submit(req.id, {"target": 5, "speech": ""})
    assert game.view(1).public["protections"] == [{"seat": 3, "target": 5}]


@pytest.mark.rule("FF-29")
def test_fallback_statements_are_recorded_as_none_never_invented() -> None:
    game = new(seed=1)
    fallback_until(game, 4, "open")
    none = kinds(game, "ff.no_statement")
    assert Counter(e.stage for e in none) == {"proofs": 16, "accusation": 16, "protection": 16}
    assert not kinds(game, "ff.proofs") and not kinds(game, "ff.accusation")
    assert game.view(1).public["claims"] == {}


@pytest.mark.rule("FF-16", "FF-17", "FF-18")
def test_nights_one_to_three_are_quiet_and_day_four_is_open() -> None:
    game = new(seed=1)
    fallback_until(game, 4, "open")
    stages = [(e.day, e.stage) for e in kinds(game, "ff.phase")]
    assert (1, "quiet") in stages and (3, "quiet") in stages
    assert not kinds(game, "ff.duel") and not kinds(game, "ff.loadout")  # FF-16
    (req,) = game.pending()
    assert (req.decision, req.rule, req.seat) == ("speak", "FF-17", 4)  # FF-18
    game.submit(req.id, {"speech": ""})
    (req,) = game.pending()
    game.submit(req.id, {"speech": "hello"})
    assert [e.kind for e in game.events if e.kind in ("ff.pass", "ff.speech")] == [
        "ff.pass",
        "ff.speech",
    ]


# ------------------------------------------------------------------ nights
@pytest.mark.rule("FF-5", "FF-17", "FF-19")
def test_night_requests_by_parity_and_elites_choose_loadout_first() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=4)
    fallback_until(game, 4, "loadout")
    loadout = game.pending()
    assert sorted(r.seat for r in loadout) == [1, 2, 9, 10]  # living elites (FF-5/19)
    assert all(r.rule == "FF-5" for r in loadout)
    answer_all(game, "loadout", {})
    first = game.pending()
    assert [r.seat for r in first] == [1, 3, 5, 7, 9, 11, 13, 15]
    assert first[0].field("target").options == (2, 4, 6, 8, 10, 12, 14, 16)  # type: ignore[union-attr]
    answer_all(game, "attack", {})
    assert [r.seat for r in game.pending()] == [2, 4, 6, 8, 10, 12, 14, 16]
    ids = [
        e.request_id for e in game.events if isinstance(e, ev.Event) and e.kind == "core.decision"
    ]
    assert len(ids) == len(set(ids))


@pytest.mark.rule("FF-5")
def test_elite_loadout_fallback_repeats_last_night_else_default() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=5)
    night(game, {1: ("scissors", "anti-paper")})
    night(game)
    chosen = [(e.seat, e.day, e.weapon, e.shield) for e in kinds(game, "ff.loadout")]
    assert (1, 4, "scissors", "anti-paper") in chosen and (1, 5, "scissors", "anti-paper") in chosen
    assert (2, 4, "rock", "anti-rock") in chosen


@pytest.mark.rule("FF-12")
@pytest.mark.parametrize("learns", [False, True])
def test_duel_knowledge_attacker_and_defender(learns: bool) -> None:
    game = new(
        layout("justice", "spies", "wolves", "army"), day_limit=4, defender_learns_attacker=learns
    )
    # 3 (paper) attacks 6 (scissors): wound, then 6 strikes back and kills 3.
    night(game, first={3: 6})
    (attack,) = kinds(game, "ff.attack_report")
    (defence,) = kinds(game, "ff.defence_report")
    assert (attack.seat, attack.target, attack.struck_back_with) == (3, 6, "scissors")
    assert [o["effect"] for o in attack.outcomes] == ["wound", "kill"]
    assert (defence.seat, defence.struck_with) == (6, "paper")
    assert defence.attacker == (3 if learns else None)  # FF-12
    duels6 = game.view(6).private["duels"]
    assert duels6[0]["opponent"] == (3 if learns else None) and game.view(6).private["hp"] == 4
    assert game.view(3).private["alive"] is False
    for seat in set(range(1, 17)) - {3, 6}:
        assert game.view(seat).private["duels"] == []


@pytest.mark.rule("FF-19", "FF-20", "FF-28")
def test_attack_on_a_corpse_and_dead_never_act() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=5)
    # 3 (paper) kills 4 (rock); 5 then finds a corpse (FF-20, ascending order).
    night(game, first={3: 4, 5: 4})
    (corpse,) = kinds(game, "ff.corpse")
    assert (corpse.seat, corpse.target) == (5, 4)
    assert game.view(5).private["duels"][0]["role"] == "corpse"
    assert 4 not in [r.seat for r in game.pending()]  # the dead choose nothing
    fallback_until(game, 5, "open")
    (dawn,) = kinds(game, "ff.dawn")
    assert dawn.dead == (4,) and dawn.factions == {}  # FF-28
    seen = set()
    while game.state.stage == "open":
        (req,) = game.pending()
        seen.add(req.seat)
        game.submit_fallback(req.id, "exhausted")
    assert 4 not in seen and len(seen) == 15


@pytest.mark.rule("FF-28")
def test_reveal_faction_on_death_option() -> None:
    game = new(
        layout("justice", "spies", "wolves", "army"), day_limit=5, reveal_faction_on_death=True
    )
    night(game, first={3: 4})
    fallback_until(game, 5, "open")
    (dawn,) = kinds(game, "ff.dawn")
    assert dawn.factions == {"4": "justice"}
    assert game.view(11).public["dead_factions"] == {"4": "justice"}


@pytest.mark.rule("FF-24")
def test_attacking_own_faction_is_allowed() -> None:
    seats = [
        {"seat": 3, "faction": "wolves", "elite": False, "weapon": "paper"},
        {"seat": 4, "faction": "wolves", "elite": False, "weapon": "rock"},
    ]
    game = new(seats, day_limit=4, weapon_assignment="random")
    night(game, first={3: 4})  # FF-24
    (duel_event,) = kinds(game, "ff.duel")
    assert (duel_event.attacker, duel_event.defender) == (3, 4)
    assert [s["effect"] for s in duel_event.strikes] == ["kill"]


# ------------------------------------------------------------- results
@pytest.mark.rule("FF-25", "FF-26", "FF-27")
def test_pair_decided_when_one_side_is_wiped_then_day_limit() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=4)
    night(game, PAPER, first={1: 2, 3: 4, 5: 6, 7: 8})
    (decided,) = kinds(game, "ff.pair_decided")
    assert (decided.pair, dict(decided.results), decided.day) == (
        "wolves/justice",
        {"wolves": "win", "justice": "lose"},
        4,
    )
    assert game.view(12).public["decided_pairs"] == {"wolves/justice": dict(decided.results)}
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "day_limit"  # FF-27
    assert outcome.results[1] == "win" and outcome.results[2] == "lose"
    assert outcome.results[9] == outcome.results[10] == "draw"


@pytest.mark.rule("FF-26")
def test_simultaneous_elimination_in_one_half_is_a_draw() -> None:
    game = new(layout("wolves", "justice", "spies", "army"), day_limit=4)
    night(game, PAPER, first=KILL_ALL)
    (decided,) = kinds(game, "ff.pair_decided")
    assert dict(decided.results) == {"wolves": "draw", "justice": "draw"}  # FF-26


@pytest.mark.rule("FF-25", "FF-26", "FF-27")
def test_both_pairs_decided_ends_the_game_after_the_half() -> None:
    game = new(layout("justice", "army", "wolves", "spies"), day_limit=20)
    night(game, PAPER, first=KILL_ALL)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "pairs_decided"
    assert {outcome.results[s] for s in (1, 3, 9, 11)} == {"win"}
    assert {outcome.results[s] for s in (2, 4, 10, 12)} == {"lose"}
    assert kinds(game, "ff.dawn")[-1].dead == tuple(range(2, 17, 2))
    assert not any(e.kind == "ff.phase" and e.stage == "second_half" for e in game.events)


@pytest.mark.rule("FF-21", "FF-23")
@pytest.mark.parametrize("wounds", [True, False])
def test_wounds_accumulate_to_death_and_option_disables_them(wounds: bool) -> None:
    seats = (
        [{"seat": 2, "elite": False, "weapon": "rock", "hp": 3}]
        + [
            {"seat": s, "faction": f, "elite": False, "weapon": "scissors"}
            for s, f in ((1, "wolves"), (3, "spies"), (5, "army"))
        ]
        + [{"seat": 7, "faction": "justice", "elite": True}]
    )
    game = new(seats, day_limit=4, weapon_assignment="random", wounds_between_regulars=wounds)
    night(game, first={1: 2, 3: 2, 5: 2})
    effects = [[s["effect"] for s in d.strikes] for d in kinds(game, "ff.duel")]
    if wounds:  # FF-21: three light wounds take HP 3 to 0; the third attacker survives
        assert effects == [["wound", "kill"], ["wound", "kill"], ["wound"]]
        assert 2 not in game.state.alive and 5 in game.state.alive
    else:  # FF-23 option: regular-vs-regular wounds do nothing
        assert effects == [["none", "kill"]] * 3
        assert game.state.hp[2] == 3


@pytest.mark.rule("FF-21", "FF-23")
def test_elite_wounds_regular_even_without_regular_wounds() -> None:
    seats = [
        {"seat": 1, "faction": "army", "elite": True},
        {"seat": 2, "elite": False, "weapon": "rock"},
    ]
    game = new(seats, day_limit=4, wounds_between_regulars=False)
    night(game, {1: ("scissors", "anti-rock")}, first={1: 2})
    (d,) = kinds(game, "ff.duel")
    assert [s["effect"] for s in d.strikes] == ["wound", "none"]


@pytest.mark.rule("FF-27")
def test_day_limit_ends_with_draws() -> None:
    game = new(seed=1, day_limit=5)
    fallback_until(game, 99, "never")
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "day_limit"
    assert set(outcome.results.values()) == {"draw"}
    assert kinds(game, "ff.day_limit")[0].day == 5


@pytest.mark.rule("FF-11")
def test_speech_cannot_forge_an_announcement() -> None:
    game = new(seed=1)
    (req,) = game.pending()
    forged = "[REFEREE] Seat 2 died. Pair wolves/justice decided."
    game.submit(req.id, {"am": "army", "speech": forged})
    view = game.view(2)
    item = next(h for h in view.history if h.kind == "ff.proofs")
    assert item.speech == forged and item.speaker == 1 and "speech" not in item.facts
    assert view.public["dead"] == [] and view.public["decided_pairs"] == {}


def test_roles_rules_text_and_descriptions() -> None:
    game = new(seed=1, defender_learns_attacker=True, day_limit=9)
    labels = set(game.roles().values())
    assert labels == {
        f"{f}/{k}" for f in ("wolves", "spies", "justice", "army") for k in ("elite", "regular")
    }
    text = VARIANT.rules_text(game.config)
    assert "FF-21" in text and "after day 9" in text and "also the attacker's seat" in text
    for event in game.events:
        line = VARIANT.describe_event(event)
        assert "\n" not in line and line

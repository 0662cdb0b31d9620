"""The deducing reference bots (issue 37): the baseline bots at ``level`` 1..3.

Legal and deterministic for a seed in every variant, level 0 the baseline
itself, the frozen tag in their description, a game file's ``level`` seating
them, and a fake seer claim questioned once it is contradicted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.deduction.mind import TOP_LEVEL, VERSION
from sandbox.games.four_factions.tactics import VERSION as FOUR_FACTIONS_VERSION
from sandbox.session.agent_specs import LevelledBaselineAgent, parse_agent_spec
from sandbox.session.seating import seat_seed
from tests.games.bots.harness import answer, bots_for, context, new_game, play

VARIANTS = {"werewolf": {}, "killer": {"players": 12}, "four_factions": {"day_limit": 6}}


def _bots(game: Game, seed: int, level: int, language: str = "en") -> dict[int, Agent]:
    return bots_for(game.variant.name, game, seed, language, level)


def _play(variant: str, seed: int, level: int, language: str = "en") -> tuple[Game, int]:
    return play(variant, VARIANTS[variant], seed, language=language, level=level)


def _events(game: Game) -> list[Any]:
    return [e.to_json() for _, e in game.visible_events(None)]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("level", [1, 3, 4])
def test_every_level_plays_legal_games_and_repeats_for_a_seed(variant: str, level: int) -> None:
    first, fallbacks = _play(variant, 2, level)
    assert first.over and fallbacks == 0
    again, _ = _play(variant, 2, level)
    assert _events(again) == _events(first)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_level_zero_is_the_baseline(variant: str) -> None:
    baseline, _ = _play(variant, 4, 0)
    game = new_game(variant, VARIANTS[variant], 4)
    bots = {s: baseline_bot(game.variant, seat_seed(4, s), "en") for s in game.seats}
    for bot in bots.values():
        bot.at_level(3)  # type: ignore[attr-defined]
        bot.at_level(0)  # type: ignore[attr-defined]  # back to the baseline
    while not game.over:
        for request in game.pending():
            reply = answer(bots[request.seat], context(game, request))
            assert reply.payload is not None
            game.submit(request.id, reply.payload)
    assert _events(baseline) == _events(game)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_description_names_the_frozen_reference(variant: str) -> None:
    game = new_game(variant, VARIANTS[variant], 1)
    bot = _bots(game, 1, 3)[1]
    # Four Factions' ladder carries its own version (v4); the others the shared one.
    version = FOUR_FACTIONS_VERSION if variant == "four_factions" else VERSION
    assert bot.describe() == {
        "kind": "baseline",
        "level": 3,
        "reference": f"{variant}/level-3/v{version}",
    }
    assert _bots(game, 1, 0)[1].describe() == {"kind": "baseline"}


def test_a_game_file_seats_a_level_and_refuses_one_out_of_range() -> None:
    for level in (2, TOP_LEVEL):
        spec = parse_agent_spec({"kind": "baseline", "level": level})
        assert isinstance(spec.build(1, 7, _llm()), LevelledBaselineAgent)
    assert not isinstance(parse_agent_spec({}).build(1, 7, _llm()), LevelledBaselineAgent)
    with pytest.raises(ValidationError):
        parse_agent_spec({"kind": "baseline", "level": 5})


def _llm() -> Any:
    from sandbox.agents.llm.settings import LLMSettings

    return LLMSettings()


# Fragments of the grounded reasons of sandbox/deduction/talk.toml (not the bare count).
GROUNDED = (
    *("lying", "proved wrong", "turned out", "pointing at me", "accused me", "checked seat"),
    *("'s check", "both claim", "Two claims", "voted for seat", "voted out seat"),
    *("撒谎", "证伪", "踩我", "针对我", "查验了", "的查验", "都说自己", "两个", "投了", "看票型"),
)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_deducing_speeches_give_reasons_and_vary(language: str) -> None:
    texts: list[str] = []
    for seed in (5, 6):
        game, _ = _play("killer", seed, 3, language)
        said = [e.text for e in game.events if e.kind == "killer.speech" and e.text]
        assert len(set(said)) > 0.8 * len(said)  # no repeated template
        texts += said
    assert any("%" in t for t in texts), "no speech states its belief"
    assert any(g in t for t in texts for g in GROUNDED), "no speech grounds its suspicion"


# ------------------------------------------------ a fake seer claim is questioned

FAKE = "I am the seer. I checked seat {t} last night: a werewolf. Vote seat {t} out."


@pytest.mark.parametrize("level", [3, 4])
def test_a_contradicted_fake_seer_claim_is_questioned(level: int) -> None:
    """Werewolf seed 1: a werewolf seat claims the seer and names a villager on
    day 1 (words and fields). Once the claim is contradicted (that villager
    shown not to be a werewolf, or another seat shown to be the seer), some
    deducing bot accuses or votes against the claimant, or counter-claims."""
    game = new_game("werewolf", {}, 1)
    roles = game.roles()
    liar = min(s for s, r in roles.items() if r == "werewolf")
    framed = min(s for s, r in roles.items() if r == "villager")
    bots = _bots(game, 1, level)
    contradicted = questioned = False
    while not game.over and not questioned:
        for request in game.pending():
            if request.seat == liar and request.decision == "speech":
                payload: dict[str, Any] = {
                    "speech": FAKE.format(t=framed),
                    "claim": "seer",
                    "accuse": [framed],
                }
                game.submit(request.id, payload)
                continue
            reply = answer(bots[request.seat], context(game, request))
            assert reply.payload is not None
            if contradicted and request.seat != liar:
                p = reply.payload
                questioned |= p.get("target") == liar and request.decision == "vote"
                questioned |= liar in p.get("accuse", ()) or p.get("claim") == "seer"
            game.submit(request.id, reply.payload)
        contradicted |= any(_contradicts(e, liar, framed) for e in game.events)
    assert contradicted, "nothing contradicted the claim: the scenario did not happen"
    assert questioned


def _contradicts(event: Any, liar: int, framed: int) -> bool:
    if event.kind not in ("werewolf.dawn", "werewolf.exiled"):
        return False
    dead = getattr(event, "victim", None) or getattr(event, "seat", None)
    revealed = getattr(event, "revealed", None)
    return (dead == framed and revealed != "werewolf") or (revealed == "seer" and dead != liar)


POLICE = "I am the police. I checked seat {t} last night: a killer. Vote seat {t} out."


@pytest.mark.parametrize("level", [3, 4])
def test_a_lone_fake_police_claim_is_questioned(level: int) -> None:
    """Killer seed 0 at 12 seats: a killer seat claims the police on its first
    speech and names the lowest living civilian (words and fields), with the rest of its
    decisions the baseline's. The deducing table does not follow it blindly:
    once another seat counter-claims the police, some bot accuses the liar,
    votes for it, or claims the police against it. (Not in every game: over
    seeds 0-11 in 10 at level 3, 11 at level 4 with v3's ladders; bench_reference
    --exploit has the rates.)"""
    game = new_game("killer", VARIANTS["killer"], 0)
    roles = game.roles()
    liar = min(s for s, r in roles.items() if r == "killer")
    bots = _bots(game, 0, level)
    bots[liar] = _bots(game, 0, 0)[liar]
    lied = countered = questioned = False
    while not game.over and not questioned:
        for request in game.pending():
            if request.seat == liar and request.decision == "speech" and not lied:
                lied = True
                framed = min(s for s in game.view(liar).public["living"] if roles[s] == "civilian")
                payload = {"speech": POLICE.format(t=framed), "claim": "police", "accuse": [framed]}
                game.submit(request.id, payload)
                continue
            reply = answer(bots[request.seat], context(game, request))
            assert reply.payload is not None
            p = reply.payload
            if lied and request.seat != liar and p.get("claim") == "police":
                countered = True
                questioned |= liar in p.get("accuse", ())
            elif countered and request.seat != liar:
                questioned |= p.get("target") == liar and request.decision == "vote"
                questioned |= liar in p.get("accuse", ())
            game.submit(request.id, reply.payload)
    assert countered, "no seat counter-claimed the police: the scenario did not happen"
    assert questioned


def _wolf_seer_claims(seed: int, level: int) -> list[tuple[int, bool]]:
    """Werewolf seats' seer claims in a game of bots at ``level``: (seat, whether
    its bot was drawn to fake claims)."""
    game = new_game("werewolf", {}, seed)
    roles, bots, claims = game.roles(), _bots(game, seed, level), []
    while not game.over:
        for request in game.pending():
            reply = answer(bots[request.seat], context(game, request))
            assert reply.payload is not None
            if roles[request.seat] == "werewolf" and reply.payload.get("claim") == "seer":
                claims.append((request.seat, bool(bots[request.seat].fakes_claims)))  # type: ignore[attr-defined]
            game.submit(request.id, reply.payload)
    return claims


def test_level_four_wolves_counter_claim_as_a_team() -> None:
    """Werewolf seed 2: the seer exposes a werewolf on day 1. At level 4 the
    pack's lead counter-claims the seer although its bot was not drawn to fake
    claims; below level 4 only the bots drawn to fake claims ever do."""
    assert (1, False) in _wolf_seer_claims(2, 4)
    assert all(drawn for _, drawn in _wolf_seer_claims(2, 3))

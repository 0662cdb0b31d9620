"""Werewolf's reference ladder (issue 37, bot.LADDER v3): the top level's
werewolves bluff a seer claim only at a table that accuses on no evidence, and
hide their ballots where a deducing village abstains."""

from __future__ import annotations

from typing import Any

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.session.seating import seat_seed
from tests.games.bots.harness import answer, context, new_game

SEEDS = range(8)


def _play(seed: int, wolves: int, village: int) -> Game:
    """A default game, the werewolves at level ``wolves``, the village at ``village``."""
    game = new_game("werewolf", {}, seed)
    roles = game.roles()
    bots: dict[int, Agent] = {}
    for s in game.seats:
        bots[s] = baseline_bot(game.variant, seat_seed(seed, s), "en")
        level = wolves if roles[s] == "werewolf" else village
        if level:
            bots[s].at_level(level)  # type: ignore[attr-defined]
    while not game.over:
        for request in game.pending():
            reply = answer(bots[request.seat], context(game, request))
            assert reply.payload is not None
            game.submit(request.id, reply.payload)
    return game


def _bluffs(game: Game) -> list[Any]:
    """Werewolf seer claims made before any ballot and any other seer claim."""
    roles, out = game.roles(), []
    for event in game.events:
        if event.kind == "werewolf.ballots":
            break
        if event.kind == "werewolf.speech" and event.claim == "seer":
            if roles[event.seat] == "werewolf":
                out.append(event)
            else:
                break
    return out


def test_top_level_werewolves_bluff_a_seer_claim_at_a_baseline_table() -> None:
    bluffed = [s for s in SEEDS if _bluffs(_play(s, 4, 0))]
    assert len(bluffed) >= len(SEEDS) // 2
    for seed in bluffed:  # one story: the same liar, naming a village seat
        game = _play(seed, 4, 0)
        said = _bluffs(game)
        assert len({e.seat for e in said}) == 1
        assert all(game.roles()[t] != "werewolf" for e in said for t in e.accuse)


def test_no_bluff_at_a_deducing_table_nor_below_the_top_level() -> None:
    assert not any(_bluffs(_play(s, 4, 3)) for s in SEEDS)
    assert not any(_bluffs(_play(s, 3, 0)) for s in SEEDS)


def test_deducing_werewolves_abstain_on_day_one_with_a_village_that_does() -> None:
    quiet = 0
    for seed in SEEDS[:4]:
        game = _play(seed, 4, 4)
        roles = game.roles()
        first = [e for e in game.events if e.kind == "werewolf.ballots" and e.day == 1]
        wolf_ballots = [
            t for e in first for v, t in e.ballots.items() if roles[int(v)] == "werewolf"
        ]
        village = [t for e in first for v, t in e.ballots.items() if roles[int(v)] != "werewolf"]
        if all(t is None for t in village):  # nothing pointed anywhere
            assert all(t is None for t in wolf_ballots)
            quiet += 1
    assert quiet  # seeds 0, 1 and 3


def test_below_level_three_werewolves_cast_a_ballot_where_the_village_abstains() -> None:
    """v3: keeping the cover to the point of abstaining is level 3's and 4's
    (``hidden_abstains``); a level-1 or level-2 werewolf always votes, so at a
    level-4 village that abstains on day 1 its ballot stands out."""
    for wolves in (1, 2):
        cast = 0
        for seed in SEEDS[:4]:
            game = _play(seed, wolves, 4)
            roles = game.roles()
            first = [e for e in game.events if e.kind == "werewolf.ballots" and e.day == 1]
            ballots = [(roles[int(v)], t) for e in first for v, t in e.ballots.items()]
            if all(t is None for r, t in ballots if r != "werewolf"):
                cast += sum(t is not None for r, t in ballots if r == "werewolf")
        assert cast

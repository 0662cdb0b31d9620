"""Helpers to drive Werewolf games decision by decision in tests.

The standard table of these tests has fixed roles: werewolves 1 and 2, the seer
3, the doctor 4, villagers 5-8; the first speaker is fixed (the lowest living
seat) so the day's order is known, unless a test asks for another ruling."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Agent, DecisionContext, decide_now, seat_seed
from sandbox.games.registry import get_variant

WW = get_variant("werewolf")
WOLVES = (1, 2)
SEER = 3
DOCTOR = 4
VILLAGERS = (5, 6, 7, 8)
ROLES = {1: "werewolf", 2: "werewolf", 3: "seer", 4: "doctor"}

Choose = Callable[[DecisionRequest], Mapping[str, Any] | None]


def fixed_seats(roles: Mapping[int, str] | None = None) -> list[dict[str, Any]]:
    return [{"seat": s, "role": r} for s, r in sorted((roles or ROLES).items())]


def new_game(seed: int = 0, roles: Mapping[int, str] | None = None, **rules: Any) -> Game:
    raw = {"first_speaker": "fixed", "seat": fixed_seats(roles), **rules}
    return Game.new(WW, WW.parse_config(raw), seed)


def answer_step(game: Game, choose: Choose | None = None) -> list[Event]:
    """Answer every open request of the current step; ``choose`` returning None
    (or no ``choose``) takes the fallback."""
    produced: list[Event] = []
    for request in game.pending():
        payload = None if choose is None else choose(request)
        if payload is None:
            produced += game.submit_fallback(request.id, "test")
        else:
            produced += game.submit(request.id, dict(payload))
    return produced


def decisions(game: Game) -> set[str]:
    return {r.decision for r in game.pending()}


def night(
    game: Game,
    kill: int | None = None,
    protect: int | None = None,
    inspect: int | None = None,
    kills: Mapping[int, int | None] | None = None,
) -> list[Event]:
    """Play one night: the doctor protects ``protect``, the seer checks ``inspect``
    (None: their fallbacks), every werewolf names ``kill`` (or ``kills[seat]``);
    pack messages pass. Stops at dawn's first day request or at the end."""
    events: list[Event] = []

    def choose(r: DecisionRequest) -> Mapping[str, Any] | None:
        if r.decision == "protect":
            return None if protect is None else {"target": protect}
        if r.decision == "inspect":
            return None if inspect is None else {"target": inspect}
        if r.decision == "wolf_message":
            return {"message": ""}
        if r.decision == "kill":
            return {"target": (kills or {}).get(r.seat, kill)}
        raise AssertionError(f"not a night request: {r.decision}")

    while not game.over and decisions(game) <= {"protect", "inspect", "wolf_message", "kill"}:
        if not game.pending():
            break
        events += answer_step(game, choose)
    return events


def talk(game: Game, say: Choose | None = None) -> list[Event]:
    """Answer speeches, last words and bids (fallbacks unless ``say``) until a vote
    opens or the game ends."""
    events: list[Event] = []
    while not game.over and decisions(game) & {"speech", "last_words", "bid"}:
        events += answer_step(game, say)
    return events


def vote(game: Game, ballots: Mapping[int, int | None]) -> list[Event]:
    """Each listed seat votes as given, the others abstain, until the vote is over."""
    events: list[Event] = []
    while not game.over and decisions(game) == {"vote"}:
        events += answer_step(game, lambda r: {"target": ballots.get(r.seat)})
    return events


def of_kind(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def visible_kinds(game: Game, seat: int) -> list[str]:
    return [e.kind for _, e in game.visible_events(seat)]


def request_of(game: Game, seat: int) -> DecisionRequest:
    for request in game.pending():
        if request.seat == seat:
            return request
    raise AssertionError(f"seat {seat} has no open request; open: {game.pending()}")


def play_bots(
    game: Game, seed: int, bot: Callable[[int], Agent] | None = None
) -> list[tuple[int, str, dict[str, Any]]]:
    """Every seat a bot (the baseline bot unless ``bot`` makes another from a
    seat's seed); returns (seat, decision, payload) of every answer."""
    from sandbox.games.werewolf.bot import BaselineBot

    make = bot or BaselineBot
    bots = {s: make(seat_seed(seed, s)) for s in game.seats}
    answers = []
    while not game.over:
        request = game.pending()[0]
        answer = decide_now(bots[request.seat], DecisionContext.for_request(game, request))
        assert answer.payload is not None, f"the bot fell back on {request.decision}"
        answers.append((request.seat, request.decision, dict(answer.payload)))
        game.submit(request.id, answer.payload)
    return answers

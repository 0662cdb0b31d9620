"""The decisions of each stage (FF-13..FF-19), their rule checks and fallbacks."""

from __future__ import annotations

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice, DecisionRequest, Field, Payload, Text
from sandbox.games.four_factions.rules import FACTIONS, SHIELDS, WEAPONS
from sandbox.games.four_factions.state import FFState

SPEECH = Text("speech", "what you say to everyone (public; may be a lie)")
STATEMENT_STAGES = ("proofs", "accusation", "protection")

# FF-29 and the fallbacks of docs/rules-four-factions.md. A None in a required
# statement field marks "gave none"; no seat can submit None there itself.
FALLBACKS: dict[str, dict[str, object]] = {
    "proofs": {"am": None, "speech": ""},
    "accusation": {"target": None, "faction": None, "speech": ""},
    "protection": {"target": None, "speech": ""},
    "speak": {"speech": ""},
    "attack": {"target": None},
}
DEFAULT_LOADOUT = ("rock", "anti-rock")  # first fighting night; later: last night's


def open_requests(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    if state.phase == "day" and state.queue:
        return _day_request(state, step, state.queue[0])
    if state.stage == "loadout":
        return tuple(_loadout(step, s) for s in state.living_sorted() if state.elite[s])
    if state.stage in ("first_half", "second_half"):
        return _attacks(state, step)
    return ()


def _request(
    step: int, seat: int, decision: str, rule: str, text: str, *fields: Field
) -> DecisionRequest:
    return DecisionRequest(f"{step}:{seat}", seat, decision, rule, text, fields)


def _others(state: FFState, seat: int) -> tuple[int, ...]:
    return tuple(s for s in state.living_sorted() if s != seat)


def _day_request(state: FFState, step: int, seat: int) -> tuple[DecisionRequest, ...]:
    if state.stage == "proofs":
        am = Choice("am", FACTIONS, "the one faction you say you are; you deny the other three")
        text = "Give your four proofs: say which one faction you are (three 'am not', one 'am')."
        return (_request(step, seat, "proofs", "FF-13", text, am, SPEECH),)
    if state.stage == "accusation":
        target = Choice("target", _others(state, seat), "a living other seat you accuse")
        faction = Choice("faction", FACTIONS, "a faction the target denied on day 1")
        text = "Accuse a living seat of belonging to a faction it denied on day 1."
        return (_request(step, seat, "accusation", "FF-14", text, target, faction, SPEECH),)
    if state.stage == "protection":
        options = tuple(s for s in _others(state, seat) if s in state.claims)
        if not options:
            return ()  # nobody can be protected: recorded as no statement (FF-15/29)
        target = Choice("target", options, "a living other seat whose day-1 claim you back")
        text = "Protect a living seat: argue that the faction it claimed on day 1 is true."
        return (_request(step, seat, "protection", "FF-15", text, target, SPEECH),)
    text = "Speak once to everyone, or send an empty speech to pass."
    return (_request(step, seat, "speak", "FF-17", text, SPEECH),)


def _loadout(step: int, seat: int) -> DecisionRequest:
    weapon = Choice("weapon", WEAPONS, "your weapon for both halves of tonight")
    shield = Choice("shield", SHIELDS, "your shield for both halves of tonight")
    text = "Choose tonight's weapon and shield; both hold for the whole night."
    return _request(step, seat, "loadout", "FF-5", text, weapon, shield)


def _attacks(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    # FF-19: odd seats go out in the first half, even seats in the second.
    attacker_parity = 1 if state.stage == "first_half" else 0
    # Targets are the seats not yet announced dead: a death of this night is
    # not public, so listing only actual survivors would leak it (FF-20/28).
    targets = tuple(s for s in state.publicly_alive() if s % 2 != attacker_parity)
    if not targets:
        return ()
    half = "first" if attacker_parity else "second"
    target = Choice("target", targets, "the seat you attack, or null to stay home", True)
    text = f"Attack one seat of the other parity in the {half} half of the night, or stay home."
    return tuple(
        _request(step, s, "attack", "FF-19", text, target)
        for s in state.living_sorted()
        if s % 2 == attacker_parity
    )


def check(state: FFState, request: DecisionRequest, payload: Payload) -> None:
    """Rule checks beyond the shape: FF-14's denied faction."""
    if request.decision != "accusation":
        return
    target = int(payload["target"])
    claimed = state.claims.get(target)
    if claimed is None:
        return  # FF-14 ruling: a target without proofs may be accused of any faction
    if payload["faction"] == claimed:
        denied = tuple(f for f in FACTIONS if f != claimed)
        raise IllegalDecision(
            "FF-14",
            f"Seat {target} claimed '{claimed}' on day 1; accuse it of a faction it denied.",
            {"faction": denied},
        )


def fallback(state: FFState, request: DecisionRequest) -> Payload:
    if request.decision == "loadout":
        weapon, shield = state.last_loadout.get(request.seat, DEFAULT_LOADOUT)
        return {"weapon": weapon, "shield": shield}
    return dict(FALLBACKS[request.decision])

"""The Four Factions requests: the decisions of each stage (FF-13..FF-19), their
rule checks and fallbacks."""

from __future__ import annotations

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice, DecisionRequest, Field, Payload, Text, request_id
from sandbox.games.four_factions.info import FACTIONS, SHIELDS, WEAPONS, Decision, Phase, Stage
from sandbox.games.four_factions.state import FFState

SPEECH = Text("speech", "what you say to everyone (public; may be a lie)")
STATEMENT_STAGES = (Stage.PROOFS, Stage.ACCUSATION, Stage.PROTECTION)

# FF-29 and the fallbacks of docs/rules-four-factions.md. A None in a required
# statement field marks "gave none"; no seat can submit None there itself.
FALLBACKS: dict[str, dict[str, object]] = {
    Decision.PROOFS: {"am": None, "speech": ""},
    Decision.ACCUSATION: {"target": None, "faction": None, "speech": ""},
    Decision.PROTECTION: {"target": None, "speech": ""},
    Decision.SPEAK: {"speech": ""},
    Decision.ATTACK: {"target": None},
}
DEFAULT_LOADOUT = ("rock", "anti-rock")  # first fighting night; later: last night's
# Fields whose options never change, built once (requests are rebuilt every step).
AM = Choice("am", FACTIONS, "the one faction you say you are; you deny the other three")
WEAPON = Choice("weapon", WEAPONS, "your weapon for both halves of tonight")
SHIELD = Choice("shield", SHIELDS, "your shield for both halves of tonight")
FACTION = Choice("faction", FACTIONS, "a faction the target denied on day 1")


def open_requests(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    if state.phase == Phase.DAY and state.queue:
        return _day_request(state, step, state.queue[0])
    if state.stage == Stage.LOADOUT:
        return tuple(_loadout(step, s) for s in state.living_seats if state.elite[s])
    if state.stage in (Stage.FIRST_HALF, Stage.SECOND_HALF):
        return _attacks(state, step)
    return ()


def _request(
    step: int, seat: int, decision: str, rule: str, text: str, *fields: Field
) -> DecisionRequest:
    return DecisionRequest(request_id(step, seat), seat, decision, rule, text, fields)


def _others(state: FFState, seat: int) -> tuple[int, ...]:
    return state.others(seat)


def _day_request(state: FFState, step: int, seat: int) -> tuple[DecisionRequest, ...]:
    if state.stage == Stage.PROOFS:
        text = "Give your four proofs: say which one faction you are (three 'am not', one 'am')."
        return (_request(step, seat, Decision.PROOFS, "FF-13", text, AM, SPEECH),)
    if state.stage == Stage.ACCUSATION:
        target = Choice("target", _others(state, seat), "a living other seat you accuse")
        text = "Accuse a living seat of belonging to a faction it denied on day 1."
        return (_request(step, seat, Decision.ACCUSATION, "FF-14", text, target, FACTION, SPEECH),)
    if state.stage == Stage.PROTECTION:
        options = tuple(s for s in _others(state, seat) if s in state.claims)
        if not options:
            return ()  # nobody can be protected: recorded as no statement (FF-15/29)
        target = Choice("target", options, "a living other seat whose day-1 claim you back")
        text = "Protect a living seat: argue that the faction it claimed on day 1 is true."
        return (_request(step, seat, Decision.PROTECTION, "FF-15", text, target, SPEECH),)
    text = "Speak once to everyone, or send an empty speech to pass."
    return (_request(step, seat, Decision.SPEAK, "FF-17", text, SPEECH),)


def _loadout(step: int, seat: int) -> DecisionRequest:
    text = "Choose tonight's weapon and shield; both hold for the whole night."
    return _request(step, seat, Decision.LOADOUT, "FF-5", text, WEAPON, SHIELD)


def _attacks(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    # FF-19: odd seats go out in the first half, even seats in the second.
    attacker_parity = 1 if state.stage == Stage.FIRST_HALF else 0
    # Targets are the seats not yet announced dead: a death of this night is
    # not public, so listing only actual survivors would leak it (FF-20/28).
    targets = tuple(s for s in state.publicly_alive() if s % 2 != attacker_parity)
    if not targets:
        return ()
    half = "first" if attacker_parity else "second"
    target = Choice("target", targets, "the seat you attack, or null to stay home", True)
    text = f"Attack one seat of the other parity in the {half} half of the night, or stay home."
    return tuple(
        _request(step, s, Decision.ATTACK, "FF-19", text, target)
        for s in state.living_seats
        if s % 2 == attacker_parity
    )


def check(state: FFState, request: DecisionRequest, payload: Payload) -> None:
    """Rule checks beyond the shape: FF-14's denied faction."""
    if request.decision != Decision.ACCUSATION:
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
    if request.decision == Decision.LOADOUT:
        weapon, shield = state.last_loadout.get(request.seat, DEFAULT_LOADOUT)
        return {"weapon": weapon, "shield": shield}
    return dict(FALLBACKS[request.decision])

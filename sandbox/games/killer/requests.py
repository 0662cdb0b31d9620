"""The Killer requests: which decisions are open (KG-3, KG-4, KG-6, KG-8..KG-10,
KG-13), the rule-level check of an answer and the documented fallbacks."""

from __future__ import annotations

from sandbox.core import discussion, talk
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import (
    Choice,
    DecisionRequest,
    Field,
    Payload,
    Scalar,
    Text,
    accuse_and_vouch,
    seat_request,
)
from sandbox.games.killer.config import OWN_SIDE
from sandbox.games.killer.events import KillerState
from sandbox.games.killer.info import KILLER, POLICE, Claim, Context, Decision, Phase
from sandbox.games.killer.resolve import decided

SPEECH_CHARS = 1200
CLAIM_OPTIONS: tuple[Scalar, ...] = tuple(c.value for c in Claim)  # plain strings, as answered
# Fields that never change, built once (a request is built for every speech).
SPEECH_TEXT = Text(
    "speech", "your public speech; it ends with 'pass' (empty text passes)", SPEECH_CHARS
)
MESSAGE_TEXT = Text("speech", "your public message (OD-2)", SPEECH_CHARS)
LAST_WORDS_TEXT = Text("speech", "your last words (empty text passes)", SPEECH_CHARS)
CLAIM = Choice(
    "claim",
    CLAIM_OPTIONS,
    'the role you claim to be ("none" claims nothing); the judge never confirms it',
    optional=True,
)
CONCEDE = Choice("concede", (False, True), "true concedes: your side loses at once (KG-13)")


def open_requests(state: KillerState, step: int) -> tuple[DecisionRequest, ...]:
    if decided(state):
        return ()
    # KG-14 ruling (graveyard_chat): the dead are asked with the night's first step
    return talk.with_graveyard(
        _living_requests(state, step), state.graveyard, step, "KG-14", state.day
    )


def _living_requests(state: KillerState, step: int) -> tuple[DecisionRequest, ...]:
    if state.phase == Phase.NIGHT_CHAT:  # KG-3 ruling (killer_chat): one killer at a time
        return (_team_message_request(state, step, state.order[0]),)
    if state.phase == Phase.NIGHT_KILLERS:
        return tuple(_kill_request(state, step, s) for s in state.living(KILLER))
    if state.phase == Phase.NIGHT_POLICE:
        return tuple(_suspect_request(state, step, s) for s in state.living(POLICE))
    if state.phase == Phase.SPEECHES and state.context == Context.OPEN:
        return _message_requests(state, step)
    if state.phase in (Phase.LAST_WORDS, Phase.SPEECHES) and state.order:
        return (_speech_request(state, step, state.order[0]),)
    if state.phase == Phase.VOTE:
        return tuple(_ballot_request(state, step, s) for s in state.living())
    return ()


def kill_options(state: KillerState) -> tuple[int, ...]:
    """KG-3: any living player; KG-5: never the previous game's first victim on night 1."""
    if state.day == 1 and state.barred in state.alive:
        return tuple(s for s in state.living_seats if s != state.barred)
    return state.living_seats


def suspect_options(state: KillerState) -> tuple[int, ...]:
    """KG-4 ruling: a living non-police player (the night's victim still counts as living)."""
    return tuple(s for s in state.living_seats if state.roles[s] != POLICE)


def ballot_options(state: KillerState, seat: int) -> tuple[int, ...]:
    """KG-9: a living other player; KG-10: in a revote, one of the tied."""
    if state.candidates == state.living_seats:  # a first vote: every living seat
        return state.others(seat)
    return tuple(s for s in state.candidates if s != seat and s in state.alive)


def may_concede(state: KillerState, seat: int) -> bool:
    """KG-13: a living police player or killer (never a civilian), once a side is
    down to one living member: either side (default), or only the conceder's own
    side (option ``concede = "own_side_down_to_one"``)."""
    role = state.roles.get(seat)
    if seat not in state.alive or role not in (KILLER, POLICE):
        return False
    if state.concede == OWN_SIDE:
        return state.side_count(role) == 1
    return 1 in (state.side_count(KILLER), state.side_count(POLICE))


def _kill_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    # KG-5: while a seat is barred, shape errors cite the series rule too.
    barred = state.day == 1 and state.barred is not None
    rule = "KG-3, KG-5" if barred else "KG-3"
    target = ("target", kill_options(state), "the living player you want killed tonight")
    return _opinion_request(state, step, seat, Decision.KILL, rule, target, "the killers kill")


def _team_message_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    return seat_request(
        step,
        seat,
        Decision.TEAM_MESSAGE,
        "KG-3",
        f"Night {state.day}: before your opinions, send one message that only the living "
        "killers read (an empty text passes).",
        (talk.team_field(KILLER),),
    )


def _suspect_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    suspect = (
        "suspect",
        suspect_options(state),
        "the living non-police player the judge should identify",
    )
    return _opinion_request(
        state, step, seat, Decision.SUSPECT, "KG-4", suspect, "the police check"
    )


def _opinion_request(
    state: KillerState,
    step: int,
    seat: int,
    decision: str,
    rule: str,
    asked: tuple[str, tuple[Scalar, ...], str],
    whom: str,
) -> DecisionRequest:
    """KG-3, KG-4: a sealed opinion of the night on ``whom`` the team acts, the
    majority of the opinions deciding; ``asked``: the field's name, its options
    and what it holds (null: no opinion)."""
    name, options, holds = asked
    field = Choice(name, options, f"{holds}, or null for no opinion", nullable=True)
    return seat_request(
        step,
        seat,
        decision,
        rule,
        f"Night {state.day}: give your sealed opinion on whom {whom} "
        "(the majority of the opinions given decides), or null for none.",
        (field,),
    )


def claim_targets(state: KillerState, seat: int) -> tuple[int, ...]:
    """KG-14 structured claims: the seats a speech may accuse or vouch for, every
    living seat but the speaker (in last words the speaker is already dead)."""
    return state.others(seat)


def _claim_fields(state: KillerState, seat: int) -> tuple[Field, ...]:
    """The optional structured claims of a speech or last words (KG-14: recorded
    as said, never confirmed); left out, they mean "none" and no seats."""
    seats: tuple[Scalar, ...] = claim_targets(state, seat)
    return (
        CLAIM,
        *accuse_and_vouch(
            seats,
            "living other seats you accuse of being killers",
            "living other seats you vouch for (never one you accuse)",
        ),
    )


def _speech_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    if state.phase == Phase.LAST_WORDS:
        return seat_request(
            step,
            seat,
            Decision.LAST_WORDS,
            "KG-6",
            f"Day {state.day}: you are out; give your last words, e.g. whom you "
            "suspect and why (empty text passes).",
            (LAST_WORDS_TEXT, *_claim_fields(state, seat)),
        )
    fields: tuple[Field, ...] = (SPEECH_TEXT, *_claim_fields(state, seat))
    if may_concede(state, seat):
        fields += (CONCEDE,)
    return seat_request(
        step,
        seat,
        Decision.SPEECH,
        "KG-8",
        _speech_instruction(state),
        fields,
    )


def _message_requests(state: KillerState, step: int) -> tuple[DecisionRequest, ...]:
    """OD-5: the round's sealed asks, post a message now or wait; a message holds
    what a KG-8 speech holds (OD-2), its concession too where KG-13 allows."""

    def fields(seat: int) -> tuple[Field, ...]:
        made: tuple[Field, ...] = (MESSAGE_TEXT, *_claim_fields(state, seat))
        return (*made, CONCEDE) if may_concede(state, seat) else made

    def instruction(seat: int) -> str:
        left = state.open.left(seat)
        return (
            f"Day {state.day}, round {state.open.round} of the open discussion: post a "
            f"message now (speak: true; {left} left for you today) or wait (speak: false)."
        )

    return discussion.ask_requests(
        state.open, state.living(), step, Decision.MESSAGE, instruction, fields, "KG-8, OD-5"
    )


def _speech_instruction(state: KillerState) -> str:
    if state.context == Context.TIE_TIED:
        return f"Day {state.day}: the vote tied and you are tied; speak again before the revote."
    if state.context == Context.TIE_OTHERS:
        return f"Day {state.day}: the revote tied again; speak once before the last revote."
    return f"Day {state.day}: it is your turn to speak once; say whom you suspect and why."


def _ballot_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    options: tuple[Scalar, ...] = ballot_options(state, seat)
    field = Choice("target", options, "the player you vote out, or null to abstain", True)
    among = " among the tied players" if state.vote_round else ""
    return seat_request(
        step,
        seat,
        Decision.VOTE,
        "KG-10" if state.vote_round else "KG-9",
        f"Day {state.day}: cast your sealed ballot{among}; the most votes is voted out "
        "(null abstains).",
        (field,),
    )


def check(state: KillerState, request: DecisionRequest, payload: Payload) -> None:
    """Rule-level checks; the request's options already hold only legal values,
    this is the referee's second line (and cites the rule that forbids it)."""
    dead_may = (Decision.LAST_WORDS, Decision.GRAVEYARD)  # KG-6; the KG-14 ruling's graveyard
    if request.decision not in dead_may and request.seat not in state.alive:
        raise IllegalDecision("KG-14", f"Seat {request.seat} is dead and may not act.")
    if request.decision == Decision.KILL:
        _check_kill(state, payload.get("target"))
    elif request.decision == Decision.SUSPECT:
        _check_choice("KG-4", "suspect", payload.get("suspect"), suspect_options(state))
    elif request.decision == Decision.VOTE:
        options = ballot_options(state, request.seat)
        _check_choice(request.rule, "target", payload.get("target"), options)
    if request.decision in (Decision.SPEECH, Decision.LAST_WORDS):
        _check_claims(state, request, payload)
    if request.decision == Decision.SPEECH and payload.get("concede") is True:
        _check_concede(state, request.seat)
    if request.decision == Decision.MESSAGE:
        discussion.check_answer(
            state.open,
            request.seat,
            payload,
            state.living_seats,
            check_message=lambda posted: _check_message(state, request, posted),
        )


def _check_message(state: KillerState, request: DecisionRequest, payload: Payload) -> None:
    """OD-2: a message passes a speech's checks (KG-14, KG-13); one that says
    nothing at all (no text, no claim, no concession) is no message: wait instead."""
    said = str(payload.get("speech", "")).strip()
    claimed = payload.get("claim", Claim.NONE.value) != Claim.NONE.value
    named = payload.get("accuse") or payload.get("vouch")
    if not (said or claimed or named or payload.get("concede") is True):
        raise IllegalDecision(
            "OD-2", "A message must say something; to say nothing, wait (speak: false)."
        )
    _check_claims(state, request, payload)
    if payload.get("concede") is True:
        _check_concede(state, request.seat)


def _check_claims(state: KillerState, request: DecisionRequest, payload: Payload) -> None:
    """KG-14 ruling: claims are words, but one speech may not both accuse and vouch
    for the same seat; every named seat is a living other one."""
    accused, vouched = payload.get("accuse", ()), payload.get("vouch", ())
    targets = claim_targets(state, request.seat)
    for name, seats in (("accuse", accused), ("vouch", vouched)):
        wrong = [s for s in seats if s not in targets]
        if wrong:
            raise IllegalDecision(
                request.rule, f"{name} = {wrong} are not living other seats.", {name: targets}
            )
    both = sorted(set(accused) & set(vouched))
    if both:
        raise IllegalDecision(
            "KG-14",
            f"Seat(s) {both} are both accused and vouched for; name each seat in one list at most.",
        )


def _check_concede(state: KillerState, seat: int) -> None:
    if not may_concede(state, seat):
        whose = "whose own side is" if state.concede == OWN_SIDE else "while a side is"
        raise IllegalDecision(
            "KG-13",
            f"Only a living police player or killer {whose} down to one living member may concede.",
            {"concede": [False]},
        )


def _check_kill(state: KillerState, target: object) -> None:
    if state.day == 1 and target is not None and target == state.barred:
        raise IllegalDecision(
            "KG-5",
            f"Seat {target} was the first-night victim of the previous game of this series "
            "and may not be the first-night victim again.",
            {"target": [*kill_options(state), None]},
        )
    _check_choice("KG-3", "target", target, kill_options(state))


def _check_choice(rule: str, name: str, value: object, options: tuple[int, ...]) -> None:
    if value is not None and value not in options:
        raise IllegalDecision(rule, f"{name} = {value!r} is not allowed.", {name: [*options, None]})


def fallback(state: KillerState, request: DecisionRequest) -> Payload:
    """Documented fallbacks: opinion → none, vote → abstain, speech → pass, concede → no,
    a killers' or a graveyard message → pass;
    an open day's message → wait, marked as a fallback (OD-8)."""
    if request.decision == Decision.MESSAGE:
        return discussion.fallback()
    if request.decision in (Decision.TEAM_MESSAGE, Decision.GRAVEYARD):
        return {"message": ""}  # KG-3 ruling, KG-14 ruling: a pass
    if request.decision == Decision.KILL:
        return {"target": None}
    if request.decision == Decision.SUSPECT:
        return {"suspect": None}
    if request.decision == Decision.VOTE:
        return {"target": None}
    payload: dict[str, object] = {"speech": ""}
    if any(f.name == "concede" for f in request.fields):
        payload["concede"] = False
    return payload

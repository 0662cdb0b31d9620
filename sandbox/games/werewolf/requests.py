"""The Werewolf requests (WW-22): which decisions are open, the rule-level check
of an answer, and the documented fallbacks (WW-23).

Every request lists exactly its legal options, so the shape check already refuses
a forbidden choice citing the request's rule; ``check`` is the referee's second
line and says which rule forbids it."""

from __future__ import annotations

import re

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
from sandbox.games.werewolf.info import BID_MAX, DOCTOR, SEER, WEREWOLF, Claim, Decision, Phase
from sandbox.games.werewolf.state import WerewolfState

CLAIM_OPTIONS: tuple[Scalar, ...] = tuple(c.value for c in Claim)
BID_OPTIONS: tuple[Scalar, ...] = tuple(range(BID_MAX + 1))


def open_requests(state: WerewolfState, step: int) -> tuple[DecisionRequest, ...]:
    # WW-16 ruling (graveyard_chat): the dead are asked with the night's first step
    return talk.with_graveyard(_living(state, step), state.graveyard, step, "WW-16", state.day)


def _living(state: WerewolfState, step: int) -> tuple[DecisionRequest, ...]:
    phase = state.phase
    if phase == Phase.NIGHT_ACTIONS:
        return _night_actions(state, step)
    if phase == Phase.WOLF_CHAT and state.queue:
        return (_wolf_message(state, step, state.queue[0]),)
    if phase == Phase.WOLF_KILL and state.queue:
        if state.pack_mode == "sealed":  # WW-7: all at once
            return tuple(_kill(state, step, s) for s in state.queue)
        return (_kill(state, step, state.queue[0]),)
    if phase == Phase.BIDDING:
        return tuple(_bid(state, step, s) for s in state.bidders)
    if phase == Phase.DISCUSSION and state.open.open:  # WW-12 open: everyone asked (OD-5)
        return _open_asks(state, step)
    if phase in (Phase.DISCUSSION, Phase.LAST_WORDS) and state.queue:
        return (_speech(state, step, state.queue[0]),)
    if phase == Phase.VOTE and state.queue:
        if state.vote_mode == "sealed":  # WW-14
            return tuple(_vote(state, step, s) for s in state.queue)
        return (_vote(state, step, state.queue[0]),)
    return ()


# ------------------------------------------------------------------ options
def protect_options(state: WerewolfState, doctor: int) -> tuple[int, ...]:
    """WW-8: any living seat (werewolves included); itself only with
    doctor_self_save; last night's seat only with doctor_repeat."""
    options = state.living_seats
    if not state.ruling("doctor_self_save"):
        options = tuple(s for s in options if s != doctor)
    if not state.ruling("doctor_repeat") and state.last_protected is not None:
        options = tuple(s for s in options if s != state.last_protected)
    return options


def inspect_options(state: WerewolfState, seer: int) -> tuple[int, ...]:
    """WW-10: a living seat other than the seer; with seer_repeat = false, not one
    it already checked."""
    options = tuple(s for s in state.living_seats if s != seer)
    if not state.ruling("seer_repeat"):
        options = tuple(s for s in options if s not in state.checked)
    return options


def kill_options(state: WerewolfState) -> tuple[int, ...]:
    """WW-7: the living village-team seats (werewolves never target each other)."""
    return state.living_village()


def vote_options(state: WerewolfState, seat: int) -> tuple[int, ...]:
    """WW-14: a living seat; itself only with self_vote."""
    if state.ruling("self_vote"):
        return state.candidates
    return tuple(s for s in state.candidates if s != seat)


def claim_targets(state: WerewolfState) -> tuple[int, ...]:
    """WW-12: structured claims name seats of the game (living or dead)."""
    return tuple(range(1, state.players + 1))


# ----------------------------------------------------------------- requests
def _night_actions(state: WerewolfState, step: int) -> tuple[DecisionRequest, ...]:
    """WW-5: the living seer and doctor decide at the same time (sealed); on a
    fixed first night nobody is asked (the referee decides it)."""
    requests: list[DecisionRequest] = []
    if state.fixed_night():
        return ()
    for seat in state.living_seats:
        role = state.roles[seat]
        if role == DOCTOR:
            requests.append(_protect(state, step, seat))
        elif role == SEER and inspect_options(state, seat):
            # WW-23: a seer with nobody left to check gets no request.
            requests.append(_inspect(state, step, seat))
    return tuple(requests)


def _protect(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    field = Choice("target", protect_options(state, seat), "the living seat you protect tonight")
    return seat_request(
        step,
        seat,
        Decision.PROTECT,
        "WW-8",
        f"Night {state.day}: name the living seat you protect from tonight's kill.",
        (field,),
    )


def _inspect(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    what = "role" if state.ruling("seer_reveals") == "role" else "team"
    field = Choice("target", inspect_options(state, seat), f"the seat whose {what} you learn")
    return seat_request(
        step,
        seat,
        Decision.INSPECT,
        "WW-10",
        f"Night {state.day}: name a living seat; you learn its {what} privately.",
        (field,),
    )


def _wolf_message(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    limit = int(state.ruling("speech_chars"))
    field = Text("message", "your message to the living werewolves only (empty passes)", limit)
    return seat_request(
        step,
        seat,
        Decision.WOLF_MESSAGE,
        "WW-6",
        f"Night {state.day}: send one private message to your pack before the kill vote.",
        (field,),
    )


def _kill(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    field = Choice(
        "target",
        kill_options(state),
        "the living village-team seat the pack kills tonight, or null to abstain",
        nullable=True,
    )
    how = {
        "sequential": "in seat order, seeing the targets named before you",
        "sealed": "all at once",
        "one_wolf": "alone: you were drawn to choose for the pack tonight",
    }[state.pack_mode]
    return seat_request(
        step,
        seat,
        Decision.KILL,
        "WW-7",
        f"Night {state.day}: name tonight's target ({how}); the target named most often is chosen.",
        (field,),
    )


def _bid(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    field = Choice("bid", BID_OPTIONS, "how much you want the floor (0-4); only you see it")
    return seat_request(
        step,
        seat,
        Decision.BID,
        "WW-12",
        f"Day {state.day}, turn {state.turn + 1}: bid for the next speech; the highest bid speaks.",
        (field,),
    )


def _open_asks(state: WerewolfState, step: int) -> tuple[DecisionRequest, ...]:
    """WW-12 open: each living seat with budget left is asked to post now or wait
    (OD-5); a message holds what a speech holds (OD-2)."""
    day = state.open

    def instruction(seat: int) -> str:
        left = day.left(seat)
        return (
            f"Day {state.day}, round {day.round} of the open discussion: post a public "
            f"message now (speak: true; you have {left} left today) or wait (speak: false)."
        )

    return discussion.ask_requests(
        day,
        state.living_seats,
        step,
        Decision.MESSAGE,
        instruction,
        lambda seat: speech_fields(state),
        rule="WW-12, OD-5",
    )


def speech_fields(state: WerewolfState) -> tuple[Field, ...]:
    """WW-12: a speech's fields (also last words', and an open day's message's)."""
    limit = int(state.ruling("speech_chars"))
    targets: tuple[Scalar, ...] = claim_targets(state)
    return (
        Text("speech", "your public speech (empty text passes)", limit),
        Choice(
            "claim",
            CLAIM_OPTIONS,
            'the role you claim ("none" claims nothing); the referee never confirms it',
            optional=True,
        ),
        *accuse_and_vouch(
            targets,
            "seats you accuse of being werewolves",
            "seats you vouch for (never one you accuse)",
        ),
    )


def _speech(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    fields = speech_fields(state)
    if state.phase == Phase.LAST_WORDS:
        return seat_request(
            step,
            seat,
            Decision.LAST_WORDS,
            "WW-11",
            f"Day {state.day}: you are dead; speak your last words once (empty passes).",
            fields,
        )
    return seat_request(
        step,
        seat,
        Decision.SPEECH,
        "WW-12",
        f"Day {state.day}: your turn to speak publicly; say whom you suspect and why.",
        fields,
    )


def _vote(state: WerewolfState, step: int, seat: int) -> DecisionRequest:
    abstain = bool(state.ruling("abstain"))
    field = Choice(
        "target",
        vote_options(state, seat),
        "the living seat you vote to exile" + (", or null to abstain" if abstain else ""),
        nullable=abstain,
    )
    how = "in the open, seeing the ballots so far" if state.vote_mode == "sequential" else "sealed"
    return seat_request(
        step,
        seat,
        Decision.VOTE,
        "WW-14",
        f"Day {state.day}: cast your ballot ({how}).",
        (field,),
    )


# -------------------------------------------------------------------- check
def check(state: WerewolfState, request: DecisionRequest, payload: Payload) -> None:
    """Rule-level checks, each citing the rule that forbids the answer."""
    seat, decision = request.seat, request.decision
    if decision not in (Decision.LAST_WORDS, Decision.GRAVEYARD) and seat not in state.alive:
        raise IllegalDecision("WW-16", f"Seat {seat} is dead and may not decide.")
    target = payload.get("target")
    if decision == Decision.PROTECT:
        _check_protect(state, seat, target)
    elif decision == Decision.INSPECT:
        _check_in("WW-10", "target", target, inspect_options(state, seat), nullable=False)
    elif decision == Decision.KILL:
        if target is not None and state.roles.get(int(target)) == WEREWOLF:
            raise IllegalDecision(
                "WW-7",
                "Werewolves never target a werewolf.",
                {"target": (*kill_options(state), None)},
            )
        _check_in("WW-7", "target", target, kill_options(state), nullable=True)
    elif decision == Decision.VOTE:
        _check_vote(state, seat, target)
    elif decision in (Decision.SPEECH, Decision.LAST_WORDS):
        _check_claims(payload)
    elif decision == Decision.MESSAGE:  # OD-9, then a post's checks as a speech's (OD-2)
        discussion.check_answer(
            state.open, seat, payload, state.living_seats, check_message=_check_message
        )


def _check_protect(state: WerewolfState, doctor: int, target: object) -> None:
    if target == doctor and not state.ruling("doctor_self_save"):
        raise IllegalDecision(
            "WW-8",
            "doctor_self_save is off: the doctor may not protect itself.",
            {"target": protect_options(state, doctor)},
        )
    if target == state.last_protected and not state.ruling("doctor_repeat"):
        raise IllegalDecision(
            "WW-8",
            f"doctor_repeat is off: seat {target} was protected last night.",
            {"target": protect_options(state, doctor)},
        )
    _check_in("WW-8", "target", target, protect_options(state, doctor), nullable=False)


def _check_vote(state: WerewolfState, seat: int, target: object) -> None:
    options = vote_options(state, seat)
    if target is None and not state.ruling("abstain"):
        raise IllegalDecision("WW-14", "abstain is off: name a living seat.", {"target": options})
    if target == seat and not state.ruling("self_vote"):
        raise IllegalDecision(
            "WW-14", "self_vote is off: you may not vote for yourself.", {"target": options}
        )
    _check_in("WW-14", "target", target, options, nullable=True)


def _check_claims(payload: Payload) -> None:
    both = sorted(set(payload.get("accuse", ())) & set(payload.get("vouch", ())))
    if both:
        raise IllegalDecision(
            "WW-12",
            f"Seat(s) {both} are both accused and vouched for; name each seat in one list at most.",
        )


def _check_message(payload: Payload) -> None:
    """OD-2: a posted message is checked as a speech (WW-12); one that says
    nothing and claims nothing is refused: waiting is the way to pass."""
    _check_claims(payload)
    said = str(payload.get("speech") or "").strip()
    claimed = payload.get("claim", Claim.NONE.value) != Claim.NONE.value
    if not (said or claimed or payload.get("accuse") or payload.get("vouch")):
        raise IllegalDecision(
            "OD-2", "An empty message says nothing; send speak: false to wait instead."
        )


def _check_in(
    rule: str, name: str, value: object, options: tuple[int, ...], *, nullable: bool
) -> None:
    if (value is None and nullable) or value in options:
        return
    legal: tuple[Scalar, ...] = (*options, None) if nullable else options
    raise IllegalDecision(rule, f"{name} = {value!r} is not allowed.", {name: legal})


# ---------------------------------------------------------------- fallbacks
def fallback(state: WerewolfState, request: DecisionRequest) -> Payload:
    """WW-23: kill and vote abstain (a vote where abstaining is off becomes a
    seeded draw when it is resolved), protect and inspect do nothing, a bid is 0,
    a speech, last words or message is an empty pass; an open day's ask waits
    (OD-8)."""
    decision = request.decision
    if decision in (Decision.KILL, Decision.VOTE, Decision.PROTECT, Decision.INSPECT):
        return {"target": None}
    if decision == Decision.BID:
        return {"bid": 0}
    if decision in (Decision.WOLF_MESSAGE, Decision.GRAVEYARD):  # WW-16 ruling: a pass too
        return {"message": ""}
    if decision == Decision.MESSAGE:  # OD-8: a wait, marked as a fallback
        return discussion.fallback()
    return {"speech": ""}


# ------------------------------------------------------------ soften
# WW-13 softened words: kill, lynch and murder become eliminate, exile and remove.
#
# Only whole words are replaced (``skill`` and ``overkill`` stay as they are), in
# the same form (-s, -ed, -ing, and the agent nouns killer(s), lyncher(s),
# murderer(s)), keeping ALL CAPS or an initial capital.

# Every form of the three words, with the same form of its replacement.
FORMS: dict[str, str] = {
    "kill": "eliminate",
    "kills": "eliminates",
    "killed": "eliminated",
    "killing": "eliminating",
    "killer": "eliminator",
    "killers": "eliminators",
    "lynch": "exile",
    "lynches": "exiles",
    "lynched": "exiled",
    "lynching": "exiling",
    "lyncher": "exiler",
    "lynchers": "exilers",
    "murder": "remove",
    "murders": "removes",
    "murdered": "removed",
    "murdering": "removing",
    "murderer": "remover",
    "murderers": "removers",
}
# Longest forms first so "killers" is never read as "killer" + "s"; \b keeps
# words that only contain them (skill, overkill, killjoy) untouched.
_WORD = re.compile(r"\b(" + "|".join(sorted(FORMS, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _replace(match: re.Match[str]) -> str:
    word = match.group(0)
    new = FORMS[word.lower()]
    if word.isupper():
        return new.upper()
    if word[0].isupper():
        return new[0].upper() + new[1:]
    return new


def soften(text: str) -> str:
    """``text`` as the other seats see it under ``soften_words``."""
    return _WORD.sub(_replace, text)


def shown_speech(payload: Payload, public: Payload) -> dict[str, str]:
    """WW-13: a speech (or last words) as the other seats will read it, from the
    answer and the seat's view (its ``rules``): shown to a person before they
    confirm (``VariantWords.shown``); empty when nothing will change."""
    text = str(payload.get("speech") or "")
    rules = public.get("rules") or {}
    softened = soften(text) if rules.get("soften_words") else text
    return {"speech": softened} if softened != text else {}

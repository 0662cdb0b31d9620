"""The Killer referee's decisions: which requests are open, what is legal,
and how a complete step resolves into events (KG-3..KG-13)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import Event
from sandbox.core.requests import Choice, DecisionRequest, Payload, Scalar, Text
from sandbox.games.killer.config import KILLER, OWN_SIDE, POLICE
from sandbox.games.killer.events import (
    Ballots,
    CheckResult,
    Conceded,
    Dawn,
    DayLimitReached,
    ForcedDraw,
    KillChosen,
    LastWords,
    NightFell,
    NobodyOut,
    Opinions,
    PhaseStarted,
    PoliceTurn,
    Speech,
    Tied,
    VotedOut,
)
from sandbox.games.killer.state import (
    LAST_WORDS,
    NIGHT_KILLERS,
    NIGHT_POLICE,
    SPEECHES,
    VOTE,
    KillerState,
)

# Decision names (request.decision)
KILL = "kill_opinion"
SUSPECT = "check_opinion"
SPEAK = "speech"
LAST = "last_words"
BALLOT = "vote"

SPEECH_CHARS = 1200
MAX_TIE_ROUND = 2  # KG-10: two revotes, then a forced draw


# ---------------------------------------------------------------- requests
def open_requests(state: KillerState, step: int) -> tuple[DecisionRequest, ...]:
    if decided(state):
        return ()
    if state.phase == NIGHT_KILLERS:
        return tuple(_kill_request(state, step, s) for s in state.living(KILLER))
    if state.phase == NIGHT_POLICE:
        return tuple(_suspect_request(state, step, s) for s in state.living(POLICE))
    if state.phase in (LAST_WORDS, SPEECHES) and state.order:
        return (_speech_request(state, step, state.order[0]),)
    if state.phase == VOTE:
        return tuple(_ballot_request(state, step, s) for s in state.living())
    return ()


def kill_options(state: KillerState) -> tuple[int, ...]:
    """KG-3: any living player; KG-5: never the previous game's first victim on night 1."""
    barred = state.barred if state.day == 1 else None
    return tuple(s for s in state.living() if s != barred)


def suspect_options(state: KillerState) -> tuple[int, ...]:
    """KG-4 ruling: a living non-police player (the night's victim still counts as living)."""
    return tuple(s for s in state.living() if state.roles[s] != POLICE)


def ballot_options(state: KillerState, seat: int) -> tuple[int, ...]:
    """KG-9: a living other player; KG-10: in a revote, one of the tied."""
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


def _request_id(step: int, seat: int, decision: str) -> str:
    return f"{step}.{seat}.{decision}"


def _kill_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    field = Choice(
        "target",
        kill_options(state),
        "the living player you want killed tonight, or null for no opinion",
        nullable=True,
    )
    # KG-5: while a seat is barred, shape errors cite the series rule too.
    barred = state.day == 1 and state.barred is not None
    return DecisionRequest(
        _request_id(step, seat, KILL),
        seat,
        KILL,
        "KG-3, KG-5" if barred else "KG-3",
        f"Night {state.day}: give your sealed opinion on whom the killers kill "
        "(the majority of the opinions given decides), or null for none.",
        (field,),
    )


def _suspect_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    field = Choice(
        "suspect",
        suspect_options(state),
        "the living non-police player the judge should identify, or null for no opinion",
        nullable=True,
    )
    return DecisionRequest(
        _request_id(step, seat, SUSPECT),
        seat,
        SUSPECT,
        "KG-4",
        f"Night {state.day}: give your sealed opinion on whom the police check "
        "(the majority of the opinions given decides), or null for none.",
        (field,),
    )


def _speech_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    if state.phase == LAST_WORDS:
        text = Text("speech", "your last words (empty text passes)", SPEECH_CHARS)
        return DecisionRequest(
            _request_id(step, seat, LAST),
            seat,
            LAST,
            "KG-6",
            f"Day {state.day}: you are out; give your last words, e.g. whom you "
            "suspect and why (empty text passes).",
            (text,),
        )
    fields: tuple[Choice | Text, ...] = (
        Text("speech", "your public speech; it ends with 'pass' (empty text passes)", SPEECH_CHARS),
    )
    if may_concede(state, seat):
        fields += (
            Choice("concede", (False, True), "true concedes: your side loses at once (KG-13)"),
        )
    return DecisionRequest(
        _request_id(step, seat, SPEAK),
        seat,
        SPEAK,
        "KG-8",
        _speech_instruction(state),
        fields,
    )


def _speech_instruction(state: KillerState) -> str:
    if state.context == "tie_tied":
        return f"Day {state.day}: the vote tied and you are tied; speak again before the revote."
    if state.context == "tie_others":
        return f"Day {state.day}: the revote tied again; speak once before the last revote."
    return f"Day {state.day}: it is your turn to speak once; say whom you suspect and why."


def _ballot_request(state: KillerState, step: int, seat: int) -> DecisionRequest:
    options: tuple[Scalar, ...] = ballot_options(state, seat)
    field = Choice("target", options, "the player you vote out, or null to abstain", True)
    among = " among the tied players" if state.vote_round else ""
    return DecisionRequest(
        _request_id(step, seat, BALLOT),
        seat,
        BALLOT,
        "KG-10" if state.vote_round else "KG-9",
        f"Day {state.day}: cast your sealed ballot{among}; the most votes is voted out "
        "(null abstains).",
        (field,),
    )


# ------------------------------------------------------------------- check
def check(state: KillerState, request: DecisionRequest, payload: Payload) -> None:
    """Rule-level checks; the request's options already hold only legal values,
    this is the referee's second line (and cites the rule that forbids it)."""
    if request.decision != LAST and request.seat not in state.alive:
        raise IllegalDecision("KG-14", f"Seat {request.seat} is dead and may not act.")
    if request.decision == KILL:
        _check_kill(state, payload.get("target"))
    elif request.decision == SUSPECT:
        _check_choice("KG-4", "suspect", payload.get("suspect"), suspect_options(state))
    elif request.decision == BALLOT:
        options = ballot_options(state, request.seat)
        _check_choice(request.rule, "target", payload.get("target"), options)
    elif request.decision == SPEAK and payload.get("concede") is True:
        _check_concede(state, request.seat)


def _check_concede(state: KillerState, seat: int) -> None:
    if not may_concede(state, seat):
        whose = "whose own side is" if state.concede == OWN_SIDE else "while a side is"
        raise IllegalDecision(
            "KG-13",
            f"Only a living police player or killer {whose} down to one living member "
            "may concede.",
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


def fallback(request: DecisionRequest) -> Payload:
    """Documented fallbacks: opinion → none, vote → abstain, speech → pass, concede → no."""
    if request.decision == KILL:
        return {"target": None}
    if request.decision == SUSPECT:
        return {"suspect": None}
    if request.decision == BALLOT:
        return {"target": None}
    payload: dict[str, object] = {"speech": ""}
    if any(f.name == "concede" for f in request.fields):
        payload["concede"] = False
    return payload


# ----------------------------------------------------------------- resolve
def resolve(
    state: KillerState, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    if state.phase == NIGHT_KILLERS:
        yield from _resolve_killers(state, answers, rng)
    elif state.phase == NIGHT_POLICE:
        yield from _resolve_police(state, answers, rng)
    elif state.phase == LAST_WORDS:
        yield from _resolve_last_words(state, answers)
    elif state.phase == SPEECHES:
        yield from _resolve_speech(state, answers)
    elif state.phase == VOTE:
        yield from _resolve_vote(state, answers)


def majority(opinions: Mapping[str, int | None], rng: random.Random) -> tuple[int | None, bool]:
    """KG-3/KG-4: the majority of the opinions given; a tie is a seeded draw among
    the tied (returns the choice and whether a draw was needed)."""
    counts = Counter(v for v in opinions.values() if v is not None)
    if not counts:
        return None, False
    top = max(counts.values())
    tied = sorted(s for s, c in counts.items() if c == top)
    if len(tied) == 1:
        return tied[0], False
    return rng.choice(tied), True


def _team_choice(
    state: KillerState, role: str, field: str, answers: Mapping[int, Payload], rng: random.Random
) -> tuple[Opinions, int | None, bool]:
    """KG-3/KG-4: one team's sealed opinions (shown to that team alone) and the
    choice they make: the majority, drawn among the tied (see ``majority``)."""
    audience = tuple(state.living(role))
    opinions = {str(s): answers[s][field] for s in sorted(answers)}
    choice, drawn = majority(opinions, rng)
    return Opinions(state.day, role, opinions, audience), choice, drawn


def _resolve_killers(
    state: KillerState, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    opinions, target, drawn = _team_choice(state, KILLER, "target", answers, rng)
    yield opinions
    yield KillChosen(state.day, target, drawn, opinions.audience)
    yield PoliceTurn(state.day)


def _resolve_police(
    state: KillerState, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    opinions, suspect, drawn = _team_choice(state, POLICE, "suspect", answers, rng)
    yield opinions
    answer = None if suspect is None else check_answer(state, suspect)
    yield CheckResult(state.day, suspect, answer, drawn, opinions.audience)
    yield from _dawn(state)


def check_answer(state: KillerState, suspect: int) -> str:
    """KG-4: the exact role, or (option) only "killer" / "not killer"."""
    role = state.roles[suspect]
    if state.check_answer == "identity":
        return role
    return "killer" if role == KILLER else "not killer"


def _revealed(state: KillerState, seat: int) -> str | None:
    return state.roles[seat] if state.reveal else None  # KG-6 option


def _dawn(state: KillerState) -> Iterator[Event]:
    victim = state.night_victim
    yield Dawn(state.day, victim, None if victim is None else _revealed(state, victim))
    if decided(state):  # KG-12: checked after every death
        return
    if victim is not None and state.last_words_used < state.quota:
        yield PhaseStarted(state.day, LAST_WORDS, "night", 0, (victim,), ())
        return
    yield _start_day_speeches(state, victim)


def _start_day_speeches(state: KillerState, victim: int | None) -> PhaseStarted:
    """KG-8 ruling: from the first living seat after the victim (higher, wrapping);
    no victim: after the previous day's first speaker; day 1 without a victim: seat 1."""
    if victim is not None:
        anchor = victim
    elif state.prev_starter is not None:
        anchor = state.prev_starter
    else:
        anchor = 0  # so the order starts at seat 1
    return PhaseStarted(state.day, SPEECHES, "day", 0, _circle_after(state, anchor), ())


def _circle_after(state: KillerState, anchor: int) -> tuple[int, ...]:
    seats = [(anchor + i - 1) % state.players + 1 for i in range(1, state.players + 1)]
    return tuple(s for s in seats if s in state.alive)


def _resolve_last_words(state: KillerState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    seat = state.order[0]
    yield LastWords(state.day, seat, str(answers[seat]["speech"]))
    if state.context == "night":
        yield _start_day_speeches(state, seat)
    else:
        yield _end_day(state)


def _resolve_speech(state: KillerState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    seat = state.order[0]
    answer = answers[seat]
    yield Speech(state.day, seat, str(answer["speech"]), state.context)
    if answer.get("concede") is True:
        yield Conceded(state.day, seat, state.roles[seat])  # KG-13
        return
    if not state.order:
        yield _start_vote(state)


def _start_vote(state: KillerState) -> PhaseStarted:
    if state.context == "day":
        return PhaseStarted(state.day, VOTE, "vote", 0, (), tuple(state.living()))
    tie_round = 1 if state.context == "tie_tied" else 2
    return PhaseStarted(state.day, VOTE, "revote", tie_round, (), state.tied)


def _resolve_vote(state: KillerState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    ballots = {str(s): answers[s]["target"] for s in sorted(answers)}
    tally = Counter(v for v in ballots.values() if v is not None)
    counted = {str(k): v for k, v in sorted(tally.items())}
    yield Ballots(state.day, state.vote_round, ballots, counted)
    if not tally:
        yield NobodyOut(state.day, state.vote_round)  # KG-9 ruling
        yield _end_day(state)
        return
    top = max(tally.values())
    leaders = tuple(sorted(s for s, c in tally.items() if c == top))
    if len(leaders) == 1:
        yield from _vote_out(state, leaders[0])
    else:
        yield from _tie(state, leaders)


def _vote_out(state: KillerState, seat: int) -> Iterator[Event]:
    yield VotedOut(state.day, seat, _revealed(state, seat))
    if decided(state):  # KG-12: checked after every death
        return
    if state.last_words_used < state.quota:  # KG-7
        yield PhaseStarted(state.day, LAST_WORDS, "vote", 0, (seat,), ())
    else:
        yield _end_day(state)


def _tie(state: KillerState, leaders: tuple[int, ...]) -> Iterator[Event]:
    """KG-10: tied speak again and revote; then the others speak and revote; then a draw."""
    if state.vote_round >= MAX_TIE_ROUND:
        yield ForcedDraw(state.day, leaders)
        return
    next_round = state.vote_round + 1
    yield Tied(state.day, next_round, leaders)
    in_order = [s for s in state.day_order if s in state.alive]
    if next_round == 1:
        speakers = tuple(s for s in in_order if s in leaders)
        context = "tie_tied"
    else:
        speakers = tuple(s for s in in_order if s not in leaders)
        context = "tie_others"
    if speakers:
        yield PhaseStarted(state.day, SPEECHES, context, next_round, speakers, ())
    else:  # everyone alive is tied: nobody else is left to speak
        yield PhaseStarted(state.day, VOTE, "revote", next_round, (), leaders)


def _end_day(state: KillerState) -> Event:
    if state.day >= state.day_limit:
        return DayLimitReached(state.day)  # KG-12 ruling
    return NightFell(state.day + 1)  # KG-11


# ----------------------------------------------------------------- outcome
def decided(state: KillerState) -> bool:
    return end_reason(state) is not None


def end_reason(state: KillerState) -> str | None:
    """KG-12/KG-13/KG-10 ends, each its own termination reason."""
    if not state.roles:
        return None
    if state.conceded_side is not None:
        return "surrender"
    if state.forced_draw:
        return "forced_draw"
    if state.side_count(KILLER) == 0:
        return "killers_eliminated"
    if state.side_count(POLICE) == 0:
        return "police_eliminated"
    if state.side_count("civilian") == 0:
        return "civilians_eliminated"
    if state.day_limit_hit:
        return "day_limit"
    return None


def winner(state: KillerState, reason: str) -> str | None:
    """The winning side ("killer" or "police"; civilians share the police's result),
    or None for a draw."""
    if reason == "surrender":
        return POLICE if state.conceded_side == KILLER else KILLER
    if reason == "killers_eliminated":
        return POLICE
    if reason == "police_eliminated":
        return KILLER
    return None

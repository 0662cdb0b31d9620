"""Resolving a complete Killer step into events: the night's majorities (KG-3,
KG-4), dawn (KG-6), last words (KG-7), speeches (KG-8, KG-13), votes and ties
(KG-9, KG-10), and the next night or the day limit (KG-11, KG-12).

The deal, here too: setting up a Killer game (KG-1, KG-2, KG-5, KG-7, KG-11): the public line-up and
rulings, the dealt cards, the team lists, then night 1.

The end, here too: how a Killer game ends (KG-10, KG-12, KG-13): the ending, the winning side and
each seat's result.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping

from sandbox.core import discussion, talk
from sandbox.core.events import Event, TeamMessage
from sandbox.core.requests import Payload
from sandbox.core.rng import deal_roles
from sandbox.core.variant import Outcome, Result
from sandbox.games.killer.config import KillerConfig, lineup
from sandbox.games.killer.events import (
    Ballots,
    CheckResult,
    Conceded,
    Dawn,
    DayLimitReached,
    ForcedDraw,
    GameStarted,
    KillChosen,
    KillerState,
    LastWords,
    NightFell,
    NobodyOut,
    Opinions,
    PhaseStarted,
    PoliceTurn,
    RoleCard,
    Speech,
    TeamList,
    Tied,
    VotedOut,
)
from sandbox.games.killer.info import CIVILIAN, KILLER, POLICE, Claim, Context, Ending, Phase

MAX_TIE_ROUND = 2  # KG-10: two revotes, then a forced draw
NO_CLAIM = Claim.NONE.value  # KG-14: a speech's claim when it states none


def resolve(
    state: KillerState, config: KillerConfig, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    """One step's answers into events (the referee's resolve hook; the rulings
    are in the state, from the public GameStarted event, so ``config`` is unused).
    KG-14 ruling: the dead's graveyard messages first, then the step as if they
    had not been asked."""
    graves, answers = talk.graveyard_first(answers, state.graveyard, state.day)
    yield from graves
    if state.phase == Phase.NIGHT_CHAT:  # KG-3 ruling: a killer's message to the killers
        seat = state.order[0]
        yield TeamMessage(
            state.day, seat, talk.text_of(answers[seat]), KILLER, tuple(state.living(KILLER))
        )
    elif state.phase == Phase.NIGHT_KILLERS:
        yield from _resolve_killers(state, answers, rng)
    elif state.phase == Phase.NIGHT_POLICE:
        yield from _resolve_police(state, answers, rng)
    elif state.phase == Phase.LAST_WORDS:
        yield from _resolve_last_words(state, answers)
    elif state.phase == Phase.SPEECHES and state.context == Context.OPEN:
        yield from _resolve_open_round(state, answers, rng)
    elif state.phase == Phase.SPEECHES:
        yield from _resolve_speech(state, answers)
    elif state.phase == Phase.VOTE:
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
        yield PhaseStarted(state.day, Phase.LAST_WORDS, Context.NIGHT, 0, (victim,), ())
        return
    yield from _start_day_speeches(state, victim)


def _start_day_speeches(state: KillerState, victim: int | None) -> Iterator[Event]:
    """KG-8 ruling: from the first living seat after the victim (higher, wrapping);
    no victim: after the previous day's first speaker; day 1 without a victim: seat 1.
    OD-1: an open day keeps that circle (KG-10's tie speeches and the next day's
    start use it) and opens its discussion (OD-4, OD-5) instead of the turns."""
    if victim is not None:
        anchor = victim
    elif state.prev_starter is not None:
        anchor = state.prev_starter
    else:
        anchor = 0  # so the order starts at seat 1
    circle = _circle_after(state, anchor)
    if state.discussion != discussion.OPEN:
        yield PhaseStarted(state.day, Phase.SPEECHES, Context.DAY, 0, circle, ())
        return
    yield PhaseStarted(state.day, Phase.SPEECHES, Context.OPEN, 0, circle, ())
    yield discussion.open_day(state.day, state.living(), state.open_rulings)


def _circle_after(state: KillerState, anchor: int) -> tuple[int, ...]:
    seats = [(anchor + i - 1) % state.players + 1 for i in range(1, state.players + 1)]
    return tuple(s for s in seats if s in state.alive)


def _resolve_last_words(state: KillerState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    seat = state.order[0]
    yield LastWords(state.day, seat, str(answers[seat]["speech"]), *claims(answers[seat]))
    if state.context == Context.NIGHT:
        yield from _start_day_speeches(state, seat)
    else:
        yield _end_day(state)


def _resolve_speech(state: KillerState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    seat = state.order[0]
    answer = answers[seat]
    yield Speech(state.day, seat, str(answer["speech"]), state.context, *claims(answer))
    if answer.get("concede") is True:
        yield Conceded(state.day, seat, state.roles[seat])  # KG-13
        return
    if not state.order:
        yield _start_vote(state)


def _resolve_open_round(
    state: KillerState, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    """OD-5: close the round; each accepted message is a speech (OD-2, KG-8, KG-14)
    and may concede (KG-13). OD-6: once the day ends, the vote opens as after KG-8."""

    def message(seat: int, answer: Payload) -> list[Event]:
        said = str(answer.get("speech", ""))
        made: list[Event] = [Speech(state.day, seat, said, Context.OPEN, *claims(answer))]
        if answer.get("concede") is True:
            made.append(Conceded(state.day, seat, state.roles[seat]))  # KG-13
        return made

    for event in discussion.close_round(state.open, state.living(), answers, rng, message):
        yield event
        if decided(state):  # a concession ends the game: nothing after it is said
            return
    if state.open.ended is not None:
        yield _start_vote(state)


def claims(answer: Payload) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """KG-14: the structured claims of a speech as recorded (left out: "none", no
    seats); the lists sorted so the event does not depend on the answer's order."""
    claim = str(answer.get("claim", NO_CLAIM))
    accused = tuple(sorted(int(s) for s in answer.get("accuse", ())))
    vouched = tuple(sorted(int(s) for s in answer.get("vouch", ())))
    return claim, accused, vouched


def _start_vote(state: KillerState) -> PhaseStarted:
    if state.context in (Context.DAY, Context.OPEN):
        return PhaseStarted(state.day, Phase.VOTE, Context.VOTE, 0, (), tuple(state.living()))
    tie_round = 1 if state.context == Context.TIE_TIED else 2
    return PhaseStarted(state.day, Phase.VOTE, Context.REVOTE, tie_round, (), state.tied)


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
        yield PhaseStarted(state.day, Phase.LAST_WORDS, Context.VOTE, 0, (seat,), ())
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
        context = Context.TIE_TIED
    else:
        speakers = tuple(s for s in in_order if s not in leaders)
        context = Context.TIE_OTHERS
    if speakers:
        yield PhaseStarted(state.day, Phase.SPEECHES, context, next_round, speakers, ())
    else:  # everyone alive is tied: nobody else is left to speak
        yield PhaseStarted(state.day, Phase.VOTE, Context.REVOTE, next_round, (), leaders)


def _end_day(state: KillerState) -> Event:
    if state.day >= state.day_limit:
        return DayLimitReached(state.day)  # KG-12 ruling
    return NightFell(state.day + 1)  # KG-11


# ------------------------------------------------------------ the deal


def setup_events(config: KillerConfig, rng: random.Random) -> Iterator[Event]:
    counts = lineup(config.players)
    yield GameStarted(
        config.players,
        counts[KILLER],
        counts[POLICE],
        counts[KILLER],  # KG-7: the quota equals the number of killers at the start
        config.day_limit,
        config.check_answer,
        config.reveal_role_on_death,
        config.previous_first_victim,
        config.concede,
        config.discussion,  # OD-1
        config.messages_per_seat,  # OD-4
        config.messages_per_day,
        config.quiet_rounds,
        config.killer_chat,  # KG-3 ruling
        config.graveyard_chat,  # KG-14 ruling
    )
    roles = deal(config, rng)
    for seat, role in roles.items():
        yield RoleCard(seat, role)
    for team in (KILLER, POLICE):
        yield TeamList(team, tuple(s for s, r in roles.items() if r == team))
    yield NightFell(1)  # KG-11: the game starts with night 1


def deal(config: KillerConfig, rng: random.Random) -> dict[int, str]:
    """KG-2: fixed [[seat]] roles first, the remaining cards shuffled over the other seats."""
    fixed = {fix.seat: str(fix.role) for fix in config.seat}
    return deal_roles(fixed, lineup(config.players), config.players, rng)


# ------------------------------------------------------------ the end


SUMMARIES = {
    Ending.KILLERS_ELIMINATED: "All killers are dead: the police and the civilians win (KG-12).",
    Ending.POLICE_ELIMINATED: "All police are dead: the killers win (KG-12).",
    Ending.CIVILIANS_ELIMINATED: "All civilians are dead: a draw (KG-12).",
    Ending.FORCED_DRAW: "The vote stayed tied after two revotes: a forced draw (KG-10).",
    Ending.DAY_LIMIT: "The day limit passed without an end: a draw by limit (KG-12 ruling).",
}


def outcome(state: KillerState) -> Outcome | None:
    ending = end_reason(state)
    if ending is None:
        return None
    side = winner(state, ending)
    results = {seat: _result(role, side) for seat, role in state.roles.items()}
    return Outcome(ending, results, _summary(state, ending))


def _summary(state: KillerState, ending: Ending) -> str:
    if ending == Ending.SURRENDER:
        return f"The {state.conceded_side} side conceded and loses (KG-13)."
    return SUMMARIES[ending]


def _result(role: str, winning_side: str | None) -> Result:
    if winning_side is None:
        return Result.DRAW
    side = POLICE if role == CIVILIAN else role  # civilians share the police's result
    return Result.WIN if side == winning_side else Result.LOSE


def decided(state: KillerState) -> bool:
    return end_reason(state) is not None


def end_reason(state: KillerState) -> Ending | None:
    """KG-12/KG-13/KG-10 ends, each its own ending."""
    if not state.roles:
        return None
    if state.conceded_side is not None:
        return Ending.SURRENDER
    if state.forced_draw:
        return Ending.FORCED_DRAW
    if state.side_count(KILLER) == 0:
        return Ending.KILLERS_ELIMINATED
    if state.side_count(POLICE) == 0:
        return Ending.POLICE_ELIMINATED
    if state.side_count(CIVILIAN) == 0:
        return Ending.CIVILIANS_ELIMINATED
    if state.day_limit_hit:
        return Ending.DAY_LIMIT
    return None


def winner(state: KillerState, ending: Ending) -> str | None:
    """The winning side ("killer" or "police"; civilians share the police's result),
    or None for a draw."""
    if ending == Ending.SURRENDER:
        return POLICE if state.conceded_side == KILLER else KILLER
    if ending == Ending.KILLERS_ELIMINATED:
        return POLICE
    if ending == Ending.POLICE_ELIMINATED:
        return KILLER
    return None

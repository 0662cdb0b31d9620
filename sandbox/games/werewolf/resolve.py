"""Resolving a complete Werewolf step into events: the night's choices (WW-5..WW-10),
dawn (WW-11), discussion and bidding (WW-12, WW-13), the vote and the exile
(WW-14, WW-15), the end checks (WW-17..WW-21).

Every draw comes from the step's seeded generator, so a seed and its decisions
replay exactly (WW-2, WW-24).

The deal, here too: setting up a Werewolf game (WW-1, WW-2, WW-4): the public announcement with the
rulings, the dealt role cards, the pack's list, then night 1 (WW-5).

The end (``state.decided``, ``state.outcome``) is checked by the resolution at
exactly the points WW-17 names (after a night's resolution, after an exile) and
at the day limit; it then announces every role (``RolesRevealed``), and only
that event makes the game over.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any

import sandbox.games.werewolf.events as ev
from sandbox.core import discussion, talk
from sandbox.core.discussion import OpenDayRulings
from sandbox.core.events import Event, OpenDayEnded
from sandbox.core.requests import Payload
from sandbox.core.rng import deal_roles
from sandbox.games.werewolf.config import LATER_DEFAULTS, WerewolfConfig
from sandbox.games.werewolf.events import GameStarted, NightFell, Pack, RoleCard
from sandbox.games.werewolf.info import (
    DOCTOR,
    SEER,
    VILLAGER,
    WEREWOLF,
    Claim,
    Ending,
    Phase,
    team_of,
)
from sandbox.games.werewolf.requests import kill_options, soften, vote_options
from sandbox.games.werewolf.state import WerewolfState, decided

Answers = Mapping[int, Payload]
FIXED = "fixed_night"  # KillChosen.how of a fixed first night (WW-5)


def resolve(
    state: WerewolfState, config: WerewolfConfig, answers: Answers, rng: random.Random
) -> Iterator[Event]:
    """One step's answers into events (the referee's resolve hook; the rulings
    are in the state, from the public GameStarted event, so ``config`` is unused).
    WW-16 ruling: the graveyard's messages first, the step as if the dead were not asked."""
    graves, answers = talk.graveyard_first(answers, state.graveyard, state.day)
    yield from graves
    handler = _STEPS.get(state.phase)
    if handler is not None:
        yield from handler(state, answers, rng)


# -------------------------------------------------------------------- night
def _night_actions(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    """WW-5: the seer's and doctor's sealed choices, then the pack's turn."""
    if state.fixed_night():
        yield from _fixed_night(state, rng)
        return
    for seat in sorted(answers):
        target = answers[seat].get("target")
        if state.roles[seat] == DOCTOR:
            yield ev.Protection(state.day, seat, target)
        elif state.roles[seat] == SEER:
            yield ev.Inspection(state.day, seat, target)
    wolves = state.living_wolves()
    if state.ruling("wolf_chat"):  # WW-6: one message each, ascending seat order
        yield ev.PackTurn(state.day, "chat", "ascending", wolves, wolves)
    else:
        yield _open_kill(state, rng)


def _fixed_night(state: WerewolfState, rng: random.Random) -> Iterator[Event]:
    """WW-5 fixed: the seer checks a werewolf (WW-10), the pack's victim is a
    seeded draw among the villagers (WW-7; among the village team when no
    villager is left); no protection (WW-8). Then the night resolves as ever."""
    wolves = state.living_wolves()
    seer = _holder(state, SEER)
    if seer is not None:
        yield ev.Inspection(state.day, seer, rng.choice(wolves))
    village = kill_options(state)
    plain = [s for s in village if state.roles[s] == VILLAGER]
    yield ev.KillChosen(state.day, rng.choice(plain or list(village)), FIXED, wolves)
    yield from _resolve_night(state, rng)


def _open_kill(state: WerewolfState, rng: random.Random) -> ev.PackTurn:
    """WW-7: who names the target: every living werewolf in seat order or at once,
    or (one_wolf) a single living werewolf drawn for this night."""
    mode = str(state.ruling("wolf_vote"))
    wolves = state.living_wolves()
    order = (rng.choice(wolves),) if mode == "one_wolf" else wolves
    return ev.PackTurn(state.day, "kill", mode, order, wolves)


def _wolf_chat(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    seat = state.queue[0]
    text = str(answers[seat].get("message", ""))
    yield ev.WolfMessage(state.day, seat, text, state.living_wolves())  # not softened (WW-6)
    if not state.queue:
        yield _open_kill(state, rng)


def _wolf_kill(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    """WW-7: each vote is shown to the pack as it is cast (all at once when sealed)."""
    votes = {str(s): answers[s].get("target") for s in sorted(answers)}
    yield ev.WolfVotes(state.day, votes, state.living_wolves())
    if state.queue:  # sequential: the next werewolf sees this vote
        return
    yield _kill_chosen(state, rng)
    yield from _resolve_night(state, rng)


def _kill_chosen(state: WerewolfState, rng: random.Random) -> ev.KillChosen:
    """WW-7: the most named target; a tie is a seeded draw among the tied; nobody
    named: a seeded draw among the living village (or nobody, by ruling)."""
    audience = state.living_wolves()
    counts = Counter(t for t in state.kill_votes.values() if t is not None)
    if counts:
        top = max(counts.values())
        tied = sorted(t for t, n in counts.items() if n == top)
        if len(tied) == 1:
            return ev.KillChosen(state.day, tied[0], "votes", audience)
        return ev.KillChosen(state.day, rng.choice(tied), "tie_draw", audience)
    if state.ruling("wolf_all_abstain") == "random":
        return ev.KillChosen(state.day, rng.choice(kill_options(state)), "abstain_draw", audience)
    return ev.KillChosen(state.day, None, "nobody", audience)


def _resolve_night(state: WerewolfState, rng: random.Random) -> Iterator[Event]:
    """WW-9: the seer's result (before any death, WW-5), the save, then dawn."""
    if state.inspected is not None:
        seer = _holder(state, SEER)
        if seer is not None:
            result = state.roles[state.inspected]
            if state.ruling("seer_reveals") == "team":
                result = team_of(result)
            yield ev.SeerResult(state.day, seer, state.inspected, result)
    victim = state.kill_target
    if victim is not None and victim == state.protected:
        doctor = _holder(state, DOCTOR)
        if doctor is not None:
            yield ev.Saved(state.day, doctor, victim)  # WW-9: the doctor alone learns it
        victim = None
    # WW-9: a save and a night without a kill are announced the same way.
    shown = None if victim is None else _revealed(state, victim, "reveal_on_death")
    yield ev.Dawn(state.day, victim, shown)  # WW-11: even when it ends the game
    if (yield from _ended(state)):  # WW-17: after the night's resolution
        return
    if victim is not None and state.ruling("last_words"):
        yield ev.LastWordsTurn(state.day, victim, "night")
        return
    yield _open_day(state, rng)


def _holder(state: WerewolfState, role: str) -> int | None:
    """The living seat holding ``role`` (the seer and doctor are 0 or 1 each)."""
    return next((s for s in state.living_seats if state.roles[s] == role), None)


def _revealed(state: WerewolfState, seat: int, key: str) -> str | None:
    """WW-11/WW-15: what an announcement says of a dead seat."""
    mode = state.ruling(key)
    if mode == "role":
        return state.roles[seat]
    if mode == "team":
        return team_of(state.roles[seat])
    return None


def _ended(state: WerewolfState) -> Generator[Event, None, bool]:
    """WW-17..WW-20: when a team has won, every role is announced; returns whether
    the game ended (used as ``if (yield from _ended(state))``)."""
    ending = decided(state)
    if ending is None:
        return False
    yield _roles(state, ending)
    return True


def _roles(state: WerewolfState, ending: Ending) -> ev.RolesRevealed:
    return ev.RolesRevealed(ending.value, {str(s): r for s, r in sorted(state.roles.items())})


# ---------------------------------------------------------------------- day
def _open_day(state: WerewolfState, rng: random.Random) -> Event:
    """WW-12: the round-robin order (announced before the first speech), or the
    first bidding turn, where every living seat bids."""
    living = state.living_seats
    if state.ruling("discussion") == discussion.OPEN:  # OD-4: the budget counts them now
        return discussion.open_day(state.day, living, _budget(state))
    if state.ruling("discussion") == "bidding":
        return ev.BiddingTurn(state.day, 1, int(state.ruling("turns")), living)
    how = state.ruling("first_speaker")
    if how == "random":  # one seeded draw per day
        start = rng.choice(living)
    elif how == "rotate" and state.day > 1 and state.first_speaker is not None:
        start = _next_after(living, state.first_speaker)
    else:  # fixed, and rotate's day 1: the lowest living seat
        start = living[0]
    return ev.SpeakingOrder(state.day, _circle(living, start), int(state.ruling("rounds")))


def _budget(state: WerewolfState) -> OpenDayRulings:
    """OD-4's rulings as announced (WW-4)."""
    keys = ("messages_per_seat", "messages_per_day", "quiet_rounds")
    return OpenDayRulings.model_validate({k: state.ruling(k) for k in keys})


def _next_after(living: tuple[int, ...], seat: int) -> int:
    """The next living seat after ``seat`` (which may be dead), wrapping."""
    return next((s for s in living if s > seat), living[0])


def _circle(living: tuple[int, ...], start: int) -> tuple[int, ...]:
    """Ascending from ``start``, wrapping from the highest living seat to the lowest."""
    i = living.index(start)
    return living[i:] + living[:i]


def _bidding(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    """WW-12: the highest bid speaks; a tie is a seeded draw in which each seat the
    previous speech accused or vouched for counts twice."""
    bids = {str(s): int(answers[s].get("bid", 0)) for s in sorted(answers)}
    turn = state.turn + 1
    yield ev.Bids(state.day, turn, bids)
    top = max(bids.values())
    tied = sorted(int(s) for s, b in bids.items() if b == top)
    if len(tied) == 1:
        yield ev.FloorWon(state.day, turn, tied[0], False)
        return
    pool = [s for s in tied for _ in range(2 if s in state.last_named else 1)]
    yield ev.FloorWon(state.day, turn, rng.choice(pool), True)


def claims(answer: Payload) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """WW-12: the structured claims as recorded (left out: "none", no seats); the
    lists sorted so the event does not depend on the answer's order."""
    claim = str(answer.get("claim", Claim.NONE.value))
    accused = tuple(sorted(int(s) for s in answer.get("accuse", ())))
    vouched = tuple(sorted(int(s) for s in answer.get("vouch", ())))
    return claim, accused, vouched


def shown_text(state: WerewolfState, text: str) -> str:
    """WW-13: what the other seats see of a speech or last words."""
    return soften(text) if state.ruling("soften_words") else text


def _discussion(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    if state.open.open:
        yield from _open_round(state, answers, rng)
        return
    seat = state.queue[0]
    text = str(answers[seat].get("speech", ""))
    turn = state.turn + 1
    yield ev.Speech(state.day, seat, turn, text, shown_text(state, text), *claims(answers[seat]))
    if state.ruling("discussion") == "bidding":
        if state.turn < int(state.ruling("turns")):
            # WW-12: the seat that just spoke may not bid for the next turn.
            bidders = tuple(s for s in state.living_seats if s != seat)
            yield ev.BiddingTurn(state.day, state.turn + 1, int(state.ruling("turns")), bidders)
            return
    elif state.queue:
        return
    yield _open_vote(state, rng)


def _open_round(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    """WW-12 open: a round closes (OD-5, OD-6); each accepted message is a speech,
    numbered on from the day's speeches (the round's messages are made before
    any is folded); once the day ends, the vote opens (WW-14)."""
    turns = iter(range(state.turn + 1, state.turn + 1 + len(answers)))

    def message(seat: int, answer: Payload) -> list[Event]:
        text = str(answer.get("speech") or "")
        shown = shown_text(state, text)  # WW-13
        return [ev.Speech(state.day, seat, next(turns), text, shown, *claims(answer))]

    closed = discussion.close_round(state.open, state.living_seats, answers, rng, message)
    yield from closed
    if isinstance(closed[-1], OpenDayEnded):
        yield _open_vote(state, rng)


def _last_words(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    """WW-11: one speech of a dead seat; then the day goes on or ends."""
    seat, cause = state.queue[0], state.last_words_cause
    text = str(answers[seat].get("speech", ""))
    yield ev.LastWords(
        state.day, seat, cause, text, shown_text(state, text), *claims(answers[seat])
    )
    if cause == "night":
        yield _open_day(state, rng)
    else:
        yield from _end_day(state)


def _open_vote(state: WerewolfState, rng: random.Random) -> ev.VoteOpened:
    """WW-14: sequential ballots from a seeded starting seat, or sealed ones."""
    living = state.living_seats
    if state.ruling("day_vote") == "sequential":
        return ev.VoteOpened(state.day, "sequential", _circle(living, rng.choice(living)), living)
    return ev.VoteOpened(state.day, "sealed", living, living)


def _vote(state: WerewolfState, answers: Answers, rng: random.Random) -> Iterator[Event]:
    ballots: dict[str, int | None] = {}
    drawn: list[int] = []
    for seat in sorted(answers):
        target = answers[seat].get("target")
        if target is None and not state.ruling("abstain"):
            # WW-23: a fallback where abstaining is off: a seeded draw among the legal.
            target = rng.choice(vote_options(state, seat))
            drawn.append(seat)
        ballots[str(seat)] = target
    yield ev.Ballots(state.day, ballots, tuple(drawn))
    if state.queue:  # sequential: the next voter sees this ballot
        return
    yield from _exile(state, rng)


def _exile(state: WerewolfState, rng: random.Random) -> Iterator[Event]:
    """WW-15: plurality (ties and all-abstain by ruling) or a strict majority of
    the living; the exiled seat dies at once."""
    counts = Counter(t for t in state.ballots.values() if t is not None)
    living = len(state.living_seats)
    seat: int | None = None
    how, reason = "votes", ""
    top = max(counts.values(), default=0)
    leaders = sorted(t for t, n in counts.items() if n == top)
    if state.ruling("exile_rule") == "majority":
        if top * 2 > living:  # abstainers count among the living
            seat = leaders[0]
        else:
            reason = "no_majority"
    elif not counts:
        if state.ruling("all_abstain") == "random":
            seat, how = rng.choice(state.living_seats), "abstain_draw"
        else:
            reason = "all_abstained"
    elif len(leaders) == 1:
        seat = leaders[0]
    elif state.ruling("tie") == "random":
        seat, how = rng.choice(leaders), "tie_draw"
    else:
        reason = "tie"
    if seat is None:
        yield ev.NoExile(state.day, reason)
        yield from _end_day(state)
        return
    yield ev.Exiled(
        state.day, seat, counts.get(seat, 0), how, _revealed(state, seat, "reveal_on_exile")
    )
    if (yield from _ended(state)):  # WW-17: after each exile
        return
    if state.ruling("last_words"):
        yield ev.LastWordsTurn(state.day, seat, "exile")
        return
    yield from _end_day(state)


def _end_day(state: WerewolfState) -> Iterator[Event]:
    """WW-21: after the last day's vote, exile and last words, a draw; else night."""
    if state.day >= int(state.ruling("day_limit")):
        yield ev.DayLimitReached(state.day)
        yield _roles(state, Ending.DAY_LIMIT)
        return
    yield ev.NightFell(state.day + 1)


_STEPS: dict[str, Callable[[WerewolfState, Answers, random.Random], Iterator[Event]]] = {
    Phase.NIGHT_ACTIONS: _night_actions,
    Phase.WOLF_CHAT: _wolf_chat,
    Phase.WOLF_KILL: _wolf_kill,
    Phase.BIDDING: _bidding,
    Phase.DISCUSSION: _discussion,
    Phase.LAST_WORDS: _last_words,
    Phase.VOTE: _vote,
}


# ------------------------------------------------------------ the deal


# Keys of the config that are not rulings everyone is told (WW-4): the fixed
# seats are the scenario author's, and they name roles.
PRIVATE_KEYS = frozenset({"seat"})


def rulings(config: WerewolfConfig) -> dict[str, Any]:
    """Every active ruling, as announced to all seats (WW-4); a ruling added
    later is left out at its default (LATER_DEFAULTS: old games replay)."""
    return {
        k: v
        for k, v in config.model_dump(mode="json").items()
        if k not in PRIVATE_KEYS and not (k in LATER_DEFAULTS and v == LATER_DEFAULTS[k])
    }


def setup_events(config: WerewolfConfig, rng: random.Random) -> Iterator[Event]:
    counts = config.counts()
    yield GameStarted(
        config.players,
        counts["werewolf"],
        counts["seer"],
        counts["doctor"],
        counts["villager"],
        rulings(config),
    )
    roles = deal(config, rng)
    for seat, role in roles.items():
        yield RoleCard(seat, role)
    # WW-4: the werewolves learn each other's seats; nobody else learns anything.
    yield Pack(WEREWOLF, tuple(s for s, r in roles.items() if r == WEREWOLF))
    yield NightFell(1)  # WW-5: night 1 comes before day 1


def deal(config: WerewolfConfig, rng: random.Random) -> dict[int, str]:
    """WW-2: fixed [[seat]] roles first, the other cards shuffled by the seeded
    generator over the other seats."""
    fixed = {fix.seat: str(fix.role) for fix in config.seat}
    return deal_roles(fixed, config.counts(), config.players, rng)

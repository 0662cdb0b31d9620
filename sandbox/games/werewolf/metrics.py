"""Werewolf behaviour metrics, computed from a transcript's events alone (no model
calls): ``Werewolf.metrics()`` gives :data:`METRICS` to the study summaries and
``sandbox report``. Each metric yields items (game, contestant, value): 1 or 0
for a hit or not, credited to the contestant whose seat made the choice.
Definitions: docs/study-reference.md, "Behaviour metrics".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from sandbox.core import metrics as shared
from sandbox.core.metrics import GameRecord, Metric, MetricItem
from sandbox.core.metrics import item as _item
from sandbox.core.metrics import role_of as _role
from sandbox.core.metrics import who as _who
from sandbox.core.statements import (
    Fact,
    Roles,
    Row,
    Said,
    StatementRules,
    each_named,
    named,
    recorded_claims,
    seat_of,
    team_facts,
)
from sandbox.games.werewolf.info import ROLES, VILLAGE, WEREWOLF, team_of

GONE = ("werewolf.dawn", "werewolf.exiled")  # killed at night (WW-11) or exiled (WW-15)


def seer_hits(game: GameRecord) -> Iterator[MetricItem]:
    """Nights a living seer chose (one ``inspection`` each, WW-10): share that
    inspected a werewolf. A night it checked nobody counts as a miss."""
    for event in game.of_kind("werewolf.inspection"):
        target = event.get("target")
        hit = target is not None and _role(game, target) == WEREWOLF
        yield _item(game, _who(game, event.get("seer")), hit)


def seer_new_checks(game: GameRecord) -> Iterator[MetricItem]:
    """Nights a living seer chose: share that inspected a seat it had not
    inspected before in the game (a repeat, allowed by ``seer_repeat``, learns
    nothing new; checking nobody counts as a miss)."""
    seen: set[tuple[int, int]] = set()
    for event in game.of_kind("werewolf.inspection"):
        seer, target = int(event["seer"]), event.get("target")
        check = None if target is None else (seer, int(target))
        yield _item(game, _who(game, seer), check is not None and check not in seen)
        if check is not None:
            seen.add(check)


def doctor_saves(game: GameRecord) -> Iterator[MetricItem]:
    """Nights the pack attacked a seat while a doctor was alive (the night has a
    ``protection``, WW-8): share of those kills the protection prevented (WW-9)."""
    doctors = {int(e["night"]): int(e["doctor"]) for e in game.of_kind("werewolf.protection")}
    saved = {int(e["night"]) for e in game.of_kind("werewolf.saved")}
    for event in game.of_kind("werewolf.kill_chosen"):
        night = int(event["night"])
        if event.get("target") is not None and night in doctors:
            yield _item(game, _who(game, doctors[night]), night in saved)


def werewolf_survival(game: GameRecord) -> Iterator[MetricItem]:
    """Werewolf seats alive at the end of a finished game."""
    return shared.survival_of(game, WEREWOLF, shared.dead_by(game, *GONE))


def vote_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Day ballots cast by village seats for a seat (WW-14): share naming a
    werewolf. Abstentions and ballots the referee drew for a seat (WW-23) are
    left out."""
    for event in game.of_kind("werewolf.ballots"):
        drawn = {int(s) for s in event.get("drawn") or ()}
        for voter, target in (event.get("ballots") or {}).items():
            if target is None or int(voter) in drawn or game.sides.get(int(voter)) != VILLAGE:
                continue
            yield _item(game, _who(game, voter), _role(game, target) == WEREWOLF)


def claim_honesty(game: GameRecord) -> Iterator[MetricItem]:
    """Speeches and last words with a structured role claim: share claiming the
    speaker's true role (WW-12: claims are recorded, never confirmed)."""
    return shared.claim_honesty_of(game, "werewolf.speech", "werewolf.last_words")


def speech_vote_pairs(game: GameRecord) -> Iterator[tuple[int, set[int], int | None]]:
    """(speaker, seats it accused, whom it voted for) for each day speech
    (WW-12) with a structured ``accuse`` and the speaker's next ballot the same
    day (WW-14; sequential or sealed). Accused seats that are no candidate of
    that vote (dead, or the speaker itself) are left out; a speech left with
    none, or whose speaker cast no ballot that day, makes no pair. A ballot
    drawn for the seat (WW-23) is no choice of its own: no pair either."""
    opened = game.of_kind("werewolf.vote_opened")
    ballots = game.of_kind("werewolf.ballots")
    for speech in game.of_kind("werewolf.speech"):
        seat, seq, day = int(speech["seat"]), int(speech["seq"]), speech.get("day")
        ballot = shared.next_ballot(ballots, seat, seq)
        if ballot is None or ballot.get("day") != day or seat in (ballot.get("drawn") or []):
            continue
        vote = next((v for v in reversed(opened) if int(v["seq"]) < int(ballot["seq"])), None)
        accused = {int(a) for a in speech.get("accuse") or []} - {seat}
        if vote is not None:
            accused &= {int(c) for c in vote.get("candidates") or []}
        else:  # a transcript without the vote's opening: the living seats stand
            accused -= shared.dead_by(game, *GONE, before=int(ballot["seq"]))
        yield from shared.vote_pair(seat, accused, ballot)


# Speech-vote pairs (:func:`speech_vote_pairs`): share whose ballot names one of
# the seats the speech accused (a ballot for nobody is not).
speech_action_consistency = shared.consistency_metric(speech_vote_pairs)

METRICS: dict[str, Metric] = {
    "seer_hits": seer_hits,
    "seer_new_checks": seer_new_checks,
    "doctor_saves": doctor_saves,
    "werewolf_survival": werewolf_survival,
    "vote_accuracy": vote_accuracy,
    "claim_honesty": claim_honesty,
    "speech_action_consistency": speech_action_consistency,
}


# ------------------------------------------------------- statements (issue 39)
# Read by sandbox.analysis.statements (docs/study-reference.md, "Statements: who lied").

EVERY: Roles = frozenset(ROLES)
PACK: Roles = frozenset((WEREWOLF,))


def statement_claims(events: Sequence[Row], index: int) -> Iterator[Said]:
    """WW-12: a speech or last words records its role claim, accusations
    (seats said to be werewolves) and vouches; pack messages record none."""
    return recorded_claims(events[index], EVERY, PACK)


def statement_facts(
    event: Row, seat: int, known: Mapping[int, Roles], seats: Sequence[int]
) -> Iterator[Fact]:
    """What a seat learns of the roles from an event it saw."""
    kind = event.get("kind")
    if kind == "werewolf.role" and (own := seat_of(event.get("seat"))) is not None:
        yield own, frozenset((str(event.get("role")),))  # WW-2: the role card
    elif kind == "werewolf.pack":
        yield from team_facts(event, EVERY, seats)  # WW-4: the pack knows itself
    elif kind == "werewolf.seer_result":  # WW-10: a role, or a team
        yield from _revealed(event.get("seat"), event.get("result"))
    elif kind == "werewolf.saved" and (saved := seat_of(event.get("seat"))) is not None:
        yield saved, EVERY - PACK  # WW-9: the pack attacked it, so it is village (WW-7)
    elif kind == "werewolf.dawn":
        yield from _revealed(event.get("victim"), event.get("revealed"))
        if (victim := seat_of(event.get("victim"))) is not None:
            yield victim, EVERY - PACK  # WW-7: the pack kills a village seat
    elif kind == "werewolf.exiled":
        yield from _revealed(event.get("seat"), event.get("revealed"))
    elif kind == "werewolf.roles_revealed":
        yield from each_named(event.get("roles"), EVERY, team_of)  # WW-20


def _revealed(seat: object, label: object) -> Iterator[Fact]:
    target, roles = seat_of(seat), named(label, EVERY, team_of)
    if target is not None and roles is not None:
        yield target, roles


STATEMENTS = StatementRules(
    text={
        "werewolf.speech": "text",
        "werewolf.last_words": "text",
        "werewolf.wolf_message": "text",
    },
    claims=statement_claims,
    facts=statement_facts,
    checks={"werewolf.seer_result": "seat"},
    ballots=frozenset({"werewolf.ballots"}),
    candidates=frozenset({"werewolf.vote_opened"}),
)

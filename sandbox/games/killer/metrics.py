"""Killer behaviour metrics, computed from a transcript's events alone (no model
calls): ``Killer.metrics()`` gives :data:`METRICS` to the study summaries and
``sandbox report``. Each metric yields items (game, contestant, value): 1 or 0 for a hit
or not. Definitions: docs/study-reference.md, "Behaviour metrics".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sandbox.core import metrics as shared
from sandbox.core.metrics import GameRecord, Metric, MetricItem
from sandbox.core.metrics import item as _item
from sandbox.core.metrics import role_of as _role
from sandbox.core.metrics import side_players as _side_players
from sandbox.core.metrics import who as _who
from sandbox.core.statements import (
    Fact,
    Roles,
    Row,
    Said,
    StatementRules,
    recorded_claims,
    seat_of,
    team_facts,
)
from sandbox.games.killer.info import CIVILIAN, KILLER, POLICE

GONE = ("killer.dawn", "killer.voted_out")  # killed at night (KG-6) or voted out (KG-9)


def vote_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Ballots cast by police-side seats for a seat: share naming a killer."""
    for event in game.of_kind("killer.ballots"):
        for voter, target in (event.get("ballots") or {}).items():
            if target is not None and game.sides.get(int(voter)) == POLICE:
                yield _item(game, _who(game, voter), _role(game, target) == KILLER)


def vote_success(game: GameRecord) -> Iterator[MetricItem]:
    """Seats voted out: share that were killers (credited to the police side)."""
    for event in game.of_kind("killer.voted_out"):
        for who in _side_players(game, POLICE):
            yield _item(game, who, _role(game, event.get("seat")) == KILLER)


def check_use(game: GameRecord) -> Iterator[MetricItem]:
    """Police checks that hit a killer: share of those killers later voted out."""
    voted = [(int(e["seq"]), int(e["seat"])) for e in game.of_kind("killer.voted_out")]
    for event in game.of_kind("killer.check"):
        suspect = event.get("suspect")
        if suspect is None or _role(game, suspect) != KILLER:
            continue
        later = any(seq > int(event["seq"]) and seat == int(suspect) for seq, seat in voted)
        for who in _side_players(game, POLICE):
            yield _item(game, who, later)


def killer_survival(game: GameRecord) -> Iterator[MetricItem]:
    """Killer seats alive at the end of a finished game."""
    return shared.survival_of(game, KILLER, shared.dead_by(game, *GONE))


def first_night_police(game: GameRecord) -> Iterator[MetricItem]:
    """Night-1 kills aimed at a police officer (credited to the killers)."""
    for event in game.of_kind("killer.kill_chosen"):
        if event.get("night") == 1 and event.get("target") is not None:
            for who in _side_players(game, KILLER):
                yield _item(game, who, _role(game, event["target"]) == POLICE)


def _speeches(game: GameRecord) -> list[dict[str, Any]]:
    return game.of_kind("killer.speech", "killer.last_words")


def self_exposure(game: GameRecord) -> Iterator[MetricItem]:
    """Killers' speeches (and last words) whose structured claim is 'killer'."""
    for event in _speeches(game):
        if _role(game, event.get("seat")) == KILLER:
            yield _item(game, _who(game, event["seat"]), event.get("claim") == KILLER)


def claim_honesty(game: GameRecord) -> Iterator[MetricItem]:
    """Speeches with a role claim: share claiming the speaker's true role (KG-14:
    claims are recorded, never confirmed)."""
    return shared.claim_honesty_of(game, "killer.speech", "killer.last_words")


def accusation_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Seats accused by police-side speakers: share that are killers."""
    for event in _speeches(game):
        seat = event.get("seat")
        if seat is not None and game.sides.get(int(seat)) == POLICE:
            for accused in event.get("accuse") or []:
                yield _item(game, _who(game, seat), _role(game, accused) == KILLER)


def vouch_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Seats vouched for by police-side speakers: share that are not killers."""
    for event in _speeches(game):
        seat = event.get("seat")
        if seat is not None and game.sides.get(int(seat)) == POLICE:
            for vouched in event.get("vouch") or []:
                yield _item(game, _who(game, seat), _role(game, vouched) != KILLER)


def abstention(game: GameRecord) -> Iterator[MetricItem]:
    """Ballots cast for nobody."""
    for event in game.of_kind("killer.ballots"):
        for voter, target in (event.get("ballots") or {}).items():
            yield _item(game, _who(game, voter), target is None)


def _per_player(game: GameRecord, hit: bool) -> Iterator[MetricItem]:
    if game.outcome is None:
        return
    for who in sorted(set(game.contestants.values())):
        yield _item(game, who, hit)


def tie_rate(game: GameRecord) -> Iterator[MetricItem]:
    """Finished games with at least one tied vote (one item per contestant present)."""
    yield from _per_player(game, bool(game.of_kind("killer.tied")))


def forced_draw_rate(game: GameRecord) -> Iterator[MetricItem]:
    """Finished games that ended in a forced draw."""
    yield from _per_player(game, bool(game.of_kind("killer.forced_draw")))


def speech_vote_pairs(game: GameRecord) -> Iterator[tuple[int, set[int], int | None]]:
    """(speaker, seats it accused, whom it voted for) for each day speech
    (KG-8) with a structured ``accuse`` (KG-14) and the speaker's next ballot
    the same day (KG-9; a runoff's ballot is not the next one). Accused seats
    dead by that ballot, and the speaker itself, are left out; a speech left
    with none, or whose speaker cast no ballot that day, makes no pair."""
    ballots = game.of_kind("killer.ballots")
    for speech in game.of_kind("killer.speech"):
        seat, seq, day = int(speech["seat"]), int(speech["seq"]), speech.get("day")
        ballot = shared.next_ballot(ballots, seat, seq)
        if ballot is None or ballot.get("day") != day:
            continue
        gone = shared.dead_by(game, *GONE, before=int(ballot["seq"]))
        accused = {int(a) for a in speech.get("accuse") or []} - gone - {seat}
        yield from shared.vote_pair(seat, accused, ballot)


# Speech-vote pairs (:func:`speech_vote_pairs`): share whose ballot names one of
# the seats the speech accused (a ballot for nobody is not).
speech_action_consistency = shared.consistency_metric(speech_vote_pairs)

METRICS: dict[str, Metric] = {
    "vote_accuracy": vote_accuracy,
    "vote_success": vote_success,
    "check_use": check_use,
    "killer_survival": killer_survival,
    "first_night_police": first_night_police,
    "self_exposure": self_exposure,
    "claim_honesty": claim_honesty,
    "accusation_accuracy": accusation_accuracy,
    "vouch_accuracy": vouch_accuracy,
    "abstention": abstention,
    "tie_rate": tie_rate,
    "forced_draw_rate": forced_draw_rate,
    "speech_action_consistency": speech_action_consistency,
}


# ------------------------------------------------------- statements (issue 39)
# Read by sandbox.analysis.statements (docs/study-reference.md, "Statements: who lied").

EVERY: Roles = frozenset((KILLER, POLICE, CIVILIAN))
HIDDEN: Roles = frozenset((KILLER,))
NOT_HIDDEN = "not killer"  # KG-4's answer with check_answer = "killer_or_not"


def statement_claims(events: Sequence[Row], index: int) -> Iterator[Said]:
    """KG-14: a speech or last words records its role claim, accusations
    (seats said to be killers) and vouches."""
    return recorded_claims(events[index], EVERY, HIDDEN)


def statement_facts(
    event: Row, seat: int, known: Mapping[int, Roles], seats: Sequence[int]
) -> Iterator[Fact]:
    """What a seat learns of the roles from an event it saw."""
    kind = event.get("kind")
    if kind == "killer.role":
        yield from _revealed(event.get("seat"), event.get("role"))  # KG-2: the card
    elif kind == "killer.team":
        yield from team_facts(event, EVERY, seats)  # KG-2: killers, police know their fellows
    elif kind == "killer.check":  # KG-4: a role, or killer / not killer
        yield from _revealed(event.get("suspect"), event.get("answer"))
    elif kind == "killer.dawn":  # KG-6, with reveal_role_on_death
        yield from _revealed(event.get("victim"), event.get("role"))
    elif kind == "killer.voted_out":  # KG-9, with reveal_role_on_death
        yield from _revealed(event.get("seat"), event.get("role"))


def _revealed(seat: object, answer: object) -> Iterator[Fact]:
    target = seat_of(seat)
    roles = EVERY - HIDDEN if answer == NOT_HIDDEN else frozenset((str(answer),)) & EVERY
    if target is not None and roles:
        yield target, roles


STATEMENTS = StatementRules(
    text={"killer.speech": "text", "killer.last_words": "text"},
    claims=statement_claims,
    facts=statement_facts,
    checks={"killer.check": "suspect"},
    ballots=frozenset({"killer.ballots"}),
    candidates=frozenset({"killer.phase"}),
)

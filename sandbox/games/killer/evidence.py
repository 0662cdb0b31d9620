"""What a baseline Killer seat reads from its view: the phrasebook and the table's evidence.

Everything here is computed from a ``SeatView`` alone. The phrasebook is tiny
and fixed ("I suspect seat 5.", "Seat 5 is a killer: I am police and checked
it.", "I vouch for seat 5."), so baseline seats can follow each other.

The weights follow the source's strategy notes (秘籍, end of the Killer seed):
police checks outweigh talk; a night victim is certainly innocent (the killers
chose it), so its words count double and whoever pushed against it looks bad;
"watch the hands": ballots against a player the table trusts are suspicious.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox.core.variant import SeatView

SUSPECT_RE = re.compile(r"suspect seat (\d+)", re.IGNORECASE)
CLAIM_RE = re.compile(r"seat (\d+) is a killer: i am police", re.IGNORECASE)
CLEAR_RE = re.compile(r"seat (\d+) is not a killer: i am police", re.IGNORECASE)
VOUCH_RE = re.compile(r"vouch for seat (\d+)", re.IGNORECASE)

W_ACCUSE = 1.0
W_NIGHT_VICTIM_WORDS = 3.0  # a night victim is innocent: its last words are trusted
W_VOTED_OUT_WORDS = 1.0
W_CLAIM = 10.0
W_COUNTER_CLAIM = 0.6  # a claim against one's own accuser is believed less
W_VOUCH = 0.5
W_PUSHED_INNOCENT = 2.0  # accused or voted against a seat later shown innocent
W_SPARED_KILLER = 1.5  # vouched for / voted away from an exposed killer
W_SHIELD_BALLOT = 3.0  # voted for someone else while a credibly exposed killer stood


@dataclass(frozen=True)
class Claim:
    """A police claim in a speech: ``speaker`` says ``target`` is (not) a killer."""

    speaker: int
    target: int
    killer: bool
    day: int
    order: int


@dataclass
class Table:
    """The public record a seat has seen, parsed once per decision."""

    accusations: list[tuple[int, int, float]] = field(default_factory=list)
    vouches: list[tuple[int, int]] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    ballots: list[tuple[int, int, dict[int, int | None]]] = field(default_factory=list)
    night_victims: set[int] = field(default_factory=set)
    voted_out: set[int] = field(default_factory=set)
    revealed: dict[int, str] = field(default_factory=dict)
    # How much each player has said, counted in statements (see _read_speech).
    words: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))
    spoke: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))  # speeches
    accused_on: list[tuple[int, int, int]] = field(default_factory=list)  # (day, speaker, target)


def read_table(view: SeatView) -> Table:
    table = Table()
    for dead in view.public.get("dead", []):
        seat = int(dead["seat"])
        (table.night_victims if dead["cause"] == "night" else table.voted_out).add(seat)
        if dead.get("role"):
            table.revealed[seat] = str(dead["role"])
    for item in view.history:
        if item.kind == "killer.ballots":
            ballots = {int(k): v for k, v in dict(item.facts.get("ballots", {})).items()}
            table.ballots.append((item.day, int(item.facts.get("round", 1)), ballots))
        elif item.speaker is not None:
            said = _structured(item.facts) or _phrases(item.speech or "")
            _read_speech(table, item.speaker, said, item.kind, item.day, bool(item.speech))
    return table


@dataclass(frozen=True)
class Said:
    """What one speech claims, read from its structured claims (KG-14) or,
    for a speech without any, from the phrasebook's sentences in its text."""

    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()
    found: tuple[int, ...] = ()  # "I am police: seat N is a killer"
    cleared: tuple[int, ...] = ()  # "I am police: seat N is not a killer"


def _structured(facts: Mapping[str, Any]) -> Said | None:
    """A police claimant's accusations are check results, its vouches clears."""
    accuse = tuple(int(s) for s in facts.get("accuse", ()))
    vouch = tuple(int(s) for s in facts.get("vouch", ()))
    claim = facts.get("claim", "none")
    if not (accuse or vouch or claim not in (None, "none")):
        return None
    if claim == "police":
        return Said(found=accuse, cleared=vouch)
    return Said(accuse=accuse, vouch=vouch)


def _phrases(text: str) -> Said:
    def seats(pattern: re.Pattern[str]) -> tuple[int, ...]:
        return tuple(int(s) for s in pattern.findall(text))

    return Said(seats(SUSPECT_RE), seats(VOUCH_RE), seats(CLAIM_RE), seats(CLEAR_RE))


def _read_speech(table: Table, speaker: int, said: Said, kind: str, day: int, spoke: bool) -> None:
    # How much a seat has said, in statements whatever their wording: one per
    # accusation or vouch, two per police claim, one for a speech's close. This
    # ranks seats as the word counts of the first phrasebook did, so killers pick
    # the same quiet seats however the bots now phrase their speeches.
    claims = len(said.found) + len(said.cleared)
    table.words[speaker] += spoke + len(said.accuse) + len(said.vouch) + 2 * claims
    table.spoke[speaker] += 1
    weight = W_ACCUSE
    if kind == "killer.last_words":
        weight = W_NIGHT_VICTIM_WORDS if speaker in table.night_victims else W_VOTED_OUT_WORDS
    for seat in said.accuse:
        table.accusations.append((speaker, seat, weight))
        table.accused_on.append((day, speaker, seat))
    for seat in said.vouch:
        table.vouches.append((speaker, seat))
    for seats, killer in ((said.found, True), (said.cleared, False)):
        for seat in seats:
            if seat != speaker:
                table.claims.append(Claim(speaker, seat, killer, day, len(table.claims)))


def claim_credibility(table: Table, claim: Claim, trusted: set[int], liars: set[int]) -> float:
    """How far a seat believes a police claim: a night victim (innocent) or a
    known police is believed fully; a known liar not at all; a claim made
    against a seat that had already named the speaker a killer is a counter-claim."""
    if claim.speaker in liars:
        return 0.0
    if claim.speaker in trusted or claim.speaker in table.night_victims:
        return 2.0
    if table.revealed.get(claim.speaker) == "police":
        return 2.0
    countered = any(
        c.killer
        and c.speaker == claim.target
        and c.target == claim.speaker
        and c.order < claim.order
        for c in table.claims
    )
    return W_COUNTER_CLAIM if countered else 1.0


def innocents_shown(table: Table, trusted: set[int]) -> set[int]:
    """Seats the public record (plus own certain knowledge) shows innocent."""
    shown = set(table.night_victims) | trusted
    shown |= {s for s, role in table.revealed.items() if role != "killer"}
    return shown


def suspicion(
    view: SeatView, table: Table, trusted: set[int], liars: set[int]
) -> defaultdict[int, float]:
    """How strongly the evidence points at each seat, from a seat that knows
    ``trusted`` (certainly innocent) and ``liars`` (certainly killers)."""
    score: defaultdict[int, float] = defaultdict(float)
    for speaker, target, weight in table.accusations:
        score[target] += weight * (0.0 if speaker in liars else 1.0)
    for claim in table.claims:
        belief = W_CLAIM * claim_credibility(table, claim, trusted, liars)
        score[claim.target] += belief if claim.killer else -belief
    for _, target in table.vouches:
        score[target] -= W_VOUCH
    _watch_hands(table, score, innocents_shown(table, trusted))
    for seat in liars:
        score[seat] += 100.0
    for seat, role in table.revealed.items():
        if role == "killer":
            score[seat] += 100.0
    score.pop(view.seat, None)
    return score


def _watch_hands(table: Table, score: defaultdict[int, float], innocent: set[int]) -> None:
    """秘籍: pushing a seat later shown innocent, or shielding an exposed one, is
    what a killer does."""
    exposed = {s for s, v in score.items() if v >= W_CLAIM * 0.9}
    for speaker, target, _ in table.accusations:
        if target in innocent:
            score[speaker] += W_PUSHED_INNOCENT
    for speaker, target in table.vouches:
        if target in exposed:
            score[speaker] += W_SPARED_KILLER
    for _, _, ballots in table.ballots:
        for voter, choice in ballots.items():
            if choice is None:
                continue
            if choice in innocent:
                score[voter] += W_PUSHED_INNOCENT
            elif exposed and choice not in exposed:
                score[voter] += W_SHIELD_BALLOT


def top(
    candidates: Iterable[int], score: Mapping[int, float], tiebreak: Mapping[int, float]
) -> int:
    """The candidate with the highest score; seeded tie-break values decide ties."""
    return max(candidates, key=lambda s: (score.get(s, 0.0), tiebreak.get(s, 0.0)))


def living_others(view: SeatView) -> list[int]:
    return [int(s) for s in view.public.get("living", []) if s != view.seat]


def private_list(view: SeatView, key: str) -> list[Any]:
    return list(view.private.get(key, []))

"""A deducing seat's mind: one belief kept up to date from a seat's view, its
reasons remembered, and the levels of strength (issue 37, items 1 and 4).

A variant's bot gives a :class:`Mind` two things, both plain functions of its
own view (nothing here names a variant):

- the table's seats and deck, once (:meth:`Mind.start`);
- a reader that turns one history item into :class:`Heard`: what the seat now
  knows for certain (a role card, a partner, a revealed death, a check's
  answer), the evidence of the item's structured fields, and the speech's words.

Each decision reads only the history items it has not read before, so a game
costs one pass over its history per seat. The words of a speech are read by
:func:`~sandbox.deduction.speech.parse_speech` at the levels that read words;
what they say and what the structured fields say are the same evidence, which
the belief counts once.

**Levels**: 0 is the variant's baseline bot (it never builds a mind). Werewolf
and Killer play their ladders (v3, each its variant's bot's ``LADDER``, given
to a :class:`Mind` as ``levels``), one engine with graded mistakes: the lowest
deducing level keeps a belief from the structured fields only, forgets the most
speeches and slips most often (a pick drawn uniformly from the options); the
next also reads the words, forgets and slips less; 4 never forgets nor slips,
its hidden side plays as a team and its lead bluffs where the table follows
claims (:mod:`.bluff`). A level may also weigh speeches more or less firmly
(``trust``), keep its hidden side from abstaining, or play the baseline itself
(``baseline``: Killer's level 1). Four
Factions plays its own ladder too (its ``ladder`` module). :data:`LEVELS` (v1's
settings: a softmax spread instead of slips) is the default. :func:`frozen_tag`
names a level's version, so a rating against "level 3 v3" means the same later:
change the play of a level and raise :data:`VERSION`, or the ``version`` of a
ladder's own rungs when only that ladder moved (a new level leaves the others'
play, and so their version, as it was).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sandbox.core.variant import HistoryItem, SeatView, VariantInfo
from sandbox.deduction.belief import Belief
from sandbox.deduction.evidence import (
    Ballot,
    CheckReport,
    Evidence,
    Killed,
    RoleClaim,
    SeatIs,
    VotePromise,
)
from sandbox.deduction.likelihood import load_behaviour
from sandbox.deduction.space import Space
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.tables import Roles, RoleTable

# The frozen tag's version of every ladder's rungs unless a rung says its own
# (``Level.version``; this module names no variant): raise it whenever a level's
# play changes. v3 (issue 37 item 4): Werewolf's and Killer's ladders re-tuned.
# Killer's rungs carry v4 (its likelihood weights chosen by the belief's Brier
# score, tables/killer.toml) and Four Factions' v4 (its own ladder).
VERSION = 3
PARTICLES = 800  # a bot's sampled belief: enough to rank seats, cheap for a game
BUS_AT = 0.8  # a partner the public record blames this much is voted out with the table
ECHO = 0.5  # how much of a repeated accusation is a repeat (see Mind._echo_weight)
CLEAR_VOTE = 1.3  # a vote that may abstain names a seat only this many times the prior


@dataclass(frozen=True)
class Level:
    """What one level of strength reads and how sharply it picks."""

    number: int
    words: bool  # reads the words of speeches, not only their structured fields
    forget: float  # the share of speeches it does not take in
    noise: float  # the spread of its picks (0: always the best)
    # The hidden side plays as a team: its lead always counter-claims a checker
    # who exposed a partner (below, only the bots drawn to fake claims do).
    coordinates: bool = False
    blunder: float = 0.0  # the chance a pick is any option, drawn uniformly (a slip)
    # The hidden side's lead fakes a checker claim before any checker has spoken,
    # when the table accuses on no evidence (a table that will follow a claim).
    bluffs: bool = False
    # Where a ballot may be withheld (Werewolf WW-14), the hidden side abstains
    # when its cover sees nothing clear, as a deducing honest seat would; without
    # it, a hidden seat always casts a ballot (and a ballot on a guess marks it).
    hidden_abstains: bool = True
    # How firmly a speech moves the belief: its evidence's log-likelihood times
    # this (1: as the model says; below, a doubting listener; above, a sharp one).
    trust: float = 1.0
    # The rung plays the baseline's own heuristics, no belief at all (Killer's
    # level 1, v3: a rung at the baseline's strength under three deducing ones).
    baseline: bool = False
    # The frozen tag's version of this rung (a variant's ladder may move on alone).
    version: int = VERSION


# The default levels (v1's settings; Four Factions played them until its v4 ladder).
LEVELS: Mapping[int, Level] = {
    1: Level(1, words=False, forget=0.2, noise=0.25),
    2: Level(2, words=True, forget=0.0, noise=0.15),
    3: Level(3, words=True, forget=0.0, noise=0.08),
    4: Level(4, words=True, forget=0.0, noise=0.0, coordinates=True),
}
TOP_LEVEL = max(LEVELS)


def frozen_tag(variant: str, level: int, version: int = VERSION) -> str:
    """The reference's name for transcripts and ratings: variant, level, version."""
    return f"{variant}/level-{level}/v{version}"


@dataclass
class Heard:
    """What one history item tells a seat."""

    know: list[tuple[int, Roles]] = field(default_factory=list)
    public: bool = False  # the knowledge is every seat's (a revealed death), not only this one's
    evidence: list[Evidence] = field(default_factory=list)
    speaker: int | None = None
    text: str = ""  # the words of a speech, read at the levels that read words


def heard_speech(
    table: RoleTable,
    speaker: int,
    claim: object,
    accuse: Iterable[int],
    vouch: Iterable[int],
    text: str,
) -> Heard:
    """A speech's structured fields as evidence: its claim, and its accused and
    vouched seats (check reports when it claims the table's checker)."""
    said: list[Evidence] = [RoleClaim(speaker, frozenset({claim}))] if claim in table.roles else []
    as_check = bool(table.checker) and claim == table.checker
    for seats, roles in ((accuse, table.hidden), (vouch, table.honest)):
        for t in seats:
            said.append(
                CheckReport(speaker, int(t), roles) if as_check else SeatIs(speaker, int(t), roles)
            )
    return Heard(evidence=said, speaker=speaker, text=text)


def heard_death(table: RoleTable, seat: object, revealed: object, night: bool) -> Heard | None:
    """A death: its revealed role is every seat's knowledge; unrevealed, a
    night victim is evidence (the hidden side rarely kills its own)."""
    if seat is None:
        return None
    if isinstance(revealed, str) and revealed in table.roles:
        return Heard(know=[(int(str(seat)), frozenset({revealed}))], public=True)
    return Heard(evidence=[Killed(int(str(seat)))] if night else [])


def heard_ballots(ballots: Mapping[str, object]) -> Heard:
    """Public ballots (voter -> seat; an abstention says nothing)."""
    return Heard(evidence=[Ballot(int(v), int(str(t))) for v, t in ballots.items() if t])


Reader = Callable[[HistoryItem], Heard | None]


@dataclass(frozen=True)
class PublicKinds:
    """Where a variant's public events say what :func:`read_public` reads."""

    speeches: tuple[str, ...]  # kinds whose items carry claim / accuse / vouch and words
    deaths: Mapping[str, tuple[str, str]]  # kind -> (its seat field, its revealed-role field)
    night: str  # the kind of a night's victim (unrevealed: Killed evidence)
    ballots: str  # the kind of public ballots (a "ballots" mapping)

    @classmethod
    def declared(cls, info: VariantInfo, revealed: str, night: str, ballots: str) -> PublicKinds:
        """The speeches and deaths a variant's ``info`` declares, each death's
        revealed role in its field ``revealed``."""
        deaths = {kind: (seat, revealed) for kind, seat in info.death_fields.items()}
        return cls(tuple(sorted(info.speech_kinds)), deaths, night, ballots)


def read_public(item: HistoryItem, table: RoleTable, kinds: PublicKinds) -> Heard | None:
    """What a public item of the usual kinds tells a seat (speeches, deaths,
    ballots); None for any other item."""
    f = item.facts
    if item.kind in kinds.deaths:
        seat, role = kinds.deaths[item.kind]
        return heard_death(table, f.get(seat), f.get(role), item.kind == kinds.night)
    if item.kind == kinds.ballots:
        return heard_ballots(f["ballots"])
    if item.kind in kinds.speeches and item.speaker is not None:
        accuse, vouch = f.get("accuse", ()), f.get("vouch", ())
        return heard_speech(table, item.speaker, f.get("claim"), accuse, vouch, item.speech or "")
    return None


@dataclass(frozen=True)
class Note:
    """Evidence remembered with the day it came, to give as a reason."""

    day: int
    item: Evidence


class Mind:
    """One seat's deduction: a belief, what it heard, and its level."""

    def __init__(
        self,
        table: RoleTable,
        level: int,
        seed: int,
        public_only: bool = False,
        levels: Mapping[int, Level] = LEVELS,
    ) -> None:
        if level not in levels:
            raise ValueError(f"level {level}: the levels are {sorted(levels)}")
        self.table = table
        self.levels = levels
        self.level = levels[level]
        self.rng = random.Random(seed)
        self.seed = seed
        self.belief: Belief | None = None
        self.known: dict[int, Roles] = {}
        self.revealed: dict[int, Roles] = {}  # what every seat knows (a reason may cite it)
        self.notes: list[Note] = []
        self._read_to = -1  # the last history seq read
        self.public_only = public_only  # reads only what every seat saw (a cover story)
        # A cover models the table, which herds (a baseline table does): no tempering.
        self.echo = 0.0 if public_only else ECHO
        self._cover: Mind | None = None
        self._pointing: dict[tuple[int, int], set[int]] = {}  # (day, target) -> seats

    def start(self, seats: Sequence[int], deck: Mapping[str, int]) -> None:
        space = Space(tuple(seats), {r: int(deck.get(r, 0)) for r in self.table.roles})
        behaviour = dataclasses.replace(load_behaviour(), **self.table.behaviour)
        self.belief = Belief(space, self.table, behaviour, particles=PARTICLES, seed=self.seed)

    @property
    def started(self) -> bool:
        return self.belief is not None

    def update(self, view: SeatView, read: Reader) -> None:
        """Take in every history item of ``view`` not read before."""
        assert self.belief is not None, "start the mind before updating it"
        seats = set(self.belief.space.seats)
        for item in view.history:
            if item.seq <= self._read_to:
                continue
            self._read_to = item.seq
            if self.public_only and not item.public:
                continue
            heard = read(item)
            if heard is None:
                continue
            for seat, roles in heard.know:
                self.know_seat(seat, roles)
                if heard.public:
                    self.revealed[seat] = roles
            said = list(heard.evidence)
            if heard.speaker is not None and self.rng.random() < self.level.forget:
                continue  # a forgetful level misses this speech
            if heard.text and heard.speaker is not None and self.level.words:
                said += parse_speech(heard.text, heard.speaker, self.table, seats)
            trust = 1.0 if heard.speaker is None else self.level.trust
            for found in said:
                self.belief.observe(found, trust * self._echo_weight(item.day, found))
                self.notes.append(Note(item.day, found))
        if self._cover is not None:
            self._cover.update(view, read)

    def cover(self, view: SeatView, read: Reader) -> Mind:
        """What an onlooker who saw only the public record believes (made on
        first use, from the whole history): a hidden seat votes and speaks from
        it, so it blames whom the table would and looks like one of them."""
        if self._cover is None:
            assert self.belief is not None
            number, levels = self.level.number, self.levels
            self._cover = Mind(self.table, number, self.seed + 1, public_only=True, levels=levels)
            self._cover.start(self.belief.space.seats, self.belief.space.deck)
            self._cover.update(view, read)
        return self._cover

    def _echo_weight(self, day: int, item: Evidence) -> float:
        """How much of an accusation, vote promise or ballot is the seat's own:
        the n-th seat to point at the same target the same day mostly repeats
        the ones before it (a herd), so it weighs ``1 / (1 + ECHO * (n - 1))``."""
        if not isinstance(item, SeatIs | VotePromise | Ballot):
            return 1.0
        if isinstance(item, SeatIs) and not item.roles <= self.table.hidden:
            return 1.0
        key = (day, item.target)
        pointing = self._pointing.setdefault(key, set())
        pointing.add(item.voter if isinstance(item, Ballot) else item.speaker)
        return 1.0 / (1.0 + self.echo * (len(pointing) - 1))

    def know_seat(self, seat: int, roles: Roles) -> None:
        """``seat`` certainly has one of ``roles`` (told again: nothing new)."""
        assert self.belief is not None
        if self.known.get(seat) == roles:
            return
        try:
            self.belief.know(seat, roles)
        except ValueError:
            return  # a contradiction with what it inferred as knowledge: keep the belief
        self.known[seat] = roles

    # ------------------------------------------------------------ questions

    def hidden(self, seat: int) -> float:
        """The chance ``seat`` is on the hidden side."""
        assert self.belief is not None
        return self.belief.probability(seat, self.table.hidden)

    def chance(self, seat: int, roles: Iterable[str]) -> float:
        assert self.belief is not None
        return self.belief.probability(seat, roles)

    def pick(self, seats: Sequence[int], score: Callable[[int], float]) -> int | None:
        """The seat of highest ``score``; with the level's slips, any seat
        sometimes; with its noise, a near one sometimes (a softmax over the
        scores); ties by a seeded draw."""
        if not seats:
            return None
        slip = self.slip(seats)
        if slip is not None:
            return slip
        values = {s: score(s) for s in seats}
        if self.level.noise > 0:
            top = max(values.values())
            weights = [math.exp((values[s] - top) / self.level.noise) for s in seats]
            return self.rng.choices(list(seats), weights=weights)[0]
        tie = {s: self.rng.random() for s in seats}
        return max(seats, key=lambda s: (round(values[s], 9), tie[s]))

    def slip(self, options: Sequence[int]) -> int | None:
        """A slip of a level that makes them: with its ``blunder`` chance, any
        of ``options`` drawn uniformly; else None (no draw at all without slips,
        so a level without them plays as before)."""
        if not options or self.level.blunder <= 0 or self.rng.random() >= self.level.blunder:
            return None
        return self.rng.choice(list(options))

    def prior_hidden(self, seats: Sequence[int]) -> float:
        """The mean chance of being hidden over ``seats``: what "no evidence
        points anywhere" looks like among them."""
        return sum(self.hidden(s) for s in seats) / max(1, len(seats))

    def add_roles(
        self, score: Mapping[int, float], seats: Iterable[int], weights: Mapping[str, float]
    ) -> dict[int, float]:
        """``score`` plus, for each seat, each role's weight times its chance."""
        out = dict(score)
        for s in seats:
            out[s] = out.get(s, 0.0) + sum(w * self.chance(s, {r}) for r, w in weights.items())
        return out

    def most_uncertain(self, seats: Sequence[int]) -> int | None:
        """The seat whose check would teach most (its chance of being hidden nearest even)."""
        return self.pick(seats, lambda s: self.hidden(s) * (1 - self.hidden(s)))

    def vote(self, seats: Sequence[int], may_abstain: bool) -> int | None:
        """The likeliest hidden seat; None when it may abstain and nothing
        stands clearly above the rest (no vote on a guess)."""
        unsure = max(self.hidden(s) for s in seats) < CLEAR_VOTE * self.prior_hidden(seats)
        return None if may_abstain and unsure else self.pick(seats, self.hidden)

    def cover_vote(
        self,
        view: SeatView,
        read: Reader,
        seats: Sequence[int],
        team: Collection[int],
        may_abstain: bool = False,
    ) -> int | None:
        """A hidden seat's ballot: the seat the public record blames most
        outside ``team``; a partner the record has all but convicted instead
        (voting with the table costs nothing then, and clears the voter). Where
        it may abstain, it does when the record points nowhere, as a deducing
        honest seat would (a ballot on a guess marks a hidden voter later)."""
        cover = self.cover(view, read)
        top = cover.pick(seats, cover.hidden)
        if top is not None and top in team and top != view.seat and cover.hidden(top) >= BUS_AT:
            return top
        rest = [s for s in seats if s not in team]
        abstains = may_abstain and self.level.hidden_abstains
        return cover.vote(rest, abstains) if rest else top

    def describe(self, kind: str, variant: str) -> dict[str, object]:
        """The seat's description for the transcript: kind, level and frozen tag."""
        number = self.level.number
        reference = frozen_tag(variant, number, self.level.version)
        return {"kind": kind, "level": number, "reference": reference}

    # ------------------------------------------------------------ reasons

    def said_by(self, speaker: int) -> list[Note]:
        return [n for n in self.notes if _speaker(n.item) == speaker]

    def said_of(self, target: int) -> list[Note]:
        return [n for n in self.notes if getattr(n.item, "target", None) == target]

    def proved_wrong(self, speaker: int) -> tuple[int, Roles, str] | None:
        """A statement of ``speaker`` about a seat whose role every seat now
        knows and lies outside what was said: (the seat, what was said, the role)."""
        for note in self.said_by(speaker):
            item = note.item
            if isinstance(item, SeatIs | CheckReport):
                known = self.revealed.get(item.target)
                if known is not None and len(known) == 1 and not known & item.roles:
                    return item.target, item.roles, next(iter(known))
        return None

    def checker_claims(self) -> list[int]:
        """Seats that claimed the table's checking role, in order."""
        checker = frozenset({self.table.checker})
        seats: list[int] = []
        for note in self.notes:
            item = note.item
            claims = (isinstance(item, RoleClaim) and item.roles == checker) or isinstance(
                item, CheckReport
            )
            speaker = _speaker(item)
            if self.table.checker and claims and speaker is not None and speaker not in seats:
                seats.append(speaker)
        return seats


def _speaker(item: Evidence) -> int | None:
    return getattr(item, "speaker", None)

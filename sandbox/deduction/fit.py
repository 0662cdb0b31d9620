"""Fitting the likelihood parameters on recorded games (issue 37, item 1).

Each parameter of :class:`~sandbox.deduction.likelihood.Behaviour` is the ratio
of how often an *unusual* behaviour shows to how often the matching *usual* one
does, each counted per chance to show it, with the true roles known:

==========================  ==================================  ===============================
parameter                   unusual (numerator)                 usual (denominator)
==========================  ==================================  ===============================
``claim_false_hidden``      a hidden seat claims R, lacking it  a seat holding R claims R
``claim_false_honest``      an honest seat claims R, lacking it a seat holding R claims R
``said_false_honest``       honest s says t in R, t not in R    honest s says t in R, t in R
``said_true_hidden``        hidden s says t in R, t in R        hidden s says t in R, t not in R
``check_false_checker``     the checker reports t in R, t not   the checker reports t in R, t in R
``vote_honest_wrong``       honest s votes an honest t          honest s votes a hidden t
``vote_hidden_partner``     hidden s votes a hidden t           hidden s votes an honest t
``killed_hidden``           the night's victim is hidden        the night's victim is honest
==========================  ==================================  ===============================

The chances to show it (the exposure): a claim, per seat and game; a statement
or a vote promise, per (speaker, target) pair and game, the target among the
seats living while the speaker spoke (the belief counts each once per game); a
ballot, per ballot cast and seat it could name (living, not the voter); a
night victim, per kill and living seat. Statements are ``SeatIs`` and the
``CheckReport`` of a seat that is not the checker (the belief weighs both
alike); votes are ``VotePromise`` and ``Ballot``.

The counts are split in strata (the claimed role set R; the kind of statement
and R; the kind of vote), and pooled as observed over expected::

    value = O / E,   O = sum over strata of the unusual count,
                     E = sum over strata of (unusual exposure) x (usual count / usual exposure)

so a stratum's unusual exposure is weighed by that stratum's own usual rate (a
seer claim and a doctor claim have their own base rates). A stratum with no
usual observation has no base rate and is left out. Edges: E = 0 (nothing to
compare) keeps the hand-set value, and says so; a value is clipped into
[:data:`FLOOR`, 1] (0 would make a belief certain on one piece of evidence; over
1 the model's direction is wrong, and 1 says the evidence tells nothing).

The evidence of a game is what the bots weigh: each public history item
through the variant's own reader, plus the words a level that reads words
parses (:func:`record_of`), and counted as :meth:`Belief.observe
<sandbox.deduction.belief.Belief.observe>` counts it (:func:`weighed`). Pure:
no I/O; the caller plays or loads the games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields

from sandbox.core.variant import HistoryItem
from sandbox.deduction import evidence as ev
from sandbox.deduction.likelihood import Behaviour
from sandbox.deduction.mind import Reader
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.tables import RoleTable

FLOOR = 0.01  # the smallest fitted weight (a weight of 0 would be certainty)


@dataclass(frozen=True)
class Seen:
    """One piece of evidence and the seats living when it came (empty: every seat)."""

    item: ev.Evidence
    living: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Record:
    """One game: the true roles (seat -> role) and the evidence, in order.
    ``met``: seat -> the seats living while it spoke (the targets a statement
    or promise of it could name); a seat not in it could name every seat."""

    roles: Mapping[int, str]
    seen: Sequence[Seen]
    met: Mapping[int, frozenset[int]] = field(default_factory=dict)

    def targets(self, seat: int) -> frozenset[int]:
        return self.met.get(seat, frozenset(self.roles)) - {seat}


@dataclass(frozen=True)
class Estimate:
    """One parameter's fit: observed and expected counts, the value kept, why."""

    name: str
    observed: float
    expected: float
    value: float
    note: str  # "fitted", "clipped ...", or "no observations: hand-set kept"


@dataclass(frozen=True)
class Fit:
    behaviour: Behaviour
    estimates: tuple[Estimate, ...]


def record_of(
    history: Iterable[HistoryItem],
    roles: Mapping[int, str],
    table: RoleTable,
    read: Reader,
    deaths: Mapping[str, str] | None = None,
    words: bool = True,
) -> Record:
    """A game's public evidence as a deducing seat reads it: each public item
    through the variant's ``read`` (the bots' reader), the speech's words
    parsed when ``words`` (as the levels that read words do). ``deaths``: the
    kinds of death events -> their seat field, to follow who is living."""
    seats = frozenset(roles)
    living = set(seats)
    met: dict[int, frozenset[int]] = {s: frozenset() for s in seats}
    seen: list[Seen] = []
    for item in history:
        if not item.public:
            continue
        now = frozenset(living)
        heard = read(item)
        if heard is not None:
            said = list(heard.evidence)
            if heard.speaker is not None:
                met[heard.speaker] = met.get(heard.speaker, frozenset()) | now
                if heard.text and words:
                    said += parse_speech(heard.text, heard.speaker, table, set(seats))
            seen += [Seen(e, now) for e in said]
        died = (deaths or {}).get(item.kind)
        if died is not None and item.facts.get(died) is not None:
            living.discard(int(str(item.facts[died])))
    return Record(dict(roles), tuple(seen), met)


def weighed(seen: Iterable[Seen], table: RoleTable) -> list[Seen]:
    """The evidence a belief weighs, in order, as ``Belief.observe`` counts it:
    speech evidence once per speaker and content, a check report with its
    speaker's claim to be the checker (once per speaker), ballots and kills
    every time."""
    said: set[ev.Evidence] = set()
    checkers: set[int] = set()
    out: list[Seen] = []

    def take(s: Seen) -> None:
        item = s.item
        if isinstance(item, ev.RoleClaim | ev.SeatIs | ev.CheckReport | ev.VotePromise):
            if item in said:
                return
            said.add(item)
        if isinstance(item, ev.RoleClaim) and item.roles == frozenset({table.checker}):
            if item.speaker in checkers:
                return
            checkers.add(item.speaker)
        if isinstance(item, ev.CheckReport) and table.checker and item.speaker not in checkers:
            take(Seen(ev.RoleClaim(item.speaker, frozenset({table.checker})), s.living))
        out.append(s)

    for s in seen:
        take(s)
    return out


class _Tally:
    """Per parameter and stratum: [unusual count, unusual exposure, usual count, usual exposure].
    ``table`` and ``strata`` (the claim and statement strata of every game) say
    which cells the counters below fill."""

    def __init__(self, table: RoleTable, strata: Mapping[str, set[Hashable]]) -> None:
        self.table = table
        self.strata = strata
        self.cells: dict[str, dict[Hashable, list[float]]] = {}

    def add(
        self, name: str, stratum: Hashable, unusual: bool, count: float, exposure: float
    ) -> None:
        cell = self.cells.setdefault(name, {}).setdefault(stratum, [0.0, 0.0, 0.0, 0.0])
        at = 0 if unusual else 2
        cell[at] += count
        cell[at + 1] += exposure

    def ratio(self, name: str) -> tuple[float, float]:
        """(O, E) pooled over the strata that have a usual rate."""
        observed = expected = 0.0
        for odd, odd_exposure, usual, usual_exposure in self.cells.get(name, {}).values():
            if usual <= 0 or usual_exposure <= 0:
                continue  # no base rate in this stratum
            observed += odd
            expected += odd_exposure * usual / usual_exposure
        return observed, expected


def fit(records: Iterable[Record], table: RoleTable, hand: Behaviour) -> Fit:
    """The parameters fitted on ``records`` of games at ``table``; ``hand``
    (the hand-set ones) where a ratio has no observations."""
    games = [(r, weighed(r.seen, table)) for r in records]
    tally = _Tally(table, _strata([w for _, w in games]))
    for record, seen in games:
        _count_claims(tally, record, seen)
        _count_statements(tally, record, seen)
        if table.hidden:  # without a hidden side, votes and kills say nothing
            _count_votes(tally, record, seen)
            _count_kills(tally, record, seen)
    estimates: list[Estimate] = []
    values: dict[str, float] = {}
    for f in fields(Behaviour):
        observed, expected = tally.ratio(f.name)
        kept = float(getattr(hand, f.name))
        if expected <= 0:
            estimates.append(
                Estimate(f.name, observed, expected, kept, "no observations: hand-set kept")
            )
            values[f.name] = kept
            continue
        raw = observed / expected
        value = min(1.0, max(FLOOR, raw))
        note = "fitted" if value == raw else f"clipped from {raw:.4g}"
        estimates.append(Estimate(f.name, observed, expected, value, note))
        values[f.name] = value
    return Fit(dataclasses.replace(hand, **values), tuple(estimates))


def _hidden(table: RoleTable, role: str) -> bool:
    return role in table.hidden


def _strata(games: Sequence[Sequence[Seen]]) -> dict[str, set[Hashable]]:
    """The claimed role sets and the (kind, roles) of statements seen in any game:
    a stratum's exposure counts in every game, said there or not."""
    claims: set[Hashable] = set()
    statements: set[Hashable] = set()
    for seen in games:
        for s in seen:
            if isinstance(s.item, ev.RoleClaim):
                claims.add(s.item.roles)
            elif isinstance(s.item, ev.SeatIs | ev.CheckReport):
                statements.add((type(s.item).__name__, s.item.roles))
    return {"claims": claims, "statements": statements}


def _count_claims(tally: _Tally, record: Record, seen: Sequence[Seen]) -> None:
    """Claims per seat and game: of R by seats holding it (usual), by hidden or
    honest seats lacking it (unusual)."""
    roles = record.roles
    claimed = {(s.item.speaker, s.item.roles) for s in seen if isinstance(s.item, ev.RoleClaim)}
    table = tally.table
    for stratum in tally.strata["claims"]:
        assert isinstance(stratum, frozenset)
        for seat, role in roles.items():
            said = float((seat, stratum) in claimed)
            if role in stratum:  # the usual rate is shared by both parameters
                for name in ("claim_false_hidden", "claim_false_honest"):
                    tally.add(name, stratum, False, said, 1.0)
            elif _hidden(table, role):
                tally.add("claim_false_hidden", stratum, True, said, 1.0)
            else:
                tally.add("claim_false_honest", stratum, True, said, 1.0)


def _speaker_class(item: ev.SeatIs | ev.CheckReport, role: str, table: RoleTable) -> str:
    """Which parameter a statement's speaker answers to (likelihood._two)."""
    if isinstance(item, ev.CheckReport) and table.checker and role == table.checker:
        return "checker"
    return "hidden" if role in table.hidden else "honest"


def _count_statements(tally: _Tally, record: Record, seen: Sequence[Seen]) -> None:
    """Statements per (speaker, target) pair and game, by whether they are true."""
    roles = record.roles
    made = {
        (type(s.item).__name__, s.item.roles, s.item.speaker, s.item.target)
        for s in seen
        if isinstance(s.item, ev.SeatIs | ev.CheckReport)
    }
    table = tally.table
    for stratum in tally.strata["statements"]:
        assert isinstance(stratum, tuple)
        kind, said_roles = stratum
        for speaker, role in roles.items():
            probe: ev.SeatIs | ev.CheckReport = (
                ev.CheckReport(speaker, 0, said_roles)
                if kind == "CheckReport"
                else ev.SeatIs(speaker, 0, said_roles)
            )
            who = _speaker_class(probe, role, table)
            for target in record.targets(speaker):
                true = roles[target] in said_roles
                said = float((kind, said_roles, speaker, target) in made)
                if who == "checker":
                    tally.add("check_false_checker", stratum, not true, said, 1.0)
                elif who == "hidden":
                    tally.add("said_true_hidden", stratum, true, said, 1.0)
                else:
                    tally.add("said_false_honest", stratum, not true, said, 1.0)


def _count_votes(tally: _Tally, record: Record, seen: Sequence[Seen]) -> None:
    """Promises per (speaker, target) pair and game; ballots per ballot cast and
    seat it could name. Unusual: an honest voter's honest target, a hidden
    voter's hidden one."""
    roles, table = record.roles, tally.table

    def add(voter: int, named: frozenset[int], target: int | None, kind: str) -> None:
        hidden_voter = _hidden(table, roles[voter])
        name = "vote_hidden_partner" if hidden_voter else "vote_honest_wrong"
        for t in named:
            unusual = _hidden(table, roles[t]) == hidden_voter
            tally.add(name, kind, unusual, float(t == target), 1.0)

    promised = {(s.item.speaker, s.item.target) for s in seen if isinstance(s.item, ev.VotePromise)}
    for speaker in roles:  # every game: a stratum without promises has no base rate
        for t in record.targets(speaker):
            add(speaker, frozenset({t}), t if (speaker, t) in promised else None, "promise")
    for s in seen:
        if isinstance(s.item, ev.Ballot):
            living = s.living or frozenset(roles)
            add(s.item.voter, living - {s.item.voter}, s.item.target, "ballot")


def _count_kills(tally: _Tally, record: Record, seen: Sequence[Seen]) -> None:
    """Night victims per kill and living seat: unusual, a hidden victim."""
    for s in seen:
        if isinstance(s.item, ev.Killed):
            for seat in s.living or frozenset(record.roles):
                hidden = _hidden(tally.table, record.roles[seat])
                tally.add("killed_hidden", "kill", hidden, float(seat == s.item.target), 1.0)


def to_toml(fitted: Fit, header: str = "") -> str:
    """``fitted`` in ``behaviour.toml``'s format, each line's note as a comment."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for e in fitted.estimates:
        counts = f"O = {e.observed:g}, E = {e.expected:.1f}"
        lines.append(f"{e.name} = {e.value:.4g}  # {e.note}; {counts}")
    return "\n".join(lines) + "\n"

"""Engine-verified statements: one row per claim, labelled against the hidden
state (docs/study-reference.md, "Statements: who lied").

``label``:

* ``true``: the claim holds in the deal (a promise: the speaker's next ballot
  that day went to the seat promised);
* ``lie``: it does not, and the speaker's own view (:mod:`.views`: the events
  that seat could see before speaking) ruled it out: a role it knows it lacks,
  a seat its team list, check or a reveal showed otherwise, a check it never
  saw, a promise it broke while the seat was on the ballot;
* ``error``: it does not, and the speaker's view left it possible;
* ``unknowable``: the hidden state does not settle it (a promise whose vote
  never came that day or did not offer the seat; a protection of a seat that
  made no day-1 claim).

Each row also says who heard the claim (the living seats that could see the
statement), each listener's next ballot that day, how many went along with
the claim, and the mean shift of the listeners' probed belief that the claim
is true, where a probe sits right before and right after it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.analysis.claims import Claim, claims_of, label_of
from sandbox.analysis.tables import _quiet, belief_rows
from sandbox.analysis.views import Knowledge
from sandbox.core.statements import StatementRules
from sandbox.deduction.tables import RoleTable, load_table
from sandbox.games import registry
from sandbox.transcript import EventRow, Transcript
from sandbox.transcript.sides import role_group

Row = dict[str, Any]
LABELS = ("true", "lie", "error", "unknowable")

# Column -> type, so an empty table still has its columns and types.
COLUMNS: Mapping[str, str] = {
    "game": "string",
    "game_id": "string",
    "study": "string",
    "cell": "string",
    "variant": "string",
    "seq": "Int64",
    "kind": "string",
    "seat": "Int64",
    "contestant": "string",
    "role": "string",
    "side": "string",
    "day": "Int64",
    "claim_type": "string",
    "claim": "string",
    "target": "Int64",
    "roles": "string",
    "source": "string",
    "label": "string",
    "view": "string",
    "heard_by": "string",
    "listeners": "Int64",
    "next_ballots": "string",
    "voted": "Int64",
    "followed": "Int64",
    "belief_listeners": "Int64",
    "belief_shift": "Float64",
}


def rules_of(variant: str) -> StatementRules | None:
    """The variant's statement rules (``Variant.research.statements()``); None
    for a variant that declares none or is not registered."""
    found = registry.find_variant(variant)
    return found.research.statements() if found is not None else None


@dataclass(frozen=True)
class Hearing:
    """One statement as its listeners met it: event ``index`` of the game,
    the ``speaker``, the living seats that ``heard`` it, each one's next
    ballot that day (event index, target; None: none cast), and its claims,
    each with its label and what the speaker's view said of it."""

    index: int
    day: int
    speaker: int
    heard: list[int]
    ballots: dict[int, tuple[int, int | None] | None]
    judged: list[tuple[Claim, str, str]]
    table: RoleTable


def hearings(game: Transcript[EventRow]) -> Iterator[Hearing]:
    """Every statement of ``game``, claims or none (nothing for a variant
    without statement rules or a role table in sandbox/deduction/tables)."""
    rules = rules_of(game.variant)
    try:
        table = load_table(game.variant)
    except ValueError:
        return
    if rules is None:
        return
    views = {seat: Knowledge(game, seat, table, rules) for seat in game.roles}
    day = 0
    for index, event in enumerate(game.events):
        if isinstance(event.get("day"), int):
            day = int(event["day"])
        if str(event.get("kind")) in rules.text and event.get("seat") in views:
            speaker = int(event["seat"])
            view = views[speaker]
            view.own_card(game.roles[speaker])  # a seat always knows its own card
            heard = _listeners(game, index, speaker)
            ballots = {s: _next_ballot(game, rules, index, s, day) for s in heard}
            judged = [
                (claim, *judge(claim, game, index, view, day))
                for claim in claims_of(game, index, table, rules)
            ]
            yield Hearing(index, day, speaker, heard, ballots, judged, table)
        for seat, knowledge in views.items():
            if game.seen_by(index, seat):
                knowledge.add(event)


def statement_rows(game: Transcript[EventRow]) -> list[Row]:
    """One row per claim of every statement in ``game``."""
    truth, sides, who, study = game.roles, game.sides, game.contestants, game.study
    probes = probes_of(game)
    rows: list[Row] = []
    for hearing in hearings(game):
        event, speaker, heard = game.events[hearing.index], hearing.speaker, hearing.heard
        ballots, table = hearing.ballots, hearing.table
        for claim, label, seen in hearing.judged:
            shift = _belief_shift(game, probes, hearing.index, heard, claim)
            rows.append(
                {
                    "game": game.game_id,
                    "game_id": game.game_id,
                    "study": study.get("name"),
                    "cell": study.get("cell"),
                    "variant": game.variant,
                    "seq": int(event.get("seq", hearing.index)),
                    "kind": event.get("kind"),
                    "seat": speaker,
                    "contestant": who.get(speaker),
                    "role": truth[speaker],
                    "side": sides.get(speaker),
                    "day": hearing.day,
                    "claim_type": claim.kind,
                    "claim": _value(claim, table),
                    "target": claim.target,
                    "roles": "|".join(sorted(claim.roles)),
                    "source": claim.source,
                    "label": label,
                    "view": seen,
                    "heard_by": json.dumps(heard),
                    "listeners": len(heard),
                    "next_ballots": json.dumps({str(s): b[1] for s, b in ballots.items() if b}),
                    "voted": sum(1 for b in ballots.values() if b),
                    "followed": _followed(claim, ballots, table),
                    "belief_listeners": shift[0],
                    "belief_shift": shift[1],
                }
            )
    return rows


def judge(
    claim: Claim,
    game: Transcript[EventRow],
    index: int,
    view: Knowledge,
    day: int,
) -> tuple[str, str]:
    """(label, what the view said: "confirms", "contradicts" or "open")."""
    table, rules = view.table, view.rules
    if claim.kind == "promise":
        return _judge_promise(claim, game, rules, index, day)
    if not claim.roles or claim.target not in game.roles:
        return "unknowable", "open"
    if claim.kind == "check" and not _checked(game, rules, index, claim, table):
        # the speaker is not the checker, or never saw a check of that seat:
        # it knows no such check exists (WW-10, KG-4)
        return "lie", "contradicts"
    possible = view.support().get(claim.target, table.every)
    seen = (
        "contradicts"
        if not possible & claim.roles
        else "confirms"
        if possible <= claim.roles
        else "open"
    )
    if game.roles[claim.target] in claim.roles:
        return "true", seen
    return ("lie" if seen == "contradicts" else "error"), seen


def _checked(
    game: Transcript[EventRow], rules: StatementRules, index: int, claim: Claim, table: RoleTable
) -> bool:
    """Whether the speaker holds the checker role and saw a check of the target
    before speaking (a check result it saw: KG-4's police share theirs)."""
    if not table.checker or game.roles.get(claim.speaker) != table.checker:
        return False
    for i in range(index):
        field = rules.checks.get(str(game.events[i].get("kind")))
        if field and game.events[i].get(field) == claim.target and game.seen_by(i, claim.speaker):
            return True
    return False


def _judge_promise(
    claim: Claim, game: Transcript[EventRow], rules: StatementRules, index: int, day: int
) -> tuple[str, str]:
    ballot = _next_ballot(game, rules, index, claim.speaker, day)
    if ballot is None:
        return "unknowable", "open"
    at, target = ballot
    if target == claim.target:
        return "true", "confirms"
    candidates = _candidates(game, rules, at)
    if candidates is not None and claim.target not in candidates:
        return "unknowable", "open"  # the seat was not on the ballot
    # the speaker cast the ballot itself: breaking the promise was its own doing
    return "lie", "contradicts"


def _candidates(game: Transcript[EventRow], rules: StatementRules, at: int) -> set[int] | None:
    """The candidates of the vote whose ballots are event ``at`` (as last announced)."""
    for event in reversed(game.events[:at]):
        if str(event.get("kind")) in rules.candidates and event.get("candidates"):
            return {int(c) for c in event["candidates"]}
    return None


def _next_ballot(
    game: Transcript[EventRow], rules: StatementRules, index: int, seat: int, day: int
) -> tuple[int, int | None] | None:
    """(event index, target or None for an abstention) of ``seat``'s first
    ballot after event ``index`` on the same day; None if it cast none."""
    for at in range(index + 1, len(game.events)):
        event = game.events[at]
        if event.get("kind") not in rules.ballots:
            continue
        if event.get("day") != day:
            return None
        cast = dict(event.get("ballots") or {})
        if str(seat) in cast:
            target = cast[str(seat)]
            return at, None if target is None else int(target)
    return None


def _listeners(game: Transcript[EventRow], index: int, speaker: int) -> list[int]:
    """The living seats other than the speaker that could see event ``index``."""
    dead = dead_before(game, index)
    return [
        s for s in sorted(game.roles) if s != speaker and s not in dead and game.seen_by(index, s)
    ]


def dead_before(game: Transcript[EventRow], index: int) -> set[int]:
    """The seats dead before event ``index`` (``VariantInfo.death_fields``)."""
    variant = registry.find_variant(game.variant)
    fields = variant.info.death_fields if variant is not None else {}
    dead: set[int] = set()
    for event in game.events[:index]:
        field = fields.get(str(event.get("kind")))
        if field and isinstance(event.get(field), int):
            dead.add(int(event[field]))
    return dead


def follows(claim: Claim, target: int | None, table: RoleTable) -> bool | None:
    """Whether a ballot for ``target`` (None: an abstention) went along with
    the claim: on the seat accused (or said to hold a hidden role) or
    promised, off a seat vouched for or claiming an honest role. None where a
    ballot says nothing of the claim (no hidden roles, no roles, mixed roles)."""
    if claim.kind == "promise":
        return target == claim.target
    if not table.hidden or not claim.roles:
        return None
    if claim.roles <= table.hidden:
        return target == claim.target
    if not claim.roles & table.hidden:
        return target not in (None, claim.target)
    return None


def _followed(
    claim: Claim, ballots: Mapping[int, tuple[int, int | None] | None], table: RoleTable
) -> int | None:
    """Listeners whose next ballot went along with the claim (:func:`follows`)."""
    if follows(claim, None, table) is None:  # whether it can says nothing of the target
        return None
    return sum(1 for b in ballots.values() if b and follows(claim, b[1], table))


Dist = dict[int, dict[str, float]]


def probes_of(game: Transcript[EventRow]) -> dict[int, list[tuple[int, Dist]]]:
    """seat -> [(seq, {target: distribution})] in game order."""
    found: dict[tuple[int, int], Dist] = {}
    for row in belief_rows(game):
        if row["seq"] is not None:
            dist = json.loads(row["distribution"])
            if dist:
                found.setdefault((row["seat"], row["seq"]), {})[row["target"]] = dist
    out: dict[int, list[tuple[int, Dist]]] = {}
    for (seat, seq), dists in sorted(found.items(), key=lambda kv: kv[0][1]):
        out.setdefault(seat, []).append((seq, dists))
    return out


def _belief_shift(
    game: Transcript[EventRow],
    probes: Mapping[int, Sequence[tuple[int, Dist]]],
    index: int,
    heard: Iterable[int],
    claim: Claim,
) -> tuple[int, float | None]:
    """(listeners, mean of their :func:`listener_shift`) over the listeners
    it is known for."""
    shifts = [
        shift
        for listener in heard
        if (shift := listener_shift(game, probes, index, listener, claim)) is not None
    ]
    return len(shifts), (round(sum(shifts) / len(shifts), 6) if shifts else None)


def probed_around(
    game: Transcript[EventRow],
    probes: Mapping[int, Sequence[tuple[int, Dist]]],
    index: int,
    listener: int,
) -> bool:
    """Whether ``listener`` was probed right before and right after event
    ``index`` with nothing else it saw in between."""
    series = probes.get(listener, ())
    before = [seq for seq, _ in series if seq <= index]
    after = [seq for seq, _ in series if seq > index]
    return bool(before and after) and _quiet(game, listener, before[-1], after[0], index)


def listener_shift(
    game: Transcript[EventRow],
    probes: Mapping[int, Sequence[tuple[int, Dist]]],
    index: int,
    listener: int,
    claim: Claim,
) -> float | None:
    """P_after(claim true) − P_before(claim true) for one listener probed about
    the target right before and right after the statement at event ``index``,
    with nothing else it saw in between (as "Persuasion per speech"); None
    otherwise, or for a claim without roles. ``probes``: :func:`probes_of`."""
    if not claim.roles:
        return None
    series = probes.get(listener, ())
    before = [p for p in series if p[0] <= index and claim.target in p[1]]
    after = [p for p in series if p[0] > index and claim.target in p[1]]
    if not before or not after:
        return None
    (start, old), (end, new) = before[-1], after[0]
    if not _quiet(game, listener, start, end, index):
        return None
    groups = {role_group(r) for r in claim.roles}
    p_old = sum(v for k, v in old[claim.target].items() if k in groups)
    p_new = sum(v for k, v in new[claim.target].items() if k in groups)
    return p_new - p_old


def _value(claim: Claim, table: RoleTable) -> str:
    """The claim's value: the role claimed, the seat accused, vouched for or
    promised, "<seat> <roles>" for a check."""
    if claim.kind == "role":
        return label_of(claim.roles, table) if claim.roles else ""
    if claim.kind == "check":
        return f"{claim.target} {label_of(claim.roles, table)}"
    return str(claim.target)


def statements(games: Iterable[Transcript[EventRow]]) -> list[Row]:
    return [row for game in games for row in statement_rows(game)]


def write_statements(games: Sequence[Transcript[EventRow]], out: Path, fmt: str) -> Path:
    """``statements.<fmt>`` (``csv`` or ``parquet``) in ``out``: one row per
    claim, with the declared columns and types even when no game has a claim."""
    rows = statements(games)
    path = out / f"statements.{fmt}"
    if fmt == "csv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(COLUMNS))
            writer.writeheader()
            writer.writerows(rows)
    else:
        import pandas as pd

        frame = pd.DataFrame(rows, columns=list(COLUMNS)).astype(dict(COLUMNS))
        frame.to_parquet(path, index=False)
    return path

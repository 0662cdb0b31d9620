"""``sandbox whatif``: an intervention on one saved game, played K times with the
control beside it, and its effect on the outcomes (``sandbox whatif``).

The branches are played by :mod:`sandbox.what_if.branches`; their outcomes and
the effect's interval come from :mod:`sandbox.analysis.effects` (formulas in
docs/studies.md, "What if: interventions and ablations").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.analysis.effects import branch_outcomes, effects
from sandbox.session.driver import run_sync
from sandbox.transcript import read_game
from sandbox.what_if.branches import Branch, OnBranch, check_branches, run_arms
from sandbox.what_if.intervention import CONTROL, Intervention, Prepared, prepare

DEFAULT_BRANCHES = 10


@dataclass
class WhatIfResult:
    """Both arms' branches and the effect per outcome."""

    source: Path
    at: int
    intervention: Intervention
    out: Path
    against: list[int]
    branches: list[Branch] = field(default_factory=list)
    effects: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "transcript": str(self.source),
            "at": self.at,
            "intervention": self.intervention.to_json(),
            "out": str(self.out),
            "branches": len([b for b in self.branches if b.arm == CONTROL]),
            "played_now": sum(1 for b in self.branches if b.played),
            "against": self.against,
            "effects": self.effects,
        }


def default_out(prepared: Prepared) -> Path:
    source = prepared.source
    return source.parent / f"whatif-{source.stem}-{prepared.arm}-at{prepared.at}"


def default_against(prepared: Prepared) -> list[int]:
    """The seats whose ballots are counted by default: the changed speech's
    accusations, or a changed decision's old and new targets."""
    if prepared.accused:
        return sorted(set(prepared.accused))
    ivn = prepared.intervention
    if ivn.kind == "change_decision" and prepared.decision_seq is not None:
        old = getattr(prepared.transcript.events[prepared.decision_seq], "payload", {})
        targets = {old.get("target"), ivn.fields.get("target")}
        return sorted(t for t in targets if isinstance(t, int))
    return []


def measure(
    prepared: Prepared, branches: Sequence[Branch], against: Sequence[int]
) -> list[dict[str, Any]]:
    """The effect rows of the intervention arm against the control."""
    per_arm: dict[str, list[dict[str, float]]] = {}
    for branch in sorted(branches, key=lambda b: (b.arm, b.branch_seed)):
        game = read_game(branch.path)
        outcomes = branch_outcomes(game, against, prepared.speaker)
        per_arm.setdefault(branch.arm, []).append(outcomes)
    return effects(per_arm.get(prepared.arm, []), per_arm.get(CONTROL, []))


def whatif(
    transcript: str | Path,
    intervention: Intervention,
    *,
    at: int | None = None,
    branches: int = DEFAULT_BRANCHES,
    out: str | Path | None = None,
    jobs: int = 1,
    against: Sequence[int] | None = None,
    on_branch: OnBranch | None = None,
) -> WhatIfResult:
    """Play ``branches`` branches of the control and of ``intervention`` from event
    ``at`` of ``transcript`` (default: the step after the changed event) and
    measure the effect. Finished branches already in ``out`` are reused.
    Bad input (a seq out of range, an event that is not a speech, ...) is a
    SessionError with a one-line message."""
    check_branches(branches)
    prepared = prepare(Path(transcript), intervention, at)
    return run_whatif(prepared, branches, out, jobs, against, on_branch)


def run_whatif(
    prepared: Prepared,
    branches: int,
    out: str | Path | None = None,
    jobs: int = 1,
    against: Sequence[int] | None = None,
    on_branch: OnBranch | None = None,
) -> WhatIfResult:
    """:func:`whatif` for an intervention already checked (``prepare``)."""
    folder = Path(out) if out is not None else default_out(prepared)
    seats = list(against) if against is not None else default_against(prepared)
    played = run_sync(run_arms(prepared, branches, folder, jobs, on_branch or (lambda b: None)))
    ivn = prepared.intervention
    result = WhatIfResult(prepared.source, prepared.at, ivn, folder, seats, played)
    result.effects = measure(prepared, played, seats)
    return result

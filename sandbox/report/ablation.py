"""The report's ablation section (``sandbox ablate``): the causal effect of a
study's speeches per speaker's contestant and side, next to the observational
persuasion per speech, as a table and a chart. The results are the
``ablation.json`` that ``sandbox ablate`` writes into the study's folder."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sandbox.report.charts import figure_bars

RESULTS = "ablation.json"
HEAD = ["arm", "speaker", "outcome", "causal effect", "95% CI", "speeches", "observed Δp/speech"]
CHART_OUTCOME = "votes_for_accused"


def find_ablation(paths: Iterable[Path]) -> dict[str, Any] | None:
    """The ablation results saved in the first folder given that holds them."""
    for path in paths:
        found = (path if path.is_dir() else path.parent) / RESULTS
        if found.is_file():
            data = json.loads(found.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else None
    return None


def _ci(ci: Sequence[float] | None) -> str:
    return "–" if not ci else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _observed(fig: Mapping[str, Any] | None) -> str:
    if not fig or fig.get("value") is None:
        return "–"
    return f"{fig['value']:+.3f} {_ci(fig.get('ci95'))}"


def ablation_rows(results: Mapping[str, Any] | None) -> list[list[str]]:
    if not results:
        return []
    observed = results.get("observational") or {}
    rows = []
    for arm, per_outcome in (results.get("effects") or {}).items():
        for outcome, groups in per_outcome.items():
            for key, label in (("by_contestant", ""), ("by_side", "side ")):
                for who, fig in groups[key].items():
                    if fig.get("value") is None:
                        continue
                    seen = _observed(observed.get(who)) if not label else ""
                    rows.append(
                        [arm, label + who, outcome, f"{fig['value']:+.3f}", _ci(fig["ci95"]),
                         str(fig["n"]), seen]
                    )  # fmt: skip
    return rows


def ablation_chart(results: Mapping[str, Any] | None) -> str | None:
    """The effect of removing a speech on the next vote's ballots against the seats
    it accused, per speaker's contestant (PNG data URI), when measured."""
    arms = (results or {}).get("effects") or {}
    per = (arms.get("remove_speech") or {}).get(CHART_OUTCOME, {}).get("by_contestant") or {}
    if not per:
        return None
    return figure_bars(
        "removing a speech: ballots against the seats it accused",
        per,
        "Δ ballots (95% cluster bootstrap)",
    )

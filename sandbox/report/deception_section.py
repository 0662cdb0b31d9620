"""The report's deceive-and-detect section (issue 39, item 2; docs/study-reference.md,
"Deceive and detect"): each contestant's two ratings with their intervals, a
scatter of one against the other, and their rank correlation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.analysis.deception import deception_rows
from sandbox.report.charts import skill_scatter

DECEPTION_HEAD = ["contestant", "deceive Elo [95% CI] (duels)", "detect Elo [95% CI] (duels)"]


def deception_note(summary: Mapping[str, Any]) -> str:
    """Spearman's ρ between the two ratings with its interval ('' without it)."""
    rho = ((summary.get("deception") or {}).get("rank_correlation")) or {}
    if rho.get("spearman") is None:
        return ""
    return (
        f"Spearman's ρ between deceive and detect: {rho['spearman']} {rho['ci95']} "
        f"over {rho['contestants']} contestants with both ratings."
    )


def deception_chart(summary: Mapping[str, Any]) -> dict[str, str]:
    """The deceive × detect scatter, for contestants rated on both."""
    found = (summary.get("deception") or {}).get("by_contestant") or {}
    both = {n: e for n, e in sorted(found.items()) if e.get("deceive") and e.get("detect")}
    if not both:
        return {}
    return {
        "deception": skill_scatter(
            "deceive against detect (Elo, 95% CI)",
            list(both),
            [(e["deceive"]["elo"], e["detect"]["elo"]) for e in both.values()],
            [(e["deceive"]["elo_ci95"], e["detect"]["elo_ci95"]) for e in both.values()],
            ("deceive Elo", "detect Elo"),
        )
    }


__all__ = ["DECEPTION_HEAD", "deception_chart", "deception_note", "deception_rows"]

"""The report's rating tables beyond the leaderboard: Nash averaging by role,
rule failures, the ratings without the games that hinged on them, and the
cost–rating frontier (with its charts). Each is (head, rows) of text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.report.charts import frontier_scatter

Rows = list[list[str]]


def ci_text(ci: Sequence[float] | None, digits: int) -> str:
    return "–" if not ci else f"[{ci[0]:.{digits}f}–{ci[1]:.{digits}f}]"


def nash_cells(fig: Mapping[str, Any] | None) -> list[str]:
    """A Nash figure as its rating and interval cells."""
    if not fig:
        return ["–", "–"]
    return [f"{fig['nash']:+.3f}", ci_text(fig["nash_ci95"], 3)]


NASH_HEAD = ["player (contestant@side)", "games", "equilibrium weight", "Nash rating", "95% CI"]


def nash_rows(summary: Mapping[str, Any]) -> Rows:
    found = (summary.get("nash") or {}).get("by_role") or {}
    return [
        [who, str(f["games"]), f"{f['weight']:.3f}", *nash_cells(f)]
        for who, f in sorted(found.items(), key=lambda kv: (-kv[1]["nash"], kv[0]))
    ]


def nash_note(summary: Mapping[str, Any]) -> str | None:
    """Why there are no Nash figures (scipy missing), if so."""
    found = summary.get("nash") or {}
    return str(found["unavailable"]) if found.get("unavailable") else None


FAILURE_HEAD = [
    "contestant",
    "games",
    "rule failures",
    "invalid",
    "provider",
    "timeout",
    "games with one",
    "won while an opponent failed",
    "lost with its own",
]


def failure_rows(summary: Mapping[str, Any]) -> Rows:
    found = summary.get("rule_failures") or {}
    rows = []
    for who, f in (found.get("by_contestant") or {}).items():
        reasons = f["by_reason"]
        rows.append(
            [
                who,
                str(f["games"]),
                str(f["failures"]),
                *(str(reasons.get(r, 0)) for r in found.get("reasons", [])),
                str(f["games_with_failure"]),
                str(f["won_hinged"]),
                str(f["lost_hinged"]),
            ]
        )
    return rows


CLEAN_HEAD = [
    "contestant",
    "Elo (all games)",
    "Elo (without)",
    "Δ Elo",
    "μ (all games)",
    "μ (without)",
    "Δ μ",
    "Nash (all)",
    "Nash (without)",
    "Δ Nash",
]


def _delta(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:+.{digits}f}"


def clean_rows(summary: Mapping[str, Any]) -> Rows:
    """Each contestant's ratings over all games and without the games that
    hinged on a losing seat's rule failure, and the change."""
    full = summary.get("ratings") or {}
    found = summary.get("ratings_without_failures") or {}
    clean = found.get("ratings") or {}
    nash_all = (summary.get("nash") or {}).get("by_contestant") or {}
    nash_clean = found.get("nash") or {}
    rows = []
    for who, r in sorted(full.items(), key=lambda kv: -kv[1]["elo"]):
        now = clean.get(who)
        change = (found.get("change") or {}).get(who, {})
        before_nash, after_nash = nash_all.get(who), nash_clean.get(who)
        rows.append(
            [
                who,
                f"{r['elo']:.0f}",
                "–" if now is None else f"{now['elo']:.0f}",
                _delta(change.get("elo"), 0),
                f"{r['openskill_mu']:.2f}",
                "–" if now is None else f"{now['openskill_mu']:.2f}",
                _delta(change.get("openskill_mu"), 2),
                "–" if before_nash is None else f"{before_nash['nash']:+.3f}",
                "–" if after_nash is None else f"{after_nash['nash']:+.3f}",
                _delta(change.get("nash"), 3),
            ]
        )
    return rows


def clean_note(summary: Mapping[str, Any]) -> str:
    found = summary.get("ratings_without_failures") or {}
    rule = (summary.get("rule_failures") or {}).get("rule", "")
    return f"{found.get('excluded', 0)} of {summary.get('rated', 0)} rated games left out: {rule}."


FRONTIER_HEAD = [
    "contestant",
    "Elo [95% CI]",
    "US$ per game",
    "tokens per game",
    "on the $ frontier",
    "on the token frontier",
]


def frontier_rows(summary: Mapping[str, Any]) -> Rows:
    found = (summary.get("frontier") or {}).get("by_contestant") or {}
    return [
        [
            who,
            f"{f['elo']:.0f} {ci_text(f['elo_ci95'], 0)}",
            f"{f['cost_per_game']:.4f}",
            f"{f['tokens_per_game']:.0f}",
            "yes" if f["pareto_cost"] else "no",
            "yes" if f["pareto_tokens"] else "no",
        ]
        for who, f in sorted(found.items(), key=lambda kv: -kv[1]["elo"])
    ]


# The two frontiers: what a game costs, its field in the summary, the axis label.
FRONTIERS = (
    ("cost", "cost_per_game", "US$ per game"),
    ("tokens", "tokens_per_game", "tokens (in + out) per game"),
)


def frontier_charts(summary: Mapping[str, Any]) -> dict[str, str]:
    found = (summary.get("frontier") or {}).get("by_contestant") or {}
    if not found:
        return {}
    names = list(found)
    ratings = [found[n]["elo"] for n in names]
    intervals = [found[n]["elo_ci95"] for n in names]
    return {
        f"frontier-{what}": frontier_scatter(
            f"rating against {what} (filled: Pareto-efficient)",
            names,
            ratings,
            intervals,
            [found[n][per_game] for n in names],
            [found[n][f"pareto_{what}"] for n in names],
            axis,
        )
        for what, per_game, axis in FRONTIERS
    }

"""The report page: leaderboard, Nash averaging by role, rule failures and the
ratings without them, the cost–rating frontier, win rate by side,
head-to-head, metrics, belief probes (calibration, persuasion per speech), cost.

One self-contained HTML file (charts are embedded PNGs, styles inline, no
script, nothing fetched), a Markdown twin for papers, and the leaderboard as CSV.
The page's markup and style sheet are files of :mod:`sandbox.report.assets`.
"""

from __future__ import annotations

import csv
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from sandbox.report.ablation import HEAD as ABLATION_HEAD
from sandbox.report.ablation import ablation_chart, ablation_rows
from sandbox.report.charts import figure_bars, grouped_rates, heatmap, interval_bars
from sandbox.report.deception_section import (
    DECEPTION_HEAD,
    deception_chart,
    deception_note,
    deception_rows,
)
from sandbox.report.ratings_tables import (
    CLEAN_HEAD,
    FAILURE_HEAD,
    FRONTIER_HEAD,
    NASH_HEAD,
    clean_note,
    clean_rows,
    failure_rows,
    frontier_charts,
    frontier_rows,
    nash_cells,
    nash_note,
    nash_rows,
)
from sandbox.report.validity_tables import (
    ANCHOR_HEAD,
    DETECT_HEAD,
    MINIMAFIA_HEAD,
    SEATING_HEAD,
    anchor_note,
    anchor_rows,
    detect_note,
    detect_rows,
    minimafia_note,
    minimafia_rows,
    seating_rows,
    validity_notes,
)

_ASSETS = "sandbox.report.assets"


def _escape(value: Any) -> Markup:
    """Every value the template prints, escaped by the standard library's
    ``html.escape`` rather than markupsafe's: the page escaped quotes as
    ``&quot;``/``&#x27;`` before it had a template, and keeps its bytes."""
    if isinstance(value, Markup):  # a macro's output: markup already made safe
        return value
    return Markup(html.escape(str(value)))


_ENV = Environment(
    loader=PackageLoader(_ASSETS, "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    finalize=_escape,
)


@dataclass(frozen=True)
class Table:
    """A table of the page: its column heads and its rows, all text."""

    head: Sequence[str]
    rows: Sequence[Sequence[str]]


SETUPS_HEAD = ["variant", "game file", "players", "games"]


def _ci(ci: Sequence[float] | None, percent: bool = False, digits: int = 1) -> str:
    if not ci:
        return "–"
    if percent:
        return f"[{ci[0]:.0%}–{ci[1]:.0%}]"
    return f"[{ci[0]:.{digits}f}–{ci[1]:.{digits}f}]"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def leaderboard_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """Contestants by Bradley–Terry Elo, best first."""
    ratings = summary.get("ratings") or {}
    wins = summary.get("win_rates") or {}
    nash = (summary.get("nash") or {}).get("by_contestant") or {}
    rows = []
    for who, r in sorted(ratings.items(), key=lambda kv: -kv[1]["elo"]):
        overall = wins.get(who, {}).get("all", {})
        rows.append(
            [
                who,
                str(r["games"]),
                f"{r['elo']:.0f}",
                _ci(r["elo_ci95"], digits=0),
                f"{r['openskill_mu']:.2f}",
                _ci(r["openskill_mu_ci95"], digits=2),
                f"{r['openskill_ordinal']:.2f}",
                *nash_cells(nash.get(who)),
                f"{_pct(overall.get('rate'))} {_ci(overall.get('ci95'), percent=True)}",
            ]
        )
    return rows


LEADERBOARD_HEAD = [
    "contestant",
    "games",
    "Elo (BT)",
    "Elo 95% CI",
    "OpenSkill μ",
    "μ 95% CI",
    "ordinal μ−3σ",
    "Nash",
    "Nash 95% CI",
    "win rate [95% CI]",
]


def side_rows(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    wins = summary.get("win_rates") or {}
    sides = sorted({s for cells in wins.values() for s in cells if s != "all"})
    rows = [[who] + [_cell_text(cells.get(side)) for side in sides] for who, cells in wins.items()]
    return ["contestant", *sides], rows


def _cell_text(cell: Mapping[str, Any] | None) -> str:
    if not cell:
        return "–"
    return (
        f"{_pct(cell['rate'])} {_ci(cell['ci95'], percent=True)} ({cell['wins']}/{cell['games']})"
    )


def metric_rows(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    metrics = summary.get("metrics") or {}
    players = sorted(
        {p for table in metrics.values() for m in table.values() for p in m["by_contestant"]}
    )
    rows = []
    for variant, table in metrics.items():
        for name, m in table.items():
            if not m["overall"]["n"]:
                continue
            cells = [_figure_text(name, m["by_contestant"].get(p)) for p in players]
            rows.append([f"{variant}: {name}", _figure_text(name, m["overall"]), *cells])
    return ["metric", "all", *players], rows


def _figure_text(name: str, fig: Mapping[str, Any] | None) -> str:
    if not fig or fig["value"] is None:
        return "–"
    if name.endswith("_day"):
        return f"{fig['value']:.2f} {_ci(fig['ci95'], digits=2)}"
    return f"{_pct(fig['value'])} {_ci(fig['ci95'], percent=True)} n={fig['n']}"


def usage_rows(summary: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = [
        "contestant",
        "games",
        "decisions",
        "fallback rate",
        "repair rate",
        "calls",
        "tokens in/out",
        "cost $",
        "cost/game $",
        "median latency s",
    ]
    rows = []
    for who, u in (summary.get("usage") or {}).items():
        latency = u["latency_s_median"]
        rows.append(
            [
                who,
                str(u["games"]),
                str(u["decisions"]),
                _pct(u["fallback_rate"]),
                _pct(u["repair_rate"]),
                str(u["calls"]),
                f"{u['tokens_in']}/{u['tokens_out']}",
                f"{u['cost']:.4f}",
                "–" if u["cost_per_game"] is None else f"{u['cost_per_game']:.4f}",
                "–" if latency is None else f"{latency:.3f}",
            ]
        )
    return head, rows


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _charts(summary: Mapping[str, Any]) -> dict[str, str]:
    charts: dict[str, str] = {}
    wins = summary.get("win_rates") or {}
    if wins:
        sides = sorted({s for cells in wins.values() for s in cells})
        charts["win-rates"] = grouped_rates("win rate by contestant and side", wins, sides)
    if summary.get("head_to_head"):
        charts["head-to-head"] = heatmap("head-to-head (row beats column)", summary["head_to_head"])
    usage = summary.get("usage") or {}
    if usage:
        names = list(usage)
        charts["cost"] = interval_bars(
            "cost per game",
            names,
            [usage[n]["cost_per_game"] for n in names],
            [None] * len(names),
            "US$ per game",
        )
    charts.update(frontier_charts(summary))
    by_day = (summary.get("beliefs") or {}).get("by_day") or {}
    if by_day:
        days = list(by_day)
        charts["belief-accuracy"] = interval_bars(
            "belief accuracy by day (most likely side right)",
            [f"day {d}" for d in days],
            [by_day[d]["accuracy"] for d in days],
            [by_day[d].get("accuracy_ci95") for d in days],
            "share right (95% cluster bootstrap)",
            percent=True,
        )
    speech = (summary.get("speech_persuasion") or {}).get("by_contestant") or {}
    if speech:
        charts["speech-persuasion"] = figure_bars(
            "persuasion per speech, by speaker", speech, "mean Δ p(truth) (95% cluster bootstrap)"
        )
    if chart := ablation_chart(summary.get("ablation")):
        charts["ablation"] = chart
    for variant, table in (summary.get("metrics") or {}).items():
        for name, m in table.items():
            per = m["by_contestant"]
            if not per:
                continue
            charts[f"metric-{variant}-{name}"] = figure_bars(
                f"{variant}: {name}",
                per,
                "value (95% cluster bootstrap)",
                percent=not name.endswith("_day"),
            )
    return charts


def render_html(summary: Mapping[str, Any], title: str) -> str:
    charts = {**_charts(summary), **deception_chart(summary)}
    setups = [
        [s["variant"], s["game_name"], str(s["players"]), str(s["games"])]
        for s in summary.get("setups") or []
    ]
    return _ENV.get_template("report.html").render(
        title=title,
        style=files(_ASSETS).joinpath("static", "report.css").read_text("utf-8"),
        games=summary.get("games", 0),
        rated=summary.get("rated", 0),
        unfinished=summary.get("unfinished", 0),
        duplicates=summary.get("duplicates_skipped", 0),
        warning=summary.get("pooling_warning"),
        charts=charts,
        metric_charts=[(k, k.removeprefix("metric-")) for k in charts if k.startswith("metric-")],
        setups=Table(SETUPS_HEAD, setups),
        leaderboard=Table(LEADERBOARD_HEAD, leaderboard_rows(summary)),
        nash=Table(NASH_HEAD, nash_rows(summary)),
        nash_note=nash_note(summary),
        failures=Table(FAILURE_HEAD, failure_rows(summary)),
        clean=Table(CLEAN_HEAD, clean_rows(summary)),
        clean_note=clean_note(summary),
        frontier=Table(FRONTIER_HEAD, frontier_rows(summary)),
        sides=Table(*side_rows(summary)),
        metrics=Table(*metric_rows(summary)),
        persuasion=Table(PERSUASION_HEAD, persuasion_rows(summary)),
        calibration=Table(CALIBRATION_HEAD, calibration_rows(summary)),
        speech_persuasion=Table(SPEECH_PERSUASION_HEAD, speech_persuasion_rows(summary)),
        usage=Table(*usage_rows(summary)),
        ablation=Table(ABLATION_HEAD, ablation_rows(summary.get("ablation"))),
        validity_notes=validity_notes(summary),
        seating=Table(SEATING_HEAD, seating_rows(summary)),
        minimafia=Table(MINIMAFIA_HEAD, minimafia_rows(summary)),
        minimafia_note=minimafia_note(summary),
        anchor=Table(ANCHOR_HEAD, anchor_rows(summary)),
        anchor_note=anchor_note(summary),
        detect=Table(DETECT_HEAD, detect_rows(summary)),
        detect_note=detect_note(summary),
        deception=Table(DECEPTION_HEAD, deception_rows(summary)),
        deception_note=deception_note(summary),
    )


def persuasion_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    found = summary.get("persuasion") or {}
    rows = []
    for who, fig in (found.get("by_contestant") or {}).items():
        rows.append([who, f"{fig['value']:+.3f}", _ci(fig["ci95"], digits=3), str(fig["n"])])
    return rows


PERSUASION_HEAD = ["speaker", "mean Δ p(truth)", "95% CI", "items"]


def speech_persuasion_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    found = (summary.get("speech_persuasion") or {}).get("by_contestant") or {}
    return [
        [who, f"{fig['value']:+.3f}", _ci(fig["ci95"], digits=3), str(fig["n"]), str(fig["games"])]
        for who, fig in found.items()
    ]


SPEECH_PERSUASION_HEAD = ["speaker", "mean Δ p(truth) per speech", "95% CI", "items", "games"]


def calibration_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    found = (summary.get("beliefs") or {}).get("by_contestant") or {}
    return [
        [
            who,
            str(c["guesses"]),
            _pct(c["accuracy"]),
            f"{c['brier']:.3f}",
            f"{c['log_loss']:.3f}" if c.get("log_loss") is not None else "–",
            f"{c['ece']:.3f}",
        ]
        for who, c in found.items()
    ]


CALIBRATION_HEAD = ["guesser", "guesses", "accuracy", "Brier", "log loss", "ECE"]


def render_markdown(summary: Mapping[str, Any], title: str) -> str:
    side_head, sides = side_rows(summary)
    metric_head, metrics = metric_rows(summary)
    usage_head, usage = usage_rows(summary)
    parts = [f"# {title}", ""]
    if summary.get("pooling_warning"):
        parts += [f"> {summary['pooling_warning']}", ""]
    parts += ["## Leaderboard", "", _md_table(LEADERBOARD_HEAD, leaderboard_rows(summary)), ""]
    parts += _validity_sections(summary)
    parts += _rating_sections(summary)
    parts += ["## Win rate by side", "", _md_table(side_head, sides), ""]
    parts += ["## Behaviour metrics", "", _md_table(metric_head, metrics), ""]
    if persuasion_rows(summary):
        parts += ["## Persuasion", "", _md_table(PERSUASION_HEAD, persuasion_rows(summary)), ""]
    if calibration_rows(summary):
        table = _md_table(CALIBRATION_HEAD, calibration_rows(summary))
        parts += ["## Belief probes", "", table, ""]
    if speech_persuasion_rows(summary):
        rows = speech_persuasion_rows(summary)
        parts += ["## Persuasion per speech", "", _md_table(SPEECH_PERSUASION_HEAD, rows), ""]
    if ablation := ablation_rows(summary.get("ablation")):
        parts += ["## What if: speech ablations", "", _md_table(ABLATION_HEAD, ablation), ""]
    parts += ["## Cost and reliability", "", _md_table(usage_head, usage), ""]
    return "\n".join(parts)


def _validity_sections(summary: Mapping[str, Any]) -> list[str]:
    """The Markdown twin of the validity and Mini-Mafia sections."""
    parts = ["## Validity", ""]
    parts += [f"> {note}" for note in validity_notes(summary)] or ["No validity warning."]
    parts += ["", _md_table(SEATING_HEAD, seating_rows(summary)), ""]
    if rows := anchor_rows(summary):
        parts += [anchor_note(summary), "", _md_table(ANCHOR_HEAD, rows), ""]
    if rows := detect_rows(summary):
        parts += ["## People: which seats were AI?", "", detect_note(summary), ""]
        parts += [_md_table(DETECT_HEAD, rows), ""]
    if rows := deception_rows(summary):
        parts += ["## Deceive and detect", "", deception_note(summary), ""]
        parts += [_md_table(DECEPTION_HEAD, rows), ""]
    if rows := minimafia_rows(summary):
        parts += ["## Mini-Mafia", "", minimafia_note(summary), ""]
        parts += [_md_table(MINIMAFIA_HEAD, rows), ""]
    return parts


def _rating_sections(summary: Mapping[str, Any]) -> list[str]:
    """The Markdown twin of the Nash, rule-failure and frontier sections."""
    parts = ["## Nash averaging by role", ""]
    note = nash_note(summary)
    parts += [note, ""] if note else [_md_table(NASH_HEAD, nash_rows(summary)), ""]
    parts += ["## Rule failures", "", _md_table(FAILURE_HEAD, failure_rows(summary)), ""]
    parts += ["## Ratings without rule failures", "", clean_note(summary), ""]
    parts += [_md_table(CLEAN_HEAD, clean_rows(summary)), ""]
    parts += ["## Cost–rating frontier", "", _md_table(FRONTIER_HEAD, frontier_rows(summary)), ""]
    return parts


def write_report(summary: Mapping[str, Any], out: Path, title: str) -> list[Path]:
    """Write ``out`` (HTML) and, next to it, ``.md`` and ``.leaderboard.csv`` twins."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(summary, title), encoding="utf-8")
    markdown = out.with_suffix(".md")
    markdown.write_text(render_markdown(summary, title), encoding="utf-8")
    table = out.with_suffix(".leaderboard.csv")
    with table.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(LEADERBOARD_HEAD)
        writer.writerows(leaderboard_rows(summary))
    return [out, markdown, table]

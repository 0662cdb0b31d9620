"""Charts for the report, drawn with matplotlib (Agg) and embedded as PNG data URIs."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any


def _figure(width: float, height: float) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=96)


def to_data_uri(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def interval_bars(
    title: str,
    labels: Sequence[str],
    values: Sequence[float | None],
    intervals: Sequence[Sequence[float] | None],
    ylabel: str,
    percent: bool = False,
) -> str:
    """One bar per label with its 95% interval as an error bar."""
    fig, ax = _figure(max(4.0, 0.9 * len(labels) + 2), 3.2)
    shown = [v if v is not None else 0.0 for v in values]
    low = [v - (ci[0] if ci else v) for v, ci in zip(shown, intervals, strict=True)]
    high = [(ci[1] if ci else v) - v for v, ci in zip(shown, intervals, strict=True)]
    ax.bar(range(len(labels)), shown, yerr=[low, high], capsize=4, color="#4c78a8")
    ax.set_xticks(range(len(labels)), labels, rotation=20, ha="right")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if percent:
        ax.set_ylim(0, 1)
    return to_data_uri(fig)


def figure_bars(
    title: str, figures: Mapping[str, Mapping[str, Any]], ylabel: str, percent: bool = False
) -> str:
    """:func:`interval_bars` of figures by name, each ``{"value", "ci95"}`` (a
    metric, a persuasion or an ablation effect per contestant)."""
    names = list(figures)
    values = [figures[n]["value"] for n in names]
    return interval_bars(title, names, values, [figures[n]["ci95"] for n in names], ylabel, percent)


def grouped_rates(
    title: str, rates: Mapping[str, Mapping[str, Mapping[str, Any]]], groups: Sequence[str]
) -> str:
    """Win rate per contestant, one bar per side, with Wilson intervals."""
    fig, ax = _figure(max(4.5, 1.4 * len(rates) + 2), 3.4)
    names = list(rates)
    width = 0.8 / max(1, len(groups))
    for k, group in enumerate(groups):
        xs, ys, low, high = [], [], [], []
        for i, who in enumerate(names):
            cell = rates[who].get(group)
            if not cell or cell["rate"] is None:
                continue
            xs.append(i + k * width)
            ys.append(cell["rate"])
            low.append(cell["rate"] - cell["ci95"][0])
            high.append(cell["ci95"][1] - cell["rate"])
        ax.bar(xs, ys, width, yerr=[low, high], capsize=3, label=group)
    ax.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(names))], names)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return to_data_uri(fig)


def heatmap(title: str, table: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Head-to-head: row contestant's win share against the column contestant."""
    names = sorted(set(table) | {b for row in table.values() for b in row})
    grid = [[table.get(a, {}).get(b, {}).get("rate", float("nan")) for b in names] for a in names]
    fig, ax = _figure(max(3.5, 0.9 * len(names) + 2), max(3.0, 0.8 * len(names) + 1.5))
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_yticks(range(len(names)), names)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if value == value:  # not NaN
                # white on the dark ends of the colour map, black in the pale middle
                ink = "white" if abs(value - 0.5) > 0.3 else "black"
                ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=9, color=ink)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.046)
    return to_data_uri(fig)


def frontier_scatter(
    title: str,
    names: Sequence[str],
    ratings: Sequence[float],
    intervals: Sequence[Sequence[float] | None],
    costs: Sequence[float],
    efficient: Sequence[bool],
    xlabel: str,
) -> str:
    """Rating against cost, one point per contestant with its 95% interval;
    the Pareto-efficient ones filled and joined by the frontier's steps."""
    fig, ax = _figure(5.0, 3.6)
    for name, y, ci, x, on in zip(names, ratings, intervals, costs, efficient, strict=True):
        low, high = (y - ci[0], ci[1] - y) if ci else (0.0, 0.0)
        ax.errorbar(
            [x],
            [y],
            yerr=[[low], [high]],
            fmt="o",
            capsize=3,
            color="#4c78a8" if on else "#9d9d9d",
            markerfacecolor="#4c78a8" if on else "white",
        )
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    # the frontier: efficient points by cost, each step up to the next one
    front = sorted((x, y) for x, y, on in zip(costs, ratings, efficient, strict=True) if on)
    if len(front) > 1:
        ax.step([x for x, _ in front], [y for _, y in front], where="post", color="#4c78a8")
    # few ticks, large or tiny costs as a power of ten: 160000 tokens overlap otherwise
    ax.locator_params(axis="x", nbins=5)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Elo (Bradley–Terry, 95% CI)")
    ax.set_title(title)
    return to_data_uri(fig)


def skill_scatter(
    title: str,
    names: Sequence[str],
    points: Sequence[tuple[float, float]],
    intervals: Sequence[tuple[Sequence[float] | None, Sequence[float] | None]],
    labels: tuple[str, str],
) -> str:
    """One point per contestant, x and y with their 95% intervals as error bars."""
    fig, ax = _figure(4.6, 4.0)
    for name, (x, y), (x_ci, y_ci) in zip(names, points, intervals, strict=True):
        xerr = [[x - x_ci[0]], [x_ci[1] - x]] if x_ci else None
        yerr = [[y - y_ci[0]], [y_ci[1] - y]] if y_ci else None
        ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt="o", capsize=3, color="#4c78a8")
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title)
    return to_data_uri(fig)

"""Cost before spending (``sandbox study FILE --estimate``, ``sandbox batch FILE
--estimate``): a few games of the plan played on the fake provider, with the
real prompts and the real models' token prices, scaled to the whole plan.

How (docs/studies.md, "Estimate"):

1. ``sample`` games of the plan, evenly spread over it (every cell of a study
   when there are as many samples as cells), are played on one fake server in
   this process, with no latency. Each LLM seat keeps its settings and prompts;
   only its transport changes: ``model`` becomes ``fake/legal-random`` and
   ``api_base`` points at the fake server. Each call is priced at the model of
   the agent entry that seats its caller in the plan's own game file
   (``sandbox.session.seating.spec_for`` with the transcript's roles).
   What the real model would change in the prompt is kept: its answer format
   (a JSON schema when litellm says the model takes one, else the schema in
   the prompt) and its context window, when the game file leaves them to
   ``auto``.
2. Per sampled game g: calls C_g, prompt tokens I_g and answer tokens O_g (as
   the fake provider counts them: 4 characters a token), dollars
   D_g = Σ_calls (tokens_in × p_in(model) + tokens_out × p_out(model)) with
   litellm's prices (``sandbox.models.remote.token_prices``; 0 for a model it
   does not price; cached prompt tokens at the full price, so an upper bound
   where the provider discounts its cache), and the sequential calls S_g (per
   runner step, the most calls one seat made, summed over steps).
3. For the N games of the plan: total = N × mean_g(X_g), with the 95% interval
   N × the cluster-bootstrap interval of the mean over the sampled games
   (``sandbox.analysis.intervals``). Hours = N × mean(S_g) × latency ÷ games
   at once ÷ 3600, at an assumed ``latency_s`` per call.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED, cluster_bootstrap
from sandbox.batch.jobs import GameJob, GameResult
from sandbox.transcript import read_transcript

DEFAULT_SAMPLE = 6  # games played to estimate a plan
DEFAULT_LATENCY_S = 2.0  # assumed seconds per call of a real provider, for hours
STAND_IN = "fake/legal-random"

Prices = Callable[[str], tuple[float, float]]  # model -> (US$ per prompt token, per answer token)


@dataclass(frozen=True)
class Figure:
    """A total for the whole plan: the point estimate and its 95% interval."""

    value: float
    low: float
    high: float

    def to_json(self) -> dict[str, float]:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class GameCost:
    """What one sampled game took."""

    calls: int
    tokens_in: int
    tokens_out: int
    dollars: float
    sequential: int


@dataclass
class Estimate:
    games: int  # games of the plan the figures are for
    sampled: list[GameCost]
    calls: Figure
    tokens_in: Figure
    tokens_out: Figure
    dollars: Figure
    hours: Figure
    latency_s: float
    at_once: int
    unpriced: list[str] = field(default_factory=list)  # models with no price (counted $0)
    failed: int = 0  # sampled games that did not finish (left out)

    def to_json(self) -> dict[str, Any]:
        figures = ("calls", "tokens_in", "tokens_out", "dollars", "hours")
        return {
            "games": self.games,
            "sampled": len(self.sampled),
            "failed_samples": self.failed,
            "latency_s": self.latency_s,
            "games_at_once": self.at_once,
            "unpriced": self.unpriced,
            **{name: getattr(self, name).to_json() for name in figures},
        }


# ------------------------------------------------------------------ sample
def sample_jobs(jobs: Sequence[GameJob], k: int) -> list[GameJob]:
    """``k`` jobs evenly spread over the plan (all of them when it has ≤ k)."""
    if len(jobs) <= k:
        return list(jobs)
    step = len(jobs) / k
    return [jobs[int(i * step)] for i in range(k)]


def on_fake(job: GameJob, base_url: str, folder: Path) -> GameJob:
    """The job with every LLM seat's transport on the fake server (see the module
    docstring), played into ``folder``."""
    from sandbox.models.remote import context_window, takes_json_schema

    raw = {**job.raw_config}

    def stand_in(entry: Mapping[str, Any]) -> dict[str, Any]:
        if entry.get("kind") != "llm":
            return dict(entry)
        model = str(entry["model"])
        out = {k: v for k, v in entry.items() if k not in ("api_base", "api_key_env")}
        out["api_base"] = base_url
        if model.startswith("fake/"):
            return out  # a fake policy plays as itself
        out["model"] = STAND_IN
        if out.get("structured", "auto") == "auto":
            out["structured"] = "json_schema" if takes_json_schema(model) else "none"
        if out.get("context_window") is None and (window := context_window(model)):
            out["context_window"] = window
        return out

    raw["default_agent"] = stand_in(raw.get("default_agent") or {})
    raw["agent"] = [stand_in(e) for e in raw.get("agent") or []]
    return replace(job, raw_config=raw, out=str(folder), resume=None)


def seat_models(job: GameJob, roles: Mapping[str, str]) -> dict[int, str]:
    """Each LLM seat's model in the plan's own game file (not the stand-in's)."""
    from sandbox.session.agent_specs import LLMSpec
    from sandbox.session.gamefile import parse_config
    from sandbox.session.seating import spec_for

    loaded = parse_config(job.raw_config)
    models: dict[int, str] = {}
    for seat, role in roles.items():
        spec = spec_for(loaded, int(seat), str(role))
        if isinstance(spec, LLMSpec):
            models[int(seat)] = spec.model
    return models


def cost_of_game(path: Path, job: GameJob, prices: Prices) -> GameCost:
    """One sampled transcript's figures, each call priced at its seat's model."""
    lines = read_transcript(path)
    seat_model = seat_models(job, lines.header.get("roles") or {})
    calls = tokens_in = tokens_out = 0
    dollars = 0.0
    per_seat: Counter[tuple[str, int]] = Counter()
    for call in lines.calls:
        seat = int(call.get("seat") or 0)
        t_in, t_out = int(call.get("tokens_in") or 0), int(call.get("tokens_out") or 0)
        p_in, p_out = prices(seat_model.get(seat, ""))
        calls += 1
        tokens_in += t_in
        tokens_out += t_out
        dollars += t_in * p_in + t_out * p_out
        per_seat[(str(call.get("request_id", "")).split(".", 1)[0], seat)] += 1
    longest: dict[str, int] = {}
    for (step, _), count in per_seat.items():
        longest[step] = max(longest.get(step, 0), count)
    return GameCost(calls, tokens_in, tokens_out, dollars, sum(longest.values()))


# --------------------------------------------------------------- estimate
def estimate(
    jobs: Sequence[GameJob],
    games: int,
    at_once: int,
    *,
    sample: int = DEFAULT_SAMPLE,
    latency_s: float = DEFAULT_LATENCY_S,
    prices: Prices | None = None,
) -> Estimate:
    """Play ``sample`` of ``jobs`` on the fake provider and scale to ``games``
    games played ``at_once`` at a time (see the module docstring)."""
    from sandbox.models.fake import FakeLLMServer
    from sandbox.models.remote import token_prices

    price = prices or token_prices
    picked = sample_jobs(jobs, sample)
    costs: list[GameCost] = []
    seen: set[str] = set()
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        moved = [on_fake(job, server.base_url, Path(tmp)) for job in picked]
        results = asyncio.run(play_all(moved))
        by_ident = {job.ident: job for job in picked}
        for result in (r for r in results if r.finished):
            path = Path(result.transcript or "")
            costs.append(cost_of_game(path, by_ident[result.ident], price))
            seen.update(
                seat_models(by_ident[result.ident], read_transcript(path).header["roles"]).values()
            )
        failed = len(picked) - len(costs)
    if any(r.interrupted for r in results):
        raise KeyboardInterrupt
    if not costs:
        raise EstimateError("no sampled game finished on the fake provider")
    # fake and local models are free; any other model without a price is named
    unpriced = sorted(m for m in seen if not is_free(m) and price(m) == (0.0, 0.0))

    def total(values: Sequence[float], scale: float = 1.0) -> Figure:
        mean = sum(values) / len(values)
        rng = random.Random(BOOTSTRAP_SEED)
        low, high = cluster_bootstrap([(v, 1) for v in values], rng) or (mean, mean)
        return Figure(games * mean * scale, games * low * scale, games * high * scale)

    hour_scale = latency_s / max(1, at_once) / 3600
    return Estimate(
        games,
        costs,
        total([c.calls for c in costs]),
        total([c.tokens_in for c in costs]),
        total([c.tokens_out for c in costs]),
        total([c.dollars for c in costs]),
        total([c.sequential for c in costs], hour_scale),
        latency_s,
        at_once,
        unpriced,
        failed,
    )


async def play_all(jobs: Sequence[GameJob]) -> list[GameResult]:
    """The sampled games at once on this process's event loop (they only wait
    on the fake server, as games in flight on a worker do)."""
    from sandbox.batch.run import play_one_async

    return list(await asyncio.gather(*(play_one_async(job) for job in jobs)))


def is_free(model: str) -> bool:
    from sandbox.models.local import is_local_model

    return model.startswith("fake/") or is_local_model(model)


class EstimateError(ValueError):
    """The plan could not be estimated (one error line)."""


def estimate_lines(est: Estimate) -> list[str]:
    """The estimate as the command prints it."""

    def row(label: str, fig: Figure, fmt: str) -> str:
        low, high = fmt.format(fig.low), fmt.format(fig.high)
        return f"  {label:11} {fmt.format(fig.value)}  [{low} – {high}]"

    lines = [
        f"estimate for {est.games} games, from {len(est.sampled)} played on the fake provider "
        "(real prompts, litellm's prices; 95% bootstrap intervals):",
        row("calls", est.calls, "{:,.0f}"),
        row("tokens in", est.tokens_in, "{:,.0f}"),
        row("tokens out", est.tokens_out, "{:,.0f}"),
        row("dollars", est.dollars, "${:,.4f}"),
        row("hours", est.hours, "{:,.2f}"),
        f"  (hours at {est.latency_s:g} s a call, {est.at_once} games at once)",
    ]
    if est.unpriced:
        lines.append(f"  no price in litellm's table (counted $0): {', '.join(est.unpriced)}")
    if est.failed:
        lines.append(f"  {est.failed} sampled game(s) did not finish and are left out")
    return lines

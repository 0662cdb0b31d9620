"""LLM-seat overhead against the fake provider at a fixed latency.

For each fake game file it plays one game with every call taking exactly
``--latency`` seconds at the fake server, and prints:

- wall time ÷ critical-path bound, where the bound is the sum over the
  runner's batches of the longest sequential chain of calls in that batch
  (a sealed simultaneous step costs one call if nobody needed a repair or a
  retry; an ordered speech costs one call) × latency. Target: ≤ 1.03 (idle).
- CPU per call: this process's CPU time (all its threads: prompt rendering,
  schemas, the HTTP client, JSON, the transcript written to a temporary file)
  ÷ HTTP calls, over the game. Target: ≤ 10 ms on an idle machine.
- calls, decisions, prompt tokens (approximate: the fake counts 4 chars a token)
- prefix reuse per seat: tokens of each prompt that start one of the same
  seat's earlier prompts (target ≥ 90%), next to the fake provider's cached
  tokens (equal on each seat's later prompts; on first prompts its shared cache
  also finds the rules text other seats sent), and what was not reused: each
  seat's first prompt, record lines new since its last prompt, and the tail
  after the record (the situation now and the question)
- the share of prompt characters in the stable prefix (the system message:
  rules, role card), and two finer figures for prefix caches:
  * shared by all seats: the system text identical for every seat (primer,
    rules) — reusable from any other seat's call;
  * reusable: per call, the longest prefix it shares with the same seat's
    previous call or with the all-seat text — what a longest-prefix cache
    (llama.cpp's, most providers') can skip reading.

Run: .venv/bin/python bench/bench_llm.py [--latency 0.5] [--games killer_fake]
     [--style compact --history 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.core.game import Game
from sandbox.core.seat import AgentAnswer
from sandbox.models import remote
from sandbox.models.endpoints import ROUTE_ENV
from sandbox.models.fake.server import common_prefix
from sandbox.session.agent_specs import AgentSpec
from sandbox.session.gamefile import LoadedConfig, load_config
from sandbox.session.runner import Runner
from sandbox.session.seating import build_agents
from sandbox.transcript import TranscriptWriter

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@dataclass
class Figures:
    batches: int = 0
    chain_calls: int = 0  # calls on the critical path
    call_records: list[dict[str, Any]] = field(default_factory=list)
    cpu_s: float = 0.0


class MeasuringRunner(Runner):
    """The runner's own loop, also counting each batch's longest chain of calls."""

    figures: Figures

    async def run(self) -> Any:
        self.figures = Figures()
        self._flush()
        while not self.game.over:
            requests = self.game.pending()
            answers: list[AgentAnswer] = await asyncio.gather(*(self._ask(r) for r in requests))
            self.figures.batches += 1
            self.figures.chain_calls += max((len(a.calls) for a in answers), default=0)
            for request, answer in zip(requests, answers, strict=True):
                self.figures.call_records.extend({**c, "seat": request.seat} for c in answer.calls)
                self._submit(request, answer)
            self._maybe_abort()
            self._flush()
        return self.game.outcome()


def point_at(
    loaded: LoadedConfig, base_url: str, style: str | None = None, history: int | None = None
) -> LoadedConfig:
    """The same game file, its fake seats sent to ``base_url`` with no concurrency
    cap (and, if given, another prompt style and history limit)."""

    def moved(spec: AgentSpec) -> AgentSpec:
        return spec.model_copy(update={"api_base": base_url, "concurrency": 64})

    llm = loaded.file.llm
    if style is not None:
        llm = llm.model_copy(update={"prompt_style": style, "history_items": history})
    file = loaded.file.model_copy(
        update={
            "default_agent": moved(loaded.file.default_agent),
            "agent": [moved(a) for a in loaded.file.agent],
            "llm": llm,
        }
    )
    return LoadedConfig(file, loaded.variant, loaded.game_config, loaded.source)


@contextmanager
def fake_in_subprocess(latency: float) -> Iterator[str]:
    """The fake server in its own process (as a remote provider would be), so its
    work does not compete with the seats for this process's GIL."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE.format(latency=latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://\S+/v1", line)
        if match is None:
            raise RuntimeError(f"fake server did not start: {line!r}")
        yield match.group(0)
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C, then a kill if it has not ended: cleanup must never hide the error."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


SERVE = (
    "from sandbox.models.fake import run_server; "
    "run_server('127.0.0.1', 0, 'legal-random', {latency})"
)


async def play(
    name: str, latency: float, seed: int, style: str | None, history: int | None
) -> None:
    with fake_in_subprocess(latency) as base_url, tempfile.TemporaryDirectory() as tmp:
        loaded = point_at(load_config(CONFIGS / f"{name}.toml"), base_url, style, history)
        game = Game.new(loaded.variant, loaded.game_config, seed)
        agents = build_agents(loaded, game.roles(), seed)
        with TranscriptWriter(Path(tmp) / "game.jsonl") as writer:
            runner = MeasuringRunner(game, agents, writer, abort_share=None)
            if os.environ.get(ROUTE_ENV) == "litellm":
                remote.litellm_module()  # the one-off import (seconds) is not per call
            cpu, started = time.process_time(), time.perf_counter()
            await runner.run()
            wall = time.perf_counter() - started
            runner.figures.cpu_s = time.process_time() - cpu
        for agent in agents.values():
            await agent.close()
    report(name, latency, wall, runner, seed)


def report(name: str, latency: float, wall: float, runner: MeasuringRunner, seed: int) -> None:
    figures, stats = runner.figures, runner.stats
    bound = figures.chain_calls * latency
    prompt_chars = sum(sum(len(m["content"]) for m in c["messages"]) for c in figures.call_records)
    prefix_chars = sum(int(c.get("prefix_chars") or 0) for c in figures.call_records)
    outcome = runner.game.outcome()
    route = os.environ.get(ROUTE_ENV) or "openai"
    print(
        f"== {name} seed {seed} (latency {latency:.2f}s, route {route}, "
        f"ended: {outcome.reason if outcome else '?'})"
    )
    print(f"  decisions {stats.decisions}, calls {stats.calls}, batches {figures.batches}")
    print(
        f"  wall {wall:.2f}s, critical-path bound {bound:.2f}s "
        f"({figures.chain_calls} sequential calls), "
        f"ratio {wall / max(bound, 1e-9):.3f} (target <= 1.03)"
    )
    print(f"  overhead per sequential call {(wall - bound) / figures.chain_calls * 1000:.1f} ms")
    print(
        f"  prompt tokens {stats.tokens_in} ({stats.tokens_in / max(1, stats.calls):.0f}/call), "
        f"completion tokens {stats.tokens_out}"
    )
    print(
        f"  CPU per call {figures.cpu_s / max(1, stats.calls) * 1000:.1f} ms "
        f"(process CPU {figures.cpu_s:.2f}s over {stats.calls} calls; target <= 10 ms)"
    )
    if remote.litellm_import_s is not None:
        print(f"  litellm import (once, before the game): {remote.litellm_import_s:.1f}s")
    reuse = seat_reuse(figures.call_records)
    tokens = max(1, reuse.tokens)
    print(
        f"  prefix reuse per seat {reuse.own / tokens:.1%} of {reuse.tokens} prompt tokens "
        f"(target >= 90%); fake provider's cached tokens {reuse.cached} "
        f"({reuse.cached / tokens:.1%})"
    )
    later = max(1, reuse.later_calls)
    print(
        f"  not reused: seats' first prompts {reuse.first / tokens:.1%}, "
        f"new record lines {reuse.new_record / tokens:.1%} ({reuse.new_record / later:.0f} "
        f"tokens/call), now + question {reuse.tail / tokens:.1%} ({reuse.tail / later:.0f} "
        f"tokens/call), other {reuse.other / tokens:.1%}; "
        f"{reuse.tokens / max(1, reuse.calls):.0f} tokens a prompt"
    )
    print(
        f"  fake's cached tokens on seats' later prompts {reuse.cached_later} "
        f"(per-seat reuse there: {reuse.own}); on first prompts {reuse.cached_first} "
        "(the rules text other seats sent first)"
    )
    shared, reusable = cache_figures(figures.call_records)
    print(
        f"  prompt chars: stable prefix {prefix_chars / max(1, prompt_chars):.1%}, "
        f"shared by all seats {shared * len(figures.call_records) / max(1, prompt_chars):.1%} "
        f"({shared} chars/call), reusable by a prefix cache "
        f"{reusable / max(1, prompt_chars):.1%}"
    )


def cache_figures(records: list[dict[str, Any]]) -> tuple[int, int]:
    """(chars of system text shared by every seat, total reusable prompt chars)."""
    firsts = [c for c in records if c.get("repair") == 0 and c.get("attempt") == 1]
    systems = {c["seat"]: c["messages"][0]["content"] for c in firsts}
    texts = list(systems.values())
    shared = min((common_prefix(texts[0], t) for t in texts[1:]), default=0)
    previous: dict[int, str] = {}
    reusable = 0
    for call in firsts:
        text = "".join(m["content"] for m in call["messages"])
        own = common_prefix(text, previous.get(call["seat"], ""))
        reusable += max(own, min(shared, len(text)))
        previous[call["seat"]] = text
    return shared, reusable


@dataclass
class Reuse:
    """Per-seat prefix reuse over a game, in tokens (4 characters, as the fake
    counts), and where the tokens that were not reused come from."""

    own: int = 0  # tokens that start one of the same seat's earlier prompts
    tokens: int = 0  # prompt tokens
    cached: int = 0  # cached tokens the provider reported
    cached_first: int = 0  # ... on each seat's first prompt
    cached_later: int = 0  # ... on its later prompts
    calls: int = 0
    later_calls: int = 0
    first: int = 0  # tokens of each seat's first prompt
    new_record: int = 0  # record lines the seat had not been sent yet
    tail: int = 0  # the now-section and the question after the record
    other: int = 0  # anything else not reused (e.g. a record condensed anew)


def seat_reuse(records: list[dict[str, Any]]) -> Reuse:
    """Reuse over every HTTP call that was answered (a call that got no answer
    was never read by the provider)."""
    earlier: dict[int, list[str]] = {}
    out = Reuse()
    for call in records:
        if call.get("raw") is None and call.get("error"):
            continue
        text = "".join(m["content"] for m in call["messages"])
        seen = earlier.setdefault(call["seat"], [])
        best = max((common_prefix(text, e) for e in seen), default=0)
        size = max(1, len(text) // 4)
        cached = int(call.get("cached_tokens") or 0)
        out.calls += 1
        out.own += best // 4
        out.tokens += size
        out.cached += cached
        if not seen:
            out.first += size
            out.cached_first += cached
        else:
            out.later_calls += 1
            out.cached_later += cached
            split_missing(out, call, text, best, size)
        seen.append(text)
    return out


def split_missing(out: Reuse, call: dict[str, Any], text: str, best: int, size: int) -> None:
    """Share the tokens a later prompt did not reuse out: new record lines up
    to where the stable part ends (``stable_chars``), then the tail."""
    missing = size - best // 4
    stable = int(call.get("stable_chars") or 0)
    if not stable or call.get("repair"):
        out.other += missing
        return
    tail = max(0, len(text) - max(stable, best)) // 4
    new_record = max(0, stable - best) // 4
    out.tail += min(tail, missing)
    out.new_record += min(new_record, missing - min(tail, missing))
    out.other += missing - min(tail, missing) - min(new_record, missing - min(tail, missing))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--games", nargs="+", default=["killer_fake", "four_factions_fake"])
    parser.add_argument("--style", choices=["full", "compact"], default=None)
    parser.add_argument("--history", type=int, default=None, help="history_items (compact)")
    parser.add_argument("--route", choices=["openai", "litellm"], default="openai")
    args = parser.parse_args()
    if args.route == "litellm":
        os.environ[ROUTE_ENV] = "litellm"
    for name in args.games:
        for seed in args.seeds:
            asyncio.run(play(name, args.latency, seed, args.style, args.history))


if __name__ == "__main__":
    main()

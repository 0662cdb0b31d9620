"""Speed of the embedded local model: seconds per decision and per game.

Three modes:

* ``calls`` (default): Killer-shaped decisions sent straight through litellm to
  the local server (11 seats with their own stable prefix, a growing public
  history, speeches and sealed votes with llama.cpp's JSON-schema form). Shows
  the per-decision cost of speech vs. choice and what the prompt cache saves.
* ``game``: a whole game from a game file (default configs/killer_local.toml)
  through the real runner and LLM client — the number that matters — then
  its summary.
* ``summary``: figures from a transcript (e.g. of ``sandbox run ... --json``):
  wall time, seconds per model call (median, p90) by decision kind, calls,
  repairs, fallbacks by reason, prompt and completion tokens.

Usage:
    .venv/bin/python bench/bench_local.py calls [--decisions 40] [--no-cache]
    .venv/bin/python bench/bench_local.py game [--config configs/killer_local.toml] [--seed 1]
    .venv/bin/python bench/bench_local.py summary TRANSCRIPT.jsonl

Measured (2-core machine shared with other jobs, load average ~1.5-2.5;
compact prompts, history_items 6, see docs/local-model.md): whole 11-player
Killer games of 35-55 decisions in 105-171 s (seeds 7, 2, 1; all ended by a KG-13
concession), 2.8 s median and 3.9-4.7 s p90 per model call,
~650 prompt and ~33 completion tokens per call, no repairs or fallbacks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEATS = 11
RULES = (
    "You are playing Killer, a social deduction game for 11 players: 3 killers, 3 police, "
    "5 civilians. Roles are secret. Killers know each other; police know each other. "
    "Each night the killers choose a victim and the police check one player's identity. "
    "Each day the victim may give last words, then every living player speaks once in "
    "seat order and ends with 'pass'. Then everyone votes at once for one living player "
    "or abstains; the most-voted player leaves. Police and civilians win when all killers "
    "are dead; killers win when all police are dead; all civilians dead is a draw. "
    "Nobody can show proof of a card: claims are only words. Speak briefly and concretely."
)
ROLES = ["killer", "police", "civilian"]
SPEECH_SCHEMA = {
    "type": "object",
    "properties": {"speech": {"type": "string", "maxLength": 300}},
    "required": ["speech"],
}


def vote_schema(alive: list[int], me: int) -> dict[str, Any]:
    options: list[int | None] = [s for s in alive if s != me]
    return {
        "type": "object",
        "properties": {"vote": {"enum": [*options, None]}},
        "required": ["vote"],
    }


def messages_for(seat: int, history: list[str], question: str) -> list[dict[str, str]]:
    role = ROLES[seat % 3]
    system = f"{RULES}\nYou are seat {seat}. Your secret role: {role}."
    user = "Public history:\n" + ("\n".join(history) or "(nothing yet)") + f"\n\n{question}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def one_call(
    api_base: str, model: str, messages: list[dict[str, str]], schema: dict[str, Any], limit: int
) -> tuple[float, dict[str, Any], dict[str, int]]:
    import litellm

    started = time.perf_counter()
    response = await litellm.acompletion(
        model=model,
        api_base=api_base,
        api_key="local",
        messages=messages,
        response_format={"type": "json_object", "schema": schema},
        max_tokens=limit,
        temperature=0.7,
        max_retries=0,
        timeout=120,
    )
    elapsed = time.perf_counter() - started
    text = response.choices[0].message.content or ""
    usage = {"in": response.usage.prompt_tokens, "out": response.usage.completion_tokens}
    try:
        answer = json.loads(text, strict=False)
    except json.JSONDecodeError:
        answer = {"invalid": text[:80]}
    return elapsed, answer, usage


async def bench_calls(decisions: int, speech_tokens: int, vote_tokens: int) -> None:
    from sandbox.local_model import endpoint_for, stop_all

    started = time.perf_counter()
    api_base, model = await endpoint_for("local/smollm2")
    print(f"server ready in {time.perf_counter() - started:.1f}s at {api_base}")
    alive = list(range(1, SEATS + 1))
    history: list[str] = []
    timings: dict[str, list[float]] = {"speech": [], "vote": []}
    tokens_in: list[int] = []
    tokens_out: list[int] = []
    invalid = 0
    try:
        for i in range(decisions):
            seat = alive[i % len(alive)]
            is_vote = (i // SEATS) % 2 == 1
            if is_vote:
                question = 'Vote now. Answer JSON {"vote": seat number or null}.'
                schema, limit = vote_schema(alive, seat), vote_tokens
            else:
                question = 'Give your speech now. Answer JSON {"speech": "..."}.'
                schema, limit = SPEECH_SCHEMA, speech_tokens
            elapsed, answer, usage = await one_call(
                api_base, model, messages_for(seat, history, question), schema, limit
            )
            kind = "vote" if is_vote else "speech"
            timings[kind].append(elapsed)
            tokens_in.append(usage["in"])
            tokens_out.append(usage["out"])
            if kind not in answer:
                invalid += 1
            elif kind == "speech":
                history.append(f"seat {seat} said: {str(answer['speech'])[:300]}")
            print(f"{i + 1:3d} seat {seat:2d} {kind:6s} {elapsed:5.2f}s in={usage['in']:4d} "
                  f"out={usage['out']:3d} {json.dumps(answer)[:70]}")  # fmt: skip
    finally:
        stop_all()
    everything = timings["speech"] + timings["vote"]
    print("\n== local model, per decision ==")
    for kind, values in timings.items():
        if values:
            print(f"{kind:6s}: n={len(values):3d} mean={statistics.mean(values):.2f}s "
                  f"median={statistics.median(values):.2f}s max={max(values):.2f}s")  # fmt: skip
    print(f"all   : mean={statistics.mean(everything):.2f}s; prompt tokens mean="
          f"{statistics.mean(tokens_in):.0f} max={max(tokens_in)}; completion tokens mean="
          f"{statistics.mean(tokens_out):.0f}; invalid JSON/shape={invalid}")  # fmt: skip


def bench_game(config: Path, seed: int | None) -> None:
    import tempfile

    from sandbox.local_model import stop_all

    cli = __import__("sandbox.cli", fromlist=["main"])
    out = Path(tempfile.mkdtemp(prefix="bench-local-"))
    started = time.perf_counter()
    try:
        sys.argv = ["sandbox", "run", str(config), "--out", str(out)]
        sys.argv += ["--seed", str(seed)] if seed is not None else []
        try:
            cli.main()
        except SystemExit as done:
            if done.code not in (0, None):
                raise
    finally:
        stop_all()
    print(f"\n== whole game: {time.perf_counter() - started:.0f}s wall ({config}) ==")
    for transcript in sorted(out.glob("*.jsonl")):
        summarize(transcript)


def summarize(path: Path) -> None:
    """Per-call and per-game figures from one transcript."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header = next(line for line in lines if line["type"] == "header")
    outcome = next((line for line in lines if line["type"] == "outcome"), None)
    calls = [line for line in lines if line["type"] == "call"]
    decisions = [
        line["data"] for line in lines
        if line["type"] == "event" and line["kind"] == "core.decision"
    ]  # fmt: skip
    print(f"== {path.name}: {header['variant']} seed {header['seed']}")
    if outcome is not None:
        wall = _seconds(outcome["ended"]) - _seconds(header["started"])
        print(f"  ended: {outcome['reason']} after {wall:.0f}s wall")
    by_kind: dict[str, list[float]] = {"all": []}
    for call in calls:
        seconds = call["latency_ms"] / 1000
        by_kind["all"].append(seconds)
        by_kind.setdefault(call["decision"], []).append(seconds)
    for kind, values in by_kind.items():
        if values:
            print(f"  {kind:14s} calls={len(values):3d} median={statistics.median(values):.1f}s "
                  f"p90={_p90(values):.1f}s total={sum(values):.0f}s")  # fmt: skip
    fallbacks: dict[str, int] = {}
    for decision in decisions:
        if decision["fallback"]:
            reason = decision["fallback_reason"] or "?"
            fallbacks[reason] = fallbacks.get(reason, 0) + 1
    repairs = sum(1 for c in calls if c["repair"])
    print(f"  decisions={len(decisions)} calls={len(calls)} repairs={repairs} "
          f"fallbacks={fallbacks or 'none'}")  # fmt: skip
    if calls:
        print(f"  prompt tokens/call mean={statistics.mean(c['tokens_in'] for c in calls):.0f} "
              f"max={max(c['tokens_in'] for c in calls)}; completion tokens/call mean="
              f"{statistics.mean(c['tokens_out'] for c in calls):.0f}")  # fmt: skip


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def _seconds(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    calls = sub.add_parser("calls")
    calls.add_argument("--decisions", type=int, default=44)
    calls.add_argument("--speech-tokens", type=int, default=96)
    calls.add_argument("--vote-tokens", type=int, default=16)
    calls.add_argument("--no-cache", action="store_true")
    game = sub.add_parser("game")
    game.add_argument("--config", type=Path, default=ROOT / "configs" / "killer_local.toml")
    game.add_argument("--seed", type=int, default=None)
    summary = sub.add_parser("summary")
    summary.add_argument("transcripts", type=Path, nargs="+")
    args = parser.parse_args()
    if args.mode == "summary":
        for transcript in args.transcripts:
            summarize(transcript)
        return
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    if args.mode == "game":
        bench_game(args.config, args.seed)
        return
    if getattr(args, "no_cache", False):
        os.environ["SANDBOX_LOCAL_CACHE"] = "0"
    decisions = getattr(args, "decisions", 44)
    speech = getattr(args, "speech_tokens", 96)
    vote = getattr(args, "vote_tokens", 16)
    asyncio.run(bench_calls(decisions, speech, vote))


if __name__ == "__main__":
    main()

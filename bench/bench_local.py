"""Speed of the embedded local model: seconds per decision and per game.

Two measurements:

* ``calls`` (default): Killer-shaped decisions sent straight through litellm to
  the local server (11 seats with their own stable prefix, a growing public
  history, speeches and sealed votes with llama.cpp's JSON-schema form). Shows
  the per-decision cost of speech vs. choice and what the prompt cache saves.
* ``game``: a whole game from a game file (default configs/killer_local.toml)
  through the real runner and LLM client — the number that matters.

Usage:
    .venv/bin/python bench/bench_local.py calls [--decisions 40] [--no-cache]
    .venv/bin/python bench/bench_local.py game [--config configs/killer_local.toml]
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


def bench_game(config: Path) -> None:
    from sandbox.local_model import stop_all

    try:
        cli = __import__("sandbox.cli", fromlist=["main"])
    except ModuleNotFoundError:
        raise SystemExit("sandbox/cli.py is not there yet; use the 'calls' benchmark") from None
    started = time.perf_counter()
    try:
        sys.argv = ["sandbox", "run", str(config)]
        try:
            cli.main()
        except SystemExit as done:
            if done.code not in (0, None):
                raise
    finally:
        stop_all()
    print(f"\n== whole game: {time.perf_counter() - started:.0f}s wall ({config}) ==")


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
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    if args.mode == "game":
        bench_game(args.config)
        return
    if getattr(args, "no_cache", False):
        os.environ["SANDBOX_LOCAL_CACHE"] = "0"
    decisions = getattr(args, "decisions", 44)
    speech = getattr(args, "speech_tokens", 96)
    vote = getattr(args, "vote_tokens", 16)
    asyncio.run(bench_calls(decisions, speech, vote))


if __name__ == "__main__":
    main()

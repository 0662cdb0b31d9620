"""Speed of the embedded local model: seconds per decision and per game.

Six modes:

* ``calls`` (default): Killer-shaped rounds sent straight through litellm to
  the local server: every seat speaks in turn (11 seats, each with its own
  stable prefix, a growing public history), then every seat votes at once (a
  sealed step, llama.cpp's JSON-schema form). Prints per-call and per-round
  seconds and how much of each prompt came from the cache.
* ``game``: whole games from a game file (default configs/killer_local.toml)
  through the real runner and LLM client — the number that matters — each
  on a fresh server (start-up included), then their summaries and the
  whole-game seconds per decision.
* ``compare``: issue 24's figures for the same seeds under its settings,
  alternating per seed on a fresh server each, optionally with one core kept
  busy (``--busy-core``: a ``yes > /dev/null`` process this bench starts and
  stops): "old" (before it: 4 shared slots, the JSON-schema form, a 6-item
  history window, 112 answer tokens), "new" (the constrained route with each
  seat's own layout and a 6-item window) and "shared" (the game file's shared
  record: the public record first, each seat's card and secrets last, no
  item window (whole days, condensed to fit), calls routed by the client's
  slot router, models/local/router.py); "shared-flash-off" is "shared" with
  llama.cpp's flash attention off. Prints, per setting: invalid fallbacks,
  repair share, cached share, seconds per decision and non-empty speeches
  (formulas: docs/local-model.md).
* ``sealed``: llama-server's own settings on one sealed step, side by side
  in one run, each on a fresh server (``SANDBOX_LOCAL_SERVER_ARGS``): a
  ~1,700-token prefix read into one slot, its state copied into nine slots
  (the router's save and restores), then nine calls at once, each reading
  ~70 new tokens and writing 24, then one speech-like call reading ~100 and
  writing 64. Prints seconds and tokens/s per setting (``--rounds`` times;
  ``--settings`` names some of them, e.g. ``defaults "all threads write"``).
* ``context``: what a long prompt costs: one speech-like call (250 new
  tokens read, 70 written) after a cached context of 500 to 3,000 tokens,
  with flash attention on (the default) and off, each on a fresh server.
  Prints tokens/s read and written and seconds per call (``--rounds``
  times, medians).
* ``summary``: figures from a transcript (e.g. of ``sandbox run ... --json``):
  wall time, seconds per decision, seconds per model call (median, p90) by
  decision kind, calls, repairs, fallbacks by reason, prompt and completion
  tokens.

Usage:
    .venv/bin/python bench/bench_local.py calls [--rounds 4] [--no-cache]
    .venv/bin/python bench/bench_local.py game [--config configs/killer_local.toml] [--seed 1 2 3]
    .venv/bin/python bench/bench_local.py compare [--seed 1 2 3 4 5] [--busy-core] [--day-limit N]
        [--settings old new shared shared-flash-off before-40]
    .venv/bin/python bench/bench_local.py sealed [--rounds 2] [--settings NAME ...]
    .venv/bin/python bench/bench_local.py context [--rounds 3]
    .venv/bin/python bench/bench_local.py summary TRANSCRIPT.jsonl

Figures and the conditions they were measured in: docs/local-model.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
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
    api_base: str,
    model: str,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    limit: int,
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
    details = getattr(response.usage, "prompt_tokens_details", None)
    usage = {
        "in": response.usage.prompt_tokens,
        "out": response.usage.completion_tokens,
        "cached": int(getattr(details, "cached_tokens", 0) or 0),
    }
    try:
        answer = json.loads(text, strict=False)
    except json.JSONDecodeError:
        answer = {"invalid": text[:80]}
    return elapsed, answer, usage


async def bench_calls(rounds: int, speech_tokens: int, vote_tokens: int) -> None:
    """Alternating rounds as in a Killer day: every seat speaks in turn (one
    request at a time), then every seat votes at once (a sealed step)."""
    from sandbox.models.local import endpoint_for, stop_all

    started = time.perf_counter()
    api_base, model = await endpoint_for("local/smollm2")
    print(f"server ready in {time.perf_counter() - started:.1f}s at {api_base}")
    alive = list(range(1, SEATS + 1))
    history: list[str] = []
    timings: dict[str, list[float]] = {"speech": [], "vote": []}
    round_walls: dict[str, list[float]] = {"speech": [], "vote": []}
    usages: list[dict[str, int]] = []
    invalid = 0

    async def decide(seat: int, kind: str) -> None:
        nonlocal invalid
        if kind == "vote":
            question = 'Vote now. Answer JSON {"vote": seat number or null}.'
            schema, limit = vote_schema(alive, seat), vote_tokens
        else:
            question = 'Give your speech now. Answer JSON {"speech": "..."}.'
            schema, limit = SPEECH_SCHEMA, speech_tokens
        elapsed, answer, usage = await one_call(
            api_base, model, messages_for(seat, history, question), schema, limit
        )
        timings[kind].append(elapsed)
        usages.append(usage)
        if kind not in answer:
            invalid += 1
        elif kind == "speech":
            history.append(f"seat {seat} said: {str(answer['speech'])[:300]}")
        shown = json.dumps(answer)[:60]
        print(f"seat {seat:2d} {kind:6s} {elapsed:5.2f}s in={usage['in']:4d} "
              f"cached={usage['cached']:4d} out={usage['out']:3d} {shown}")  # fmt: skip

    try:
        for number in range(rounds):
            kind = "vote" if number % 2 else "speech"
            round_started = time.perf_counter()
            if kind == "speech":
                for seat in alive:
                    await decide(seat, kind)
            else:
                await asyncio.gather(*(decide(seat, kind) for seat in alive))
            round_walls[kind].append(time.perf_counter() - round_started)
    finally:
        stop_all()
    print(f"\n== local model, per decision ({load_average()}) ==")
    for kind, values in timings.items():
        if values:
            walls = round_walls[kind]
            print(f"{kind:6s}: n={len(values):3d} median={statistics.median(values):.2f}s "
                  f"max={max(values):.2f}s; a round of {SEATS} took "
                  f"{statistics.mean(walls):.1f}s = {statistics.mean(walls) / SEATS:.2f}s "
                  "per decision")  # fmt: skip
    prompt = sum(u["in"] for u in usages)
    cached = sum(u["cached"] for u in usages)
    completion = statistics.mean(u["out"] for u in usages)
    print(f"prompt tokens per call: {prompt / len(usages):.0f}, {cached / max(1, prompt):.0%} "
          f"from the cache ({(prompt - cached) / len(usages):.0f} read); completion tokens "
          f"{completion:.0f}; invalid JSON/shape={invalid}")  # fmt: skip


def bench_game(config: Path, seeds: list[int | None]) -> None:
    """Each seed is a whole game on a fresh server (start-up included in wall)."""
    import tempfile

    from sandbox.models.local import stop_all

    cli = __import__("sandbox.cli.main", fromlist=["main"])
    rows: list[str] = []
    for seed in seeds:
        out = Path(tempfile.mkdtemp(prefix="bench-local-"))
        load_before = load_average()
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
        wall = time.perf_counter() - started
        print(f"\n== whole game: {wall:.0f}s wall ({config}, seed {seed}) ==")
        for transcript in sorted(out.glob("*.jsonl")):
            decisions, reason = summarize(transcript)
            rows.append(f"seed {seed}: {decisions} decisions in {wall:.0f}s = "
                        f"{wall / max(1, decisions):.2f}s per decision ({reason}); "
                        f"before: {load_before}, after: {load_average()}")  # fmt: skip
            rows.append(f"  {_figures_line(game_figures(transcript))}")
    print("\n== whole games (wall time incl. server start / decisions) ==")
    print("\n".join(rows))


def summarize(path: Path) -> tuple[int, str]:
    """Per-call and per-game figures from one transcript: (decisions, how it ended)."""
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
        per = wall / max(1, len(decisions))
        print(f"  ended: {outcome['reason']} after {wall:.0f}s wall, {per:.2f}s per decision")
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
        prompt = sum(c["tokens_in"] for c in calls)
        cached = sum(c.get("cached_tokens") or 0 for c in calls)
        print(f"  prompt tokens from the server's cache: {cached / max(1, prompt):.0%}")
    return len(decisions), outcome["reason"] if outcome is not None else "no outcome"


# What "old" means in ``compare``: the server and seat settings before issue 24.
# (Pinning is off in both: measured worse, see docs/local-model.md.)
OLD_ENV = {
    "SANDBOX_LOCAL_SLOTS": "4",
    "SANDBOX_LOCAL_GRAMMAR": "0",
    "SANDBOX_LOCAL_POLL": "50",  # llama-server's default
    "SANDBOX_LOCAL_FLASH_ATTN": "1",  # llama-server's "auto" turned it on
}
OLD_AGENT = {"max_tokens": 112}
OLD_LLM = {"shared_record": False, "history_items": 6, "concurrency": 4}
# "new": issue 24's constrained route with each seat's own layout (the card
# first, a 6-item window), the default until the shared record became it.
NEW_LLM = {"shared_record": False, "history_items": 6}
# "shared": the shared record (the public record first, the card and the
# seat's secrets last; no item window: whole days, condensed to fit), whose seats route their
# calls through the client's slot router: configs/killer_local.toml as it is.
SHARED_LLM = {"shared_record": True, "history_items": None}
# "shared-flash-off": the same with llama.cpp's flash attention off (on by
# default: ServerSettings.flash_attn), whole games against the sealed mode's
# single step.
FLASH_OFF_ENV = {"SANDBOX_LOCAL_FLASH_ATTN": "0"}
# "before-40": "shared" as it was before issue 40's two settings: every CPU
# writes an answer (llama-server's --threads), and each answer opens with a
# private note.
BEFORE_40_ENV = {"SANDBOX_LOCAL_DECODE_THREADS": str(os.cpu_count() or 1)}
BEFORE_40_LLM = {"private_note": True}
SETTINGS = ("old", "new", "shared", "shared-flash-off", "before-40")


def setting_of(name: str, base: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The game file and the environment of one ``compare`` setting."""
    if name == "old":
        return {
            **base,
            "default_agent": {**base["default_agent"], **OLD_AGENT},
            "llm": {**base["llm"], **OLD_LLM},
        }, OLD_ENV
    if name == "before-40":
        return {**base, "llm": {**base["llm"], **BEFORE_40_LLM}}, BEFORE_40_ENV
    shared = name.startswith("shared")
    llm = {**base["llm"], **(SHARED_LLM if shared else NEW_LLM)}
    env = FLASH_OFF_ENV if name == "shared-flash-off" else {}
    return {**base, "llm": {k: v for k, v in llm.items() if v is not None}}, env


# Issue 40 item 5, is a speech about the game? It names a seat, a role of the game
# (its role labels, in English and in Chinese) or an event (a death, a vote, a check,
# a night or a day). Does it repeat its prompt's instructions? It shares a run of
# ECHO_RUN words (a Chinese character is a word) with the instructions: every line
# of its own prompt but the record's (the referee's lines and the quoted speeches;
# quoting a speech is not repeating the prompt). Beside it, whether it repeats a
# referee line of the record ("Seat 5 may give last words (KG-7)").
SEAT_NAMED = re.compile(r"\b(?:seat|player)s?\s*#?\d+|\d+\s*号", re.IGNORECASE)
EVENT_NAMED = re.compile(
    r"\b(?:kill(?:ed|s|ing)?|died|dead|death|vot(?:e|ed|es|ing)|check(?:ed|s)?|"
    r"night|dawn|day\s*\d+|exiled?|victim|last words)\b|杀|死|投票|查验|夜|天亮|遗言",
    re.IGNORECASE,
)
WORD = re.compile(r"[\u4e00-\u9fff]|[^\W_]+")
ECHO_RUN = 8
REFEREE_LINE = re.compile(r"^⟦[^⟧]*⟧")  # the referee's mark, en or zh
QUOTE_LINE = re.compile(r"^(?:Seat|座位) \d+ (?:said|说)(?: \([^)]*\))?: ")  # a speech


def about_the_game(speech: str, roles: set[str]) -> bool:
    """The speech names a seat, one of ``roles`` (words, lower case) or an event."""
    if SEAT_NAMED.search(speech) or EVENT_NAMED.search(speech):
        return True
    lowered = speech.lower()
    return any(role in lowered for role in roles)


def prompt_parts(prompt: str) -> tuple[str, str]:
    """(the instructions, the referee's lines of the record) of a prompt's text;
    the quoted speeches are in neither."""
    lines = prompt.splitlines()
    referee = [line for line in lines if REFEREE_LINE.match(line)]
    rest = [line for line in lines if not REFEREE_LINE.match(line) and not QUOTE_LINE.match(line)]
    return "\n".join(rest), "\n".join(referee)


def echoes(speech: str, prompt: str, others: list[str]) -> bool:
    """The speech shares ECHO_RUN words in a row with ``prompt`` once the speeches
    in ``others`` are taken out of it."""
    for quoted in others:
        if quoted.strip():
            prompt = prompt.replace(quoted, " ")
    said = [w.lower() for w in WORD.findall(speech)]
    runs = {tuple(said[i : i + ECHO_RUN]) for i in range(len(said) - ECHO_RUN + 1)}
    if not runs:
        return False
    text = [w.lower() for w in WORD.findall(prompt)]
    return any(tuple(text[i : i + ECHO_RUN]) in runs for i in range(len(text) - ECHO_RUN + 1))


def role_names(variant: str, labels: list[str]) -> set[str]:
    """The game's role labels and their Chinese words, lower case."""
    from sandbox.games.registry import get_variant
    from sandbox.words import role_words

    known = get_variant(variant)
    return {label.lower() for label in labels} | {
        role_words(label, "zh", known).lower() for label in labels
    }


def game_figures(path: Path) -> dict[str, float]:
    """Issue 24's figures of one transcript (docs/local-model.md, Formulas)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header = next(line for line in lines if line["type"] == "header")
    outcome = next((line for line in lines if line["type"] == "outcome"), None)
    calls = [line for line in lines if line["type"] == "call"]
    decisions = [
        line["data"] for line in lines
        if line["type"] == "event" and line["kind"] == "core.decision"
    ]  # fmt: skip
    speeches = [d for d in decisions if d["decision"] in ("speech", "last_words")]
    spoken = [d for d in speeches if _said(d).strip()]
    roles = role_names(header["variant"], sorted(set(header.get("roles", {}).values())))
    prompts: dict[str, str] = {}  # each decision's first prompt, all its messages
    for c in calls:
        if "request_id" in c and not c["repair"] and c.get("attempt", 1) == 1:
            text = "\n".join(str(m.get("content", "")) for m in c.get("messages", []))
            prompts.setdefault(c["request_id"], text)
    ended = outcome["ended"] if outcome is not None else lines[-1].get("ended", header["started"])
    wall = _seconds(ended) - _seconds(header["started"])
    prompt = sum(c["tokens_in"] for c in calls)
    return {
        "decisions": len(decisions),
        "calls": len(calls),
        "invalid": sum(1 for d in decisions if d["fallback_reason"] == "invalid"),
        "fallbacks": sum(1 for d in decisions if d["fallback"]),
        "repairs": sum(1 for c in calls if c["repair"]),
        "prompt": prompt,
        "cached": sum(c.get("cached_tokens") or 0 for c in calls),
        # first attempts only: a repair turn re-sends its whole prompt, all of it cached
        "prompt_first": sum(c["tokens_in"] for c in calls if not c["repair"]),
        "cached_first": sum(c.get("cached_tokens") or 0 for c in calls if not c["repair"]),
        "wall": wall,
        "speeches": len(speeches),
        "spoken": len(spoken),
        "about": sum(1 for d in spoken if about_the_game(_said(d), roles)),
        "echoes": sum(
            1 for d in spoken
            if echoes(
                _said(d),
                prompt_parts(prompts.get(d["request_id"], ""))[0],
                [_said(o) for o in spoken if o is not d],
            )
        ),
        "record_echoes": sum(
            1 for d in spoken
            if echoes(_said(d), prompt_parts(prompts.get(d["request_id"], ""))[1], [])
        ),
    }  # fmt: skip


def _said(decision: dict[str, Any]) -> str:
    return str((decision["payload"] or {}).get("speech", ""))


def bench_compare(
    config: Path,
    seeds: list[int],
    busy_core: bool,
    day_limit: int | None,
    settings: tuple[str, ...] = ("old", "new"),
) -> None:
    """Old and new settings on the same seeds, alternating, each game on a fresh server."""
    import subprocess
    import tempfile
    import tomllib

    from sandbox.models.local import stop_all
    from sandbox.session import play_game
    from sandbox.session.gamefile import parse_config

    base = tomllib.loads(config.read_text(encoding="utf-8"))
    if day_limit is not None:
        base.setdefault("rules", {})["day_limit"] = day_limit
    busy = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) if busy_core else None
    totals: dict[str, list[dict[str, float]]] = {name: [] for name in settings}
    rows: list[str] = []
    try:
        for seed in seeds:
            for name in settings:
                data, env = setting_of(name, base)
                saved = {k: os.environ.get(k) for k in env}
                os.environ.update(env)
                out = Path(tempfile.mkdtemp(prefix=f"bench-local-{name}-"))
                before = load_average()
                try:
                    record = play_game(parse_config(data), seed, out)
                finally:
                    stop_all()
                    for key, value in saved.items():
                        if value is None:
                            os.environ.pop(key, None)
                        else:
                            os.environ[key] = value
                assert record.path is not None, "play_game was given an out folder"
                figures = game_figures(record.path)
                totals[name].append(figures)
                loads = f"{before} before, {load_average()} after"
                rows.append(
                    f"{name} seed {seed}: {_figures_line(figures)} ({loads}; {record.path})"
                )
                print(rows[-1], flush=True)
    finally:
        if busy is not None:
            busy.terminate()
            busy.wait()
    busy_note = " (one core busy)" if busy_core else ""
    print(f"\n== settings {', '.join(settings)}, seeds {seeds}{busy_note} ==")
    print("\n".join(rows))
    for name, games in totals.items():
        summed = {key: sum(g[key] for g in games) for key in games[0]} if games else {}
        if summed:
            print(f"{name} (all {len(games)} games): {_figures_line(summed)}")


def _figures_line(f: dict[str, float]) -> str:
    return (
        f"{int(f['decisions'])} decisions, invalid fallbacks {int(f['invalid'])}, "
        f"repair share {f['repairs'] / max(1, f['calls']):.1%}, "
        f"cached share {f['cached'] / max(1, f['prompt']):.1%} "
        f"(first attempts {f['cached_first'] / max(1, f['prompt_first']):.1%}), "
        f"{f['wall'] / max(1, f['decisions']):.2f} s per decision, "
        f"non-empty speeches {int(f['spoken'])}/{int(f['speeches'])}, "
        f"about the game {f['about'] / max(1, f['spoken']):.0%}, "
        f"repeating the instructions {int(f['echoes'])}, "
        f"repeating a referee line {int(f.get('record_echoes', 0))}"
    )


# What ``sealed`` compares: llama-server arguments appended to the defaults.
SEALED_SETTINGS = {
    "defaults": "",
    "flash attention off": "--flash-attn off",
    "n-gram drafts on": (
        "--spec-type ngram-simple --spec-ngram-simple-size-n 3 --spec-ngram-simple-size-m 8"
    ),
    # Before issue 40: every CPU writes a single answer's tokens too (today one
    # thread does for a small model: ServerSettings.decode_threads).
    "all threads write": f"--threads {len(os.sched_getaffinity(0))}",
}
SEALED_SEATS = 9


async def sealed_step(prompt: str) -> dict[str, float]:
    """One sealed step on a fresh server (see ``sealed``): its seconds and rates."""
    import httpx

    from sandbox.models.local import endpoint_for, stop_all

    api_base, _ = await endpoint_for("local/smollm2")
    base = api_base.removesuffix("/v1")
    figures: dict[str, float] = {}
    try:
        async with httpx.AsyncClient(timeout=300) as client:

            async def complete(slot: int, text: str, tokens: int) -> dict[str, Any]:
                body = {"prompt": text, "n_predict": tokens, "id_slot": slot,
                        "cache_prompt": True, "temperature": 0.7}  # fmt: skip
                answer = await client.post(f"{base}/completion", json=body)
                answer.raise_for_status()
                return dict(answer.json()["timings"])

            started = time.perf_counter()
            first = await complete(0, prompt, 1)
            figures["prefix_s"] = time.perf_counter() - started
            figures["prefix_tokens"] = first["prompt_n"]
            started = time.perf_counter()
            await client.post(f"{base}/slots/0", params={"action": "save"},
                              json={"filename": "bench.bin"})  # fmt: skip
            for slot in range(1, SEALED_SEATS + 1):
                await client.post(f"{base}/slots/{slot}", params={"action": "restore"},
                                  json={"filename": "bench.bin"})  # fmt: skip
            figures["copies_s"] = time.perf_counter() - started
            card = "# Your role card (seat {0}, secret)\n- You are seat {0}. Your role: CIVILIAN.\n"
            started = time.perf_counter()
            await asyncio.gather(
                *(complete(slot, prompt + card.format(slot) * 3, 24)
                  for slot in range(1, SEALED_SEATS + 1))
            )  # fmt: skip
            figures["sealed_s"] = time.perf_counter() - started
            said = 'Seat 4 said (speech): "I saw seat 2 lie."\n'
            speech = prompt + card.format(1) * 3 + said * 5
            one = await complete(1, speech, 64)
            figures["speech_read_tps"] = one["prompt_per_second"]
            figures["speech_write_tps"] = one["predicted_per_second"]
    finally:
        stop_all()
    return figures


def bench_sealed(rounds: int, only: list[str] | None = None) -> None:
    """``sealed``: each setting of SEALED_SETTINGS (or those named in ``only``)
    on a fresh server, alternating."""
    import random

    from sandbox.agents.llm.prompt.render import render_prompt
    from tests.prompts.harness import new_game, play

    # A real prompt: a Killer vote's, late on day 1, with the shared record.
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision == "vote")
    c = captured[0]
    rendered = render_prompt(c.view, c.request, style="compact", shared_record=True)
    system, user = (m["content"] for m in rendered.messages)
    head = user[: user.index("# Your role card")]
    prompt = f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{head}"
    chosen = {k: v for k, v in SEALED_SETTINGS.items() if only is None or k in only}
    results = alternate(chosen, rounds, lambda: asyncio.run(sealed_step(prompt)))
    print(f"\n== one sealed step of {SEALED_SEATS} calls, mean of {rounds} ({load_average()}) ==")
    for name, runs in results.items():
        mean = {k: statistics.mean(r[k] for r in runs) for k in runs[0]}
        print(f"{name:20s} prefix {mean['prefix_tokens']:.0f} tokens in {mean['prefix_s']:.2f} s; "
              f"{SEALED_SEATS} copies {mean['copies_s']:.2f} s; {SEALED_SEATS} calls at once "
              f"{mean['sealed_s']:.2f} s; a speech reads {mean['speech_read_tps']:.0f} and "
              f"writes {mean['speech_write_tps']:.1f} tokens/s")  # fmt: skip


# What ``context`` compares, and the contexts it reads before each call.
CONTEXT_SETTINGS = {"defaults (flash attention on)": "", "flash attention off": "--flash-attn off"}
CONTEXTS = (500, 1000, 1500, 2000, 2500, 3000)
CONTEXT_NEW, CONTEXT_WRITTEN = 250, 70  # a speech's new tokens and its answer


async def context_calls(text: str) -> list[dict[str, float]]:
    """One speech-like call after each of CONTEXTS tokens, on a fresh server."""
    import httpx

    from sandbox.models.local import endpoint_for, stop_all

    api_base, _ = await endpoint_for("local/smollm2")
    base = api_base.removesuffix("/v1")
    rows: list[dict[str, float]] = []
    try:
        async with httpx.AsyncClient(timeout=300) as client:
            answer = await client.post(f"{base}/tokenize", json={"content": text})
            tokens = answer.json()["tokens"]
            for slot, context in enumerate(CONTEXTS):
                for size, written in ((context, 1), (context + CONTEXT_NEW, CONTEXT_WRITTEN)):
                    body = {"prompt": tokens[:size], "n_predict": written, "id_slot": slot,
                            "cache_prompt": True, "ignore_eos": True}  # fmt: skip
                    started = time.perf_counter()
                    answer = await client.post(f"{base}/completion", json=body)
                    answer.raise_for_status()
                timings = answer.json()["timings"]
                rows.append({
                    "context": context,
                    "read_tps": timings["prompt_per_second"],
                    "write_tps": timings["predicted_per_second"],
                    "seconds": time.perf_counter() - started,
                })  # fmt: skip
    finally:
        stop_all()
    return rows


def bench_context(rounds: int) -> None:
    """``context``: a speech-like call (CONTEXT_NEW tokens read, CONTEXT_WRITTEN
    written) after ever longer cached contexts, per setting, alternating."""
    # any long English text: only its length matters here (this repository's docs)
    prompt = (ROOT / "docs" / "local-model.md").read_text(encoding="utf-8")
    results = alternate(CONTEXT_SETTINGS, rounds, lambda: asyncio.run(context_calls(prompt)))
    print(f"\n== {CONTEXT_NEW} tokens read and {CONTEXT_WRITTEN} written after a cached "
          f"context, median of {rounds} ({load_average()}) ==")  # fmt: skip
    for name, runs in results.items():
        print(name)
        for i, context in enumerate(CONTEXTS):
            med = {k: statistics.median(r[i][k] for r in runs) for k in runs[0][i]}
            print(f"  context {context:5d}: reads {med['read_tps']:4.0f} tokens/s, writes "
                  f"{med['write_tps']:4.1f} tokens/s, {med['seconds']:.2f} s")  # fmt: skip


def alternate(settings: dict[str, str], rounds: int, run: Callable[[], T]) -> dict[str, list[T]]:
    """``run()`` under each setting's extra llama-server arguments
    (SANDBOX_LOCAL_SERVER_ARGS, each run on a fresh server), the settings
    alternating, ``rounds`` times; each result printed as it comes."""
    results: dict[str, list[T]] = {name: [] for name in settings}
    saved = os.environ.get("SANDBOX_LOCAL_SERVER_ARGS")
    try:
        for _ in range(rounds):
            for name, args in settings.items():
                os.environ["SANDBOX_LOCAL_SERVER_ARGS"] = args
                results[name].append(run())
                print(f"{name}: {results[name][-1]}", flush=True)
    finally:
        if saved is None:
            os.environ.pop("SANDBOX_LOCAL_SERVER_ARGS", None)
        else:
            os.environ["SANDBOX_LOCAL_SERVER_ARGS"] = saved
    return results


def load_average() -> str:
    """The machine's 1-minute load average (other jobs share the cores)."""
    try:
        return f"load {os.getloadavg()[0]:.1f}"
    except OSError:
        return "load ?"


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def _seconds(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    calls = sub.add_parser("calls")
    calls.add_argument("--rounds", type=int, default=4)
    calls.add_argument("--speech-tokens", type=int, default=96)
    calls.add_argument("--vote-tokens", type=int, default=16)
    calls.add_argument("--no-cache", action="store_true", help="no RAM prompt cache")
    game = sub.add_parser("game")
    game.add_argument("--config", type=Path, default=ROOT / "configs" / "killer_local.toml")
    game.add_argument("--seed", type=int, nargs="*", default=None)
    compare = sub.add_parser("compare")
    compare.add_argument("--config", type=Path, default=ROOT / "configs" / "killer_local.toml")
    compare.add_argument("--seed", type=int, nargs="*", default=[1, 2, 3, 4, 5])
    compare.add_argument("--busy-core", action="store_true", help="keep one core busy (yes)")
    compare.add_argument("--day-limit", type=int, default=None, help="end games after day N")
    compare.add_argument("--settings", nargs="+", choices=SETTINGS, default=["old", "new"])
    sealed = sub.add_parser("sealed")
    sealed.add_argument("--rounds", type=int, default=2)
    sealed.add_argument("--settings", nargs="+", choices=list(SEALED_SETTINGS), default=None)
    context = sub.add_parser("context")
    context.add_argument("--rounds", type=int, default=3)
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
        bench_game(args.config, list(args.seed) if args.seed else [None])
        return
    if args.mode == "sealed":
        bench_sealed(args.rounds, args.settings)
        return
    if args.mode == "context":
        bench_context(args.rounds)
        return
    if args.mode == "compare":
        bench_compare(
            args.config, list(args.seed), args.busy_core, args.day_limit, tuple(args.settings)
        )
        return
    if getattr(args, "no_cache", False):
        os.environ["SANDBOX_LOCAL_CACHE"] = "0"
    rounds = getattr(args, "rounds", 4)
    speech = getattr(args, "speech_tokens", 96)
    vote = getattr(args, "vote_tokens", 16)
    asyncio.run(bench_calls(rounds, speech, vote))


if __name__ == "__main__":
    main()

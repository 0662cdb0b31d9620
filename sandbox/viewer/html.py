"""The interactive HTML viewer: one self-contained page per game (no network, no
external file), and an index page for a folder of games.

Every line of the story is rendered here, by jinja2 with autoescaping, into
inert ``<template>`` elements; the page's script only clones those nodes into
the visible document for the chosen audience and sets text with
``textContent``. Player and model text is therefore always escaped text: a
speech can never inject markup or script.

The page written for the referee holds every audience's data (it is the
referee's file); switching the audience to a seat shows only the lines, board
facts and card that seat could see — nothing else is put into the visible
document. ``sandbox view --seat N --html`` writes a page holding seat N's data only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from sandbox.viewer.board import known_variants
from sandbox.viewer.story import Story
from sandbox.viewer.timeline import Entry, Timeline
from sandbox.words import card_rows, phase_title

# Inline script and style only; nothing may be fetched (no network).
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

# The markup lives in assets/templates, the style and scripts in assets/static;
# all three are read as package resources, so an installed wheel needs no checkout.
_ASSETS = "sandbox.viewer.assets"
_ENV = Environment(
    loader=PackageLoader(_ASSETS, "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
)


def _static(name: str) -> str:
    """A style sheet or script, to be inlined: the page must need no other file."""
    return files(_ASSETS).joinpath("static", name).read_text("utf-8")


UI = {
    "en": {
        "audience": "Audience",
        "referee": "Referee (everything)",
        "seat": "Seat",
        "jump": "Event #",
        "any": "any",
        "day": "Day",
        "kind": "Kind",
        "cat_speech": "speeches",
        "cat_referee": "referee lines",
        "cat_decision": "decisions",
        "search": "search text",
        "help": "Keys: → / j next · ← / k previous · Home / End · g jump to event · / search.",
        "referee_file": "This file is referee material (it holds every seat's secrets); "
        "the audience switch is a reading aid. Give a player `sandbox view --seat N --html`.",
        "timeline": "Timeline",
        "outcome": "Outcome",
        "role": "Role",
        "agent": "Agent",
        "result": "Result",
        "board": "Board",
        "alive": "Alive",
        "claims": "Claims so far",
        "card": "Card",
        "fork": "fork from here",
        "reader": "reader mode",
        "forks": "fork buttons",
        "note": "note",
        "call": "call",
        "model": "model",
        "attempt": "attempt",
        "repair": "repair",
        "tokens": "tokens in → out",
        "cost": "cost ($)",
        "latency": "latency (s)",
        "error": "error",
        "reasoning": "private reasoning",
        "answer": "raw answer",
        "prompt": "prompt messages",
        "unfinished": "The game is unfinished.",
        "noscript": "This viewer needs JavaScript (it runs locally; nothing is fetched).",
    },
    "zh": {
        "audience": "视角",
        "referee": "裁判（全部）",
        "seat": "座位",
        "jump": "事件 #",
        "any": "全部",
        "day": "天",
        "kind": "类型",
        "cat_speech": "发言",
        "cat_referee": "裁判公告",
        "cat_decision": "决定",
        "search": "搜索文字",
        "help": "按键：→ / j 下一条 · ← / k 上一条 · Home / End · g 跳到事件 · / 搜索。",
        "referee_file": "本文件是裁判资料（含所有座位的秘密）；切换视角只是阅读辅助。"
        "给玩家请用 `sandbox view --seat N --html`。",
        "timeline": "时间线",
        "outcome": "结果",
        "role": "身份",
        "agent": "操控者",
        "result": "结果",
        "board": "座位一览",
        "alive": "存活",
        "claims": "至今的声明",
        "card": "身份卡",
        "fork": "从这里分叉",
        "reader": "阅读模式",
        "forks": "分叉按钮",
        "note": "私下理由",
        "call": "模型调用",
        "model": "模型",
        "attempt": "尝试",
        "repair": "修正",
        "tokens": "输入 → 输出 token",
        "cost": "费用（美元）",
        "latency": "延迟（秒）",
        "error": "错误",
        "reasoning": "私下推理",
        "answer": "原始回答",
        "prompt": "提示消息",
        "unfinished": "本局尚未结束。",
        "noscript": "此查看器需要 JavaScript（在本地运行，不会联网）。",
    },
}
CATEGORIES = ("speech", "referee", "decision")
# The effect that sets a seat's hit points (see sandbox/viewer/board.py): the board
# has an HP column when, and only when, some event of the game sets one.
HP = "hp"


@dataclass(frozen=True)
class PageEntry:
    """One entry as the page template needs it (all text; escaped by jinja)."""

    seq: int
    day: int
    phase: str
    title: str
    kind: str
    category: str
    vis: str
    audience: str
    speaker: str
    seats: str
    fx: str
    who: str
    sentence: str
    you: str
    speech: str | None
    fork: str
    note: str
    calls: tuple[dict[str, Any], ...]
    # reader mode (issue 38): "last", the day's last ballots, shows the day's
    # whole tally (``tally_text``); "extra", an earlier one, is hidden
    tally: str = ""
    tally_text: str = ""


def render_html(
    timeline: Timeline,
    *,
    seat_cards: Mapping[int, Sequence[tuple[int, Mapping[str, Any]]]] | None = None,
    fork_file: str | None = None,
    story: Story | None = None,
) -> str:
    """The viewer page for ``timeline`` (the referee's, or one seat's only).
    ``seat_cards``: each seat's card versions, for the referee page's seat audiences.
    ``fork_file``: the transcript path the "fork from here" commands name.
    ``story``: the recap its reader mode shows (a finished game's referee page)."""
    referee = timeline.seat is None
    audiences = ["referee", *map(str, timeline.seats)] if referee else [str(timeline.seat)]
    cards = seat_cards if referee and seat_cards is not None else {}
    if not referee:
        cards = {timeline.seat or 0: timeline.cards}
    return _ENV.get_template("page.html").render(
        t=timeline,
        lang=timeline.language,
        csp=CSP,
        style=_static("viewer.css"),
        script=_static("viewer.js"),
        ui=UI[timeline.language],
        audiences=audiences,
        days=sorted({e.day for e in timeline.entries}),
        kinds=sorted({e.kind for e in timeline.entries}),
        categories=CATEGORIES,
        entries=_tallied(
            [_page_entry(e, timeline, fork_file) for e in timeline.entries],
            story.tallies if story is not None else {},
        ),
        story=story,
        cards=_card_blocks(cards, timeline.language),
        seat_facts=_seat_facts(timeline, audiences),
        hp=any(HP in e.effects for e in timeline.entries),
    )


def _seat_facts(timeline: Timeline, audiences: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """The header facts a seat audience may read (no seed: it would reveal the deal)."""
    public = [(k, v) for k, v in timeline.facts if k in ("variant", "status")]
    return {
        a: [*public[:1], ("audience", f"seat {a} (only what it may see)"), *public[1:]]
        for a in audiences
        if a != "referee"
    }


def _page_entry(entry: Entry, timeline: Timeline, fork_file: str | None) -> PageEntry:
    words = entry.words
    who = " · ".join(x for x in (entry.role, entry.controller) if x)
    fork = ""
    if entry.fork_at is not None and fork_file is not None:
        fork = f"sandbox fork {fork_file} --at {entry.fork_at}"
    return PageEntry(
        seq=entry.seq,
        day=entry.day,
        phase=entry.phase,
        title=phase_title(entry.day, entry.phase, timeline.language, known_variants()),
        kind=entry.kind,
        category=entry.category,
        vis=entry.vis if isinstance(entry.vis, str) else " ".join(map(str, entry.vis)),
        audience=entry.audience,
        speaker="" if words.speaker is None else str(words.speaker),
        seats=" ".join(str(s) for s in sorted(_seats_named(entry))),
        fx=json.dumps(entry.effects, ensure_ascii=False, separators=(",", ":"))
        if entry.effects
        else "",
        who=who,
        sentence=words.sentence,
        you=entry.you.sentence if entry.you is not None else "",
        speech=words.speech,
        fork=fork,
        note=entry.note or "",
        calls=tuple(_call_view(c) for c in entry.calls),
    )


def _tallied(entries: list[PageEntry], tallies: Mapping[int, str]) -> list[PageEntry]:
    """The entries with each day's announcements of ballots marked: the last
    "last" (with the day's tally, when the story has one), the others "extra".
    Reader mode shows one vote tally per day (issue 38)."""
    votes = [e for e in entries if e.fx and "vote" in json.loads(e.fx)]
    last = {e.day: e.seq for e in votes}
    marked = {
        e.seq: replace(e, tally="last", tally_text=tallies.get(e.day, ""))
        if last[e.day] == e.seq
        else replace(e, tally="extra")
        for e in votes
    }
    return [marked.get(e.seq, e) for e in entries]


def story_html(story: Story) -> str:
    """The recap as a block of HTML (escaped by jinja), for any page."""
    return _ENV.get_template("story.html").render(s=story)


_SEAT_KEYS = ("seat", "target", "victim", "attacker", "defender", "suspect", "elite_seat")
_SEATS_KEYS = ("members", "dead", "tied")


def _seats_named(entry: Entry) -> set[int]:
    """The seats a line is about, for the seat filter: the speaker and every seat
    its event names."""
    named = {entry.speaker} if entry.speaker is not None else set()
    for seat in entry.effects.get(HP, {}):
        named.add(int(seat))
    named |= set(entry.effects.get("dead", ()))
    named |= {int(s) for s in entry.effects.get("role", {})}
    named |= set(_numbers_in(entry))
    return {s for s in named if s is not None}


def _numbers_in(entry: Entry) -> list[int]:
    data = entry.data
    out: list[int] = []
    for key in _SEAT_KEYS:
        if isinstance(data.get(key), int):
            out.append(data[key])
    for key in _SEATS_KEYS:
        out += [s for s in data.get(key) or () if isinstance(s, int)]
    return out


def _call_view(call: Any) -> dict[str, Any]:
    return {
        "summary": call.summary,
        "beliefs": call.beliefs,
        "model": call.model,
        "attempt": "-" if call.attempt is None else call.attempt,
        "repair": call.repair,
        "tokens_in": "-" if call.tokens_in is None else call.tokens_in,
        "tokens_out": "-" if call.tokens_out is None else call.tokens_out,
        "cost": "-" if call.cost is None else f"{call.cost:.5f}",
        "latency": "-" if call.latency_s is None else f"{call.latency_s:.2f}",
        "error": call.error,
        "reasoning": call.reasoning,
        "raw": call.raw,
        "messages": call.messages,
    }


def _card_blocks(
    cards: Mapping[int, Sequence[tuple[int, Mapping[str, Any]]]], language: str
) -> list[dict[str, Any]]:
    blocks = []
    for seat, versions in sorted(cards.items()):
        for seq, private in versions:
            rows, duels = card_rows(private, language, known_variants())
            blocks.append({"seat": seat, "seq": seq, "rows": rows, "duels": duels})
    return blocks


# ------------------------------------------------------------------ index


@dataclass(frozen=True)
class GameRow:
    name: str
    page: str
    variant: str
    seed: str
    study: str
    cell: str
    players: str
    outcome: str
    events: int
    decisions: int
    cost: str


INDEX_COLUMNS = (
    ("game", "text"),
    ("variant", "text"),
    ("seed", "number"),
    ("study", "text"),
    ("cell", "text"),
    ("players / models", "text"),
    ("outcome", "text"),
    ("events", "number"),
    ("decisions", "number"),
    ("cost ($)", "number"),
)


def render_index(folder: Path, games: Sequence[GameRow], skipped: Sequence[tuple[str, str]]) -> str:
    return _ENV.get_template("index.html").render(
        csp=CSP,
        style=_static("viewer.css"),
        script=_static("index.js"),
        folder=str(folder),
        games=games,
        columns=INDEX_COLUMNS,
        variants=sorted({g.variant for g in games}),
        skipped=skipped,
    )

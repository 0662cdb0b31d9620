# ruff: noqa: E501  (embedded HTML, CSS and JS: their lines are not Python)
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined

from sandbox.games.words import card_rows, phase_title
from sandbox.viewer.html_assets import INDEX_SCRIPT, PAGE_SCRIPT, STYLE
from sandbox.viewer.timeline import Entry, Timeline

# Inline script and style only; nothing may be fetched (no network).
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

PAGE = """<!DOCTYPE html>
<html lang="{{ lang }}"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ t.title }}</title>
<style>{{ style|safe }}</style></head>
<body data-variant="{{ t.variant }}" data-seats="{{ t.seats|join(' ') }}"
 data-audience="{{ audiences[0] }}" data-finished="{{ 'yes' if t.finished else 'no' }}">
<header>
<h1>{{ t.title }}</h1>
<div class="bar">
<label>{{ ui.audience }} <select id="audience">
{% for a in audiences %}<option value="{{ a }}">{{ ui.referee if a == 'referee' else ui.seat ~ ' ' ~ a }}</option>
{% endfor %}</select></label>
<span class="steps">
<button id="first" title="Home">|◀</button><button id="prev" title="← or k">◀</button>
<button id="next" title="→ or j">▶</button><button id="last" title="End">▶|</button>
<label>{{ ui.jump }} <input id="jump" type="number" min="0" size="5" title="g"></label>
<span id="position"></span></span>
</div>
<div class="bar filters">
<label>{{ ui.seat }} <select id="f-seat"><option value="">{{ ui.any }}</option>
{% for s in t.seats %}<option value="{{ s }}">{{ s }}</option>{% endfor %}</select></label>
<label>{{ ui.day }} <select id="f-day"><option value="">{{ ui.any }}</option>
{% for d in days %}<option value="{{ d }}">{{ d }}</option>{% endfor %}</select></label>
<label>{{ ui.kind }} <select id="f-kind"><option value="">{{ ui.any }}</option>
{% for k in kinds %}<option value="{{ k }}">{{ k }}</option>{% endfor %}</select></label>
{% for c in categories %}<label class="cat"><input type="checkbox" class="f-cat" value="{{ c }}" checked> {{ ui["cat_" ~ c] }}</label>
{% endfor %}<input id="search" type="search" placeholder="{{ ui.search }}" title="/">
</div>
<p class="hint">{{ ui.help }}{% if audiences|length > 1 %} {{ ui.referee_file }}{% endif %}</p>
<p id="status" role="status"></p>
</header>
<div class="layout">
<nav><h2>{{ ui.timeline }}</h2><ol id="nav"></ol></nav>
<main><dl class="facts" id="facts"></dl><div id="card"></div><div id="story"></div>
<section id="outcome" hidden><h2>{{ ui.outcome }}</h2><p id="summary"></p>
<table class="outcome"><thead><tr><th>{{ ui.seat }}</th><th>{{ ui.role }}</th><th>{{ ui.agent }}</th>
<th>{{ ui.result }}</th></tr></thead><tbody id="outcome-body"></tbody></table></section>
<noscript><p>{{ ui.noscript }}</p></noscript></main>
<aside><h2>{{ ui.board }}</h2><table class="board"><thead><tr><th>{{ ui.seat }}</th><th>{{ ui.alive }}</th>
{% if t.variant == 'four_factions' %}<th>HP</th>{% endif %}<th>{{ ui.role }}</th><th>{{ ui.claims }}</th></tr></thead>
<tbody id="board"></tbody></table></aside>
</div>
<template id="facts-referee">{% for k, v in t.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}</template>
{% for s, facts in seat_facts.items() %}<template class="facts-seat" data-seat="{{ s }}">{% for k, v in facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}</template>
{% endfor %}
<template id="truth">{% for s in t.seats %}{% if s in t.roles %}<span data-seat="{{ s }}" data-role="{{ t.roles[s] }}" data-ctl="{{ t.controllers.get(s, '?') }}"></span>{% endif %}{% endfor %}</template>
<template id="cards">{% for c in cards %}<div class="card" data-seat="{{ c.seat }}" data-seq="{{ c.seq }}"><strong>{{ ui.card }} ({{ ui.seat }} {{ c.seat }})</strong>
<dl>{% for k, v in c.rows %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}</dl>
{% if c.duels %}<table class="duels"><thead><tr>{% for h in c.duels[0] %}<th>{{ h }}</th>{% endfor %}</tr></thead><tbody>
{% for row in c.duels[1:] %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</tbody></table>{% endif %}
</div>{% endfor %}</template>
<template id="outcome-rows">{% for r in t.outcome_rows %}<tr data-seat="{{ r.seat }}"><td>{{ r.seat }}</td><td>{{ r.role or "?" }}</td>
<td class="agent">{{ r.agent or "?" }}</td><td class="{{ r.result or '' }}">{{ r.result or "-" }}</td></tr>{% endfor %}</template>
<template id="summary-text">{{ t.outcome_summary or ui.unfinished }}</template>
<template id="all-entries">
{% for e in entries %}<div class="entry cat-{{ e.category }}" id="e{{ e.seq }}" data-seq="{{ e.seq }}" data-day="{{ e.day }}"
 data-phase="{{ e.phase }}" data-title="{{ e.title }}" data-kind="{{ e.kind }}" data-cat="{{ e.category }}"
 data-vis="{{ e.vis }}" data-speaker="{{ e.speaker }}" data-seats="{{ e.seats }}" data-fx="{{ e.fx }}">
<a class="seq" href="#e{{ e.seq }}">#{{ e.seq }}</a>
{% if e.who %}<span class="who ref-only">{{ e.who }}</span>{% endif %}
{% if e.you %}<span class="sentence s-third">{{ e.sentence }}</span><span class="sentence s-you">{{ e.you }}</span>
{% else %}<span class="sentence">{{ e.sentence }}</span>{% endif %}
{% if e.speech is not none %}<q class="speech">{{ e.speech }}</q>{% endif %}
<span class="vis ref-only">{{ e.audience }}</span>
{% if e.fork %}<button class="fork" data-cmd="{{ e.fork }}" title="{{ e.fork }}">{{ ui.fork }}</button>{% endif %}
{% if e.note %}<div class="note ref-only">{{ ui.note }}: {{ e.note }}</div>{% endif %}
{% for c in e.calls %}<details class="mcall ref-only"><summary>{{ ui.call }}: {{ c.summary }}</summary>
{% if c.beliefs %}<div class="probe">beliefs: {{ c.beliefs }}</div>{% endif %}
<dl class="usage"><dt>{{ ui.model }}</dt><dd>{{ c.model }}</dd><dt>{{ ui.attempt }}</dt><dd>{{ c.attempt }}</dd>
<dt>{{ ui.repair }}</dt><dd>{{ c.repair }}</dd><dt>{{ ui.tokens }}</dt><dd>{{ c.tokens_in }} → {{ c.tokens_out }}</dd>
<dt>{{ ui.cost }}</dt><dd>{{ c.cost }}</dd><dt>{{ ui.latency }}</dt><dd>{{ c.latency }}</dd></dl>
{% if c.error %}<div class="error">{{ ui.error }}: {{ c.error }}</div>{% endif %}
{% if c.reasoning %}<details><summary>{{ ui.reasoning }}</summary><pre>{{ c.reasoning }}</pre></details>{% endif %}
<details><summary>{{ ui.answer }}</summary><pre>{{ c.raw }}</pre></details>
<details><summary>{{ ui.prompt }} ({{ c.messages|length }})</summary>
{% for role, content in c.messages %}<h4>{{ role }}</h4><pre>{{ content }}</pre>{% endfor %}</details>
</details>{% endfor %}
</div>
{% endfor %}</template>
<script id="viewer">{{ script|safe }}</script>
</body></html>
"""

INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<title>Games in {{ folder }}</title><style>{{ style|safe }}</style></head>
<body class="index">
<h1>Games in {{ folder }}</h1>
<p class="hint">Click a column to sort; type to filter. Each game's page is the referee's view
(switch the audience there).</p>
<div class="bar"><input id="filter" type="search" placeholder="filter (any column)">
<label>variant <select id="variant"><option value="">any</option>
{% for v in variants %}<option value="{{ v }}">{{ v }}</option>{% endfor %}</select></label>
<span id="count"></span></div>
<table class="games" id="games"><thead><tr>
{% for h, kind in columns %}<th data-type="{{ kind }}">{{ h }}</th>{% endfor %}</tr></thead><tbody>
{% for g in games %}<tr data-variant="{{ g.variant }}">
<td><a href="{{ g.page }}">{{ g.name }}</a></td><td>{{ g.variant }}</td><td>{{ g.seed }}</td>
<td>{{ g.study }}</td><td>{{ g.cell }}</td><td>{{ g.players }}</td><td>{{ g.outcome }}</td>
<td>{{ g.events }}</td><td>{{ g.decisions }}</td><td>{{ g.cost }}</td></tr>
{% endfor %}</tbody></table>
{% if skipped %}<h2>Skipped</h2><ul>{% for name, why in skipped %}<li>{{ name }}: {{ why }}</li>{% endfor %}</ul>{% endif %}
<script id="index">{{ script|safe }}</script>
</body></html>
"""

_ENV = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True)

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


def render_html(
    timeline: Timeline,
    *,
    seat_cards: Mapping[int, Sequence[tuple[int, Mapping[str, Any]]]] | None = None,
    fork_file: str | None = None,
) -> str:
    """The viewer page for ``timeline`` (the referee's, or one seat's only).
    ``seat_cards``: each seat's card versions, for the referee page's seat audiences.
    ``fork_file``: the transcript path the "fork from here" commands name."""
    referee = timeline.seat is None
    audiences = ["referee", *map(str, timeline.seats)] if referee else [str(timeline.seat)]
    cards = seat_cards if referee and seat_cards is not None else {}
    if not referee:
        cards = {timeline.seat or 0: timeline.cards}
    return _ENV.from_string(PAGE).render(
        t=timeline,
        lang=timeline.language,
        csp=CSP,
        style=STYLE,
        script=PAGE_SCRIPT,
        ui=UI[timeline.language],
        audiences=audiences,
        days=sorted({e.day for e in timeline.entries}),
        kinds=sorted({e.kind for e in timeline.entries}),
        categories=CATEGORIES,
        entries=[_page_entry(e, timeline, fork_file) for e in timeline.entries],
        cards=_card_blocks(cards, timeline.language),
        seat_facts=_seat_facts(timeline, audiences),
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
        title=phase_title(entry.day, entry.phase, timeline.language),
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


_SEAT_KEYS = ("seat", "target", "victim", "attacker", "defender", "suspect", "elite_seat")
_SEATS_KEYS = ("members", "dead", "tied")


def _seats_named(entry: Entry) -> set[int]:
    """The seats a line is about, for the seat filter: the speaker and every seat
    its event names."""
    named = {entry.speaker} if entry.speaker is not None else set()
    for seat, _ in entry.effects.get("hp", {}).items():
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
            rows, duels = card_rows(private, language)
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
    return _ENV.from_string(INDEX).render(
        csp=CSP,
        style=STYLE,
        script=INDEX_SCRIPT,
        folder=str(folder),
        games=games,
        columns=INDEX_COLUMNS,
        variants=sorted({g.variant for g in games}),
        skipped=skipped,
    )



# ruff: noqa: E501  (embedded HTML, CSS and JS: their lines are not Python)
"""The viewer's style and scripts, inlined into every page (no external file).

The scripts never use ``innerHTML``: they clone the escaped nodes the server
rendered into ``<template>`` elements and set generated labels with
``textContent``.
"""

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;color:#222;line-height:1.45;background:#fafafa}
header{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #ddd;
 padding:.5rem 1rem}
h1{font-size:1.2rem;margin:.2rem 0}
h2{font-size:1rem;color:#4a6fa5;border-bottom:2px solid #4a6fa5;margin:1.2rem 0 .4rem}
.bar{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:.3rem 0}
.bar button{font-size:1rem;padding:.1rem .5rem}
.hint{color:#777;font-size:.8rem;margin:.2rem 0}
#status{color:#2f855a;font-size:.85rem;margin:.2rem 0;min-height:1em}
.layout{display:grid;grid-template-columns:12rem minmax(0,1fr) 22rem;gap:1rem;padding:0 1rem}
nav ol{list-style:none;padding:0;margin:0;font-size:.85rem}
nav li button{background:none;border:none;color:#2b6cb0;cursor:pointer;padding:.1rem 0;text-align:left}
nav li.here button{font-weight:700}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;font-size:.85rem}
dl.facts dt{color:#666}
.entry{margin:.25rem 0;padding:.25rem .5rem;border-left:4px solid transparent;background:#fff}
.entry.current{outline:2px solid #f6ad55}
.entry .seq{color:#999;font-size:.75rem;text-decoration:none;margin-right:.4rem;font-family:monospace}
.entry .who{background:#edf2f7;color:#4a5568;font-size:.75rem;border-radius:3px;padding:0 .3rem;
 margin-right:.4rem}
.entry .vis{color:#aaa;font-size:.7rem;margin-left:.5rem}
.cat-referee{border-left-color:#2b6cb0;color:#1a4f85}
.cat-decision{border-left-color:#bbb;color:#555;font-size:.92rem}
.cat-speech{border-left-color:#999;background:#f7f7f2}
.cat-ending{border-left-color:#2f855a;font-weight:700}
q.speech{display:block;white-space:pre-wrap;margin:.2rem 0 .1rem 1rem;font-style:italic;color:#222}
q.speech::before{content:open-quote}q.speech::after{content:close-quote}
.cat-speech .sentence,.cat-ending .sentence{font-weight:600}
.note{color:#8a4fc7;font-size:.85rem;margin-left:1rem;white-space:pre-wrap}
button.fork{font-size:.7rem;margin-left:.5rem;color:#666;background:#f0f0f0;border:1px solid #ccc;
 border-radius:3px;cursor:pointer}
details.mcall{margin:.2rem 0 .2rem 1rem;font-size:.8rem;color:#555}
details.mcall pre{white-space:pre-wrap;background:#f4f4f4;padding:.4rem;max-height:24rem;overflow:auto}
details.mcall dl.usage{display:grid;grid-template-columns:max-content 1fr;gap:0 .8rem}
.probe{color:#8a4fc7}.error{color:#c53030}
table{border-collapse:collapse;font-size:.85rem}
td,th{border:1px solid #ddd;padding:.15rem .4rem;vertical-align:top}
table.board{width:100%}
table.board tr.dead td{color:#aaa;text-decoration:line-through}
table.board tr.you td{background:#fffbe6}
.card{background:#f5eefc;border-left:4px solid #8a4fc7;padding:.4rem .8rem;margin:.5rem 0}
.card dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:.3rem 0}
.card dt{color:#666}
.win{color:#2f855a;font-weight:700}.lose{color:#c53030}.draw{color:#975a16}
body.index{padding:1rem}
table.games th{cursor:pointer;background:#edf2f7}
table.games th.asc::after{content:" ▲"}table.games th.desc::after{content:" ▼"}
@media (max-width:900px){.layout{grid-template-columns:1fr}}
"""

PAGE_SCRIPT = r"""
(function () {
  "use strict";
  const $ = (sel) => document.querySelector(sel);
  const ALL = $("#all-entries").content;
  const TRUTH = $("#truth").content;
  const CARDS = $("#cards").content;
  const SEATS = document.body.dataset.seats.split(" ").filter(Boolean);
  const FF = document.body.dataset.variant === "four_factions";
  const FINISHED = document.body.dataset.finished === "yes";
  const story = $("#story"), nav = $("#nav"), board = $("#board");
  const state = { aud: document.body.dataset.audience, list: [], cursor: -1 };

  function visibleTo(el, aud) {
    if (aud === "referee") return true;
    const vis = el.dataset.vis;
    if (vis === "public") return true;
    if (vis === "referee") return false;
    return vis.split(" ").includes(aud);
  }

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }

  function facts() {
    const box = $("#facts");
    box.replaceChildren();
    let src = $("#facts-referee");
    if (state.aud !== "referee") {
      src = document.querySelector('template.facts-seat[data-seat="' + state.aud + '"]');
    }
    if (src) box.append(src.content.cloneNode(true));
  }

  function build() {
    story.replaceChildren();
    nav.replaceChildren();
    state.list = [];
    let key = null, section = null;
    for (const src of ALL.children) {
      if (!visibleTo(src, state.aud)) continue;
      const el = src.cloneNode(true);
      if (state.aud === "referee") {
        el.querySelectorAll(".s-you").forEach((n) => n.remove());
      } else {
        el.querySelectorAll(".ref-only").forEach((n) => n.remove());
        const mine = el.dataset.speaker === state.aud;
        el.querySelectorAll(mine ? ".s-third" : ".s-you").forEach((n) => n.remove());
      }
      const here = el.dataset.day + "|" + el.dataset.phase;
      if (here !== key) {
        key = here;
        section = document.createElement("section");
        section.append(text("h2", el.dataset.title));
        story.append(section);
        const item = document.createElement("li");
        const go = text("button", el.dataset.title);
        const first = state.list.length;
        go.addEventListener("click", () => jumpToSection(first));
        item.append(go);
        nav.append(item);
        section.dataset.nav = String(nav.children.length - 1);
      }
      section.append(el);
      state.list.push(el);
    }
    facts();
    state.cursor = state.list.length - 1;
    render(false);
  }

  function jumpToSection(first) {
    let last = first;
    const sec = state.list[first].parentElement;
    while (last + 1 < state.list.length && state.list[last + 1].parentElement === sec) last++;
    state.cursor = last;
    render(false);
    sec.scrollIntoView({ block: "start" });
  }

  function filters() {
    const cats = Array.from(document.querySelectorAll(".f-cat")).filter((c) => c.checked).map((c) => c.value);
    return {
      seat: $("#f-seat").value,
      day: $("#f-day").value,
      kind: $("#f-kind").value,
      cats: cats,
      q: $("#search").value.trim().toLowerCase(),
    };
  }

  function passes(el, f) {
    if (f.seat && !el.dataset.seats.split(" ").includes(f.seat)) return false;
    if (f.day && el.dataset.day !== f.day) return false;
    if (f.kind && el.dataset.kind !== f.kind) return false;
    const cat = el.dataset.cat === "ending" || el.dataset.cat === "bookkeeping" ? "referee" : el.dataset.cat;
    if (!f.cats.includes(cat)) return false;
    if (f.q && !el.textContent.toLowerCase().includes(f.q)) return false;
    return true;
  }

  function render(scroll) {
    const f = filters();
    let shown = 0;
    state.list.forEach((el, i) => {
      const show = i <= state.cursor && passes(el, f);
      el.hidden = !show;
      if (show) shown++;
      el.classList.toggle("current", i === state.cursor);
    });
    let here = null;
    story.querySelectorAll("section").forEach((sec) => {
      const any = Array.from(sec.querySelectorAll(".entry")).some((e) => !e.hidden);
      sec.hidden = !any;
      const item = nav.children[Number(sec.dataset.nav)];
      if (item) item.hidden = !any;
    });
    const cur = state.list[state.cursor];
    if (cur) here = nav.children[Number(cur.parentElement.dataset.nav)];
    Array.from(nav.children).forEach((li) => li.classList.toggle("here", li === here));
    $("#position").textContent = cur
      ? "#" + cur.dataset.seq + " (" + (state.cursor + 1) + "/" + state.list.length + ", " + shown + ")"
      : "";
    renderBoard();
    renderCard();
    renderOutcome();
    if (scroll && cur && !cur.hidden) cur.scrollIntoView({ block: "nearest" });
  }

  function renderBoard() {
    const seats = {};
    SEATS.forEach((s) => (seats[s] = { alive: true, hp: "", role: "", claims: [] }));
    if (state.aud === "referee") {
      for (const span of TRUTH.children) {
        const s = seats[span.dataset.seat];
        if (s) s.role = span.dataset.role + " · " + span.dataset.ctl;
      }
    }
    for (let i = 0; i <= state.cursor; i++) {
      const raw = state.list[i].dataset.fx;
      if (!raw) continue;
      const fx = JSON.parse(raw);
      (fx.dead || []).forEach((d) => { if (seats[d]) seats[d].alive = false; });
      Object.entries(fx.hp || {}).forEach(([s, hp]) => { if (seats[s]) seats[s].hp = String(hp); });
      if (state.aud !== "referee") {
        Object.entries(fx.role || {}).forEach(([s, r]) => { if (seats[s]) seats[s].role = r; });
      }
      Object.entries(fx.claim || {}).forEach(([s, c]) => { if (seats[s]) seats[s].claims.push(c); });
    }
    board.replaceChildren();
    SEATS.forEach((n) => {
      const s = seats[n];
      const row = document.createElement("tr");
      row.dataset.seat = n;
      if (!s.alive) row.classList.add("dead");
      if (n === state.aud) row.classList.add("you");
      row.append(text("td", n), text("td", s.alive ? "✓" : "✝"));
      if (FF) row.append(text("td", s.hp));
      const claims = document.createElement("td");
      s.claims.forEach((c) => claims.append(text("div", c)));  // one claim a line
      row.append(text("td", s.role), claims);
      board.append(row);
    });
  }

  function renderCard() {
    const box = $("#card");
    box.replaceChildren();
    if (state.aud === "referee") return;
    const cur = state.list[state.cursor];
    const seq = cur ? Number(cur.dataset.seq) : -1;
    let best = null;
    for (const card of CARDS.children) {
      if (card.dataset.seat === state.aud && Number(card.dataset.seq) <= seq) best = card;
    }
    if (best) box.append(best.cloneNode(true));
  }

  function renderOutcome() {
    const out = $("#outcome");
    const atEnd = state.cursor === state.list.length - 1;
    out.hidden = !atEnd;
    const body = $("#outcome-body");
    body.replaceChildren();
    $("#summary").textContent = "";
    if (!atEnd) return;
    $("#summary").textContent = $("#summary-text").content.textContent;
    for (const row of $("#outcome-rows").content.children) {
      const copy = row.cloneNode(true);
      if (state.aud !== "referee" && copy.dataset.seat !== state.aud) {
        copy.querySelector(".agent").textContent = "?";
        if (!FINISHED) copy.children[1].textContent = "?";
      }
      body.append(copy);
    }
  }

  function step(to) {
    state.cursor = Math.max(0, Math.min(state.list.length - 1, to));
    render(true);
  }

  function jump(n) {
    let best = 0;
    state.list.forEach((el, i) => { if (Number(el.dataset.seq) <= n) best = i; });
    step(best);
  }

  $("#audience").addEventListener("change", (e) => { state.aud = e.target.value; build(); });
  $("#first").addEventListener("click", () => step(0));
  $("#prev").addEventListener("click", () => step(state.cursor - 1));
  $("#next").addEventListener("click", () => step(state.cursor + 1));
  $("#last").addEventListener("click", () => step(state.list.length - 1));
  $("#jump").addEventListener("change", (e) => jump(Number(e.target.value)));
  ["#f-seat", "#f-day", "#f-kind", "#search"].forEach((s) => $(s).addEventListener("input", () => render(false)));
  document.querySelectorAll(".f-cat").forEach((c) => c.addEventListener("change", () => render(false)));
  story.addEventListener("click", (e) => {
    const button = e.target.closest("button.fork");
    if (!button) return;
    const cmd = button.dataset.cmd;
    $("#status").textContent = cmd;
    if (navigator.clipboard) navigator.clipboard.writeText(cmd).catch(() => {});
  });
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (e.key === "Escape" && typing) { document.activeElement.blur(); return; }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "ArrowRight" || e.key === "j") step(state.cursor + 1);
    else if (e.key === "ArrowLeft" || e.key === "k") step(state.cursor - 1);
    else if (e.key === "Home") step(0);
    else if (e.key === "End") step(state.list.length - 1);
    else if (e.key === "/") $("#search").focus();
    else if (e.key === "g") $("#jump").focus();
    else return;
    e.preventDefault();
  });
  build();
})();
"""

INDEX_SCRIPT = r"""
(function () {
  "use strict";
  const table = document.getElementById("games");
  const body = table.tBodies[0];
  const filter = document.getElementById("filter");
  const variant = document.getElementById("variant");
  const count = document.getElementById("count");
  function apply() {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of body.rows) {
      const ok = (!variant.value || row.dataset.variant === variant.value) &&
        (!q || row.textContent.toLowerCase().includes(q));
      row.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + " / " + body.rows.length;
  }
  Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
    th.addEventListener("click", () => {
      const asc = !th.classList.contains("asc");
      Array.from(th.parentElement.cells).forEach((c) => c.classList.remove("asc", "desc"));
      th.classList.add(asc ? "asc" : "desc");
      const num = th.dataset.type === "number";
      const key = (row) => {
        const t = row.cells[col].textContent.trim();
        return num ? (t === "" || isNaN(Number(t)) ? -Infinity : Number(t)) : t.toLowerCase();
      };
      const rows = Array.from(body.rows).sort((a, b) => {
        const x = key(a), y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach((r) => body.append(r));
    });
  });
  filter.addEventListener("input", apply);
  variant.addEventListener("change", apply);
  apply();
})();
"""

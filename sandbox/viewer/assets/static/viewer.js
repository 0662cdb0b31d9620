(function () {
  "use strict";
  const $ = (sel) => document.querySelector(sel);
  const ALL = $("#all-entries").content;
  const TRUTH = $("#truth").content;
  const CARDS = $("#cards").content;
  const SEATS = document.body.dataset.seats.split(" ").filter(Boolean);
  const HP = document.body.dataset.hp === "yes";  // the game's events set hit points
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
      if (HP) row.append(text("td", s.hp));
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
  // Reader mode (issue 38): the story at the end, one vote tally per day, no
  // decisions; fork buttons only when asked. "#reader" in the address opens it.
  const reader = $("#reader"), forks = $("#show-forks");
  const readMode = () => {
    document.body.classList.toggle("reader", reader.checked);
    document.body.classList.toggle("forks", forks.checked);
  };
  reader.addEventListener("change", readMode);
  forks.addEventListener("change", readMode);
  if (location.hash === "#reader") { reader.checked = true; readMode(); }
  build();
})();

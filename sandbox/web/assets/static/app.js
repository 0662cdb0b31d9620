"use strict";
// The seat page and the spectator page: swap in the fragments the server
// rendered, run the countdown, ask for a confirmation before an answer is sent.
(function () {
  const t = Live.t;
  const mode = Live.boot.mode;
  const $ = function (id) { return document.getElementById(id); };
  let shown = {};
  let deadline = null;
  let over = false;
  // The draft key of a question whose time ran out (its words are kept and
  // offered again in the next question: nothing typed is lost).
  let unsentKey = "";

  function setStatus(state) {
    const status = $("status");
    // a spectator's page names its game until the game is over
    const ended = state.status === "ended";
    status.textContent = (!ended && state.status_text) || t[state.status] || "";
    status.className = state.status || "";
  }

  function apply(state) {
    if (state.view_html !== shown.view_html) {
      $("view").innerHTML = state.view_html || "";
      keepFolds();
      markNew();
    }
    if (mode === "seat") { showNotice(state); }
    if (mode === "seat" && state.request_id !== shown.request_id) {
      $("form").innerHTML = state.form_html || "";
      $("error").textContent = state.error || "";
      betweenRounds(state.request_id);
      bindForm();
    }
    if (state.end_html !== shown.end_html) { $("end").innerHTML = state.end_html || ""; }
    if (state.rules !== shown.rules) { $("rules-text").textContent = state.rules || ""; }
    if (state.title) { $("title").textContent = state.title; document.title = state.title; }
    deadline = (state.remaining_s === null || state.remaining_s === undefined)
      ? null : Date.now() + state.remaining_s * 1000;
    tick();
    over = state.status === "ended";
    document.body.classList.toggle("ended", over);
    // no actions once the seat is no longer this person's to play
    document.body.classList.toggle("released", state.status === "handed_back" || state.status === "left");
    $("out").hidden = !state.out;
    $("out-note").textContent = state.out || "";
    setStatus(state);
    shown = state;
  }

  // The days the person opened or closed stay so when the history is redrawn
  // (a click on a day's heading, not the toggle event: that one also fires for
  // a day the server sent open).
  const folded = {};
  function keepFolds() {
    document.querySelectorAll("#view details.day").forEach(function (day) {
      if (day.dataset.day in folded) { day.open = folded[day.dataset.day]; }
    });
  }
  $("view").addEventListener("click", function (event) {
    const heading = event.target.closest && event.target.closest("details.day > summary");
    if (heading) { folded[heading.parentElement.dataset.day] = !heading.parentElement.open; }
  });

  // A refusal is read where the person looks: beside the Send button, scrolled to.
  function showRefusal(text) {
    const box = $("error");
    box.textContent = text;
    if (text) { box.scrollIntoView({block: "nearest"}); }
  }

  function markNew() {
    const link = $("jump-new");
    if (!link) { return; }
    const first = document.querySelector("#view li.new");
    link.hidden = !first;
    link.onclick = function (event) {
      event.preventDefault();
      if (first) {
        const day = first.closest("details.day");
        if (day) { day.open = true; }
        first.scrollIntoView({block: "center"});
      }
    };
  }

  function tick() {
    const box = $("countdown");
    if (deadline === null || over) { box.hidden = true; return; }
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    box.hidden = false;
    $("countdown-s").textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    box.classList.toggle("urgent", left <= 10);
  }
  setInterval(tick, 250);

  // What the person wrote or ticked, per seat and question, kept in this
  // browser until the answer is confirmed: a reload or a lost connection
  // brings it back.
  function draftKey(form) { return "sandbox-draft:" + Live.token + ":" + form.dataset.draft; }

  function saveDraft(form) {
    const draft = {};
    form.querySelectorAll("fieldset[data-field]").forEach(function (box) {
      const name = box.dataset.field;
      if (box.dataset.kind === "text") {
        draft[name] = box.querySelector("textarea").value;
      } else if (box.dataset.kind === "select") {
        draft[name] = [box.querySelector("select").value];
      } else {
        draft[name] = Array.from(box.querySelectorAll("input:checked")).map(function (b) { return b.value; });
      }
    });
    try { localStorage.setItem(draftKey(form), JSON.stringify(draft)); } catch (e) { /* private mode */ }
  }

  function restoreDraft(form) {
    let draft = null;
    try { draft = JSON.parse(localStorage.getItem(draftKey(form)) || "null"); } catch (e) { draft = null; }
    if (!draft) { return; }
    form.querySelectorAll("fieldset[data-field]").forEach(function (box) {
      const saved = draft[box.dataset.field];
      if (saved === undefined) { return; }
      if (box.dataset.kind === "text") {
        box.querySelector("textarea").value = saved;
      } else if (box.dataset.kind === "select") {
        box.querySelector("select").value = saved[0] || "";
      } else {
        box.querySelectorAll("input").forEach(function (b) { b.checked = saved.indexOf(b.value) >= 0; });
      }
    });
  }

  function clearDraft(form) {
    try { localStorage.removeItem(draftKey(form)); } catch (e) { /* private mode */ }
    if (unsentKey) {  // answered: the words kept from a time-out are done with
      try { localStorage.removeItem("sandbox-draft:" + Live.token + ":" + unsentKey); } catch (e) { /* */ }
    }
  }

  // The text fields of a kept draft (a time-out's): field name -> words.
  function unsentTexts() {
    let draft = null;
    try {
      draft = JSON.parse(localStorage.getItem("sandbox-draft:" + Live.token + ":" + unsentKey) || "null");
    } catch (e) { draft = null; }
    const texts = {};
    Object.keys(draft || {}).forEach(function (name) {
      if (typeof draft[name] === "string" && draft[name].trim()) { texts[name] = draft[name]; }
    });
    return texts;
  }

  // "Time ran out: the referee passed for you." and the words that were not sent.
  function showNotice(state) {
    unsentKey = state.unsent || "";
    $("notice").hidden = !state.notice;
    $("notice-text").textContent = state.notice || "";
    const texts = unsentKey ? Object.values(unsentTexts()) : [];
    $("unsent").hidden = texts.length === 0;
    $("unsent-text").textContent = texts.join("\n");
  }

  // The next question's empty text field of the same name gets the kept words.
  function carryUnsent(form) {
    if (!unsentKey) { return; }
    const texts = unsentTexts();
    let carried = false;
    form.querySelectorAll("fieldset[data-kind=text]").forEach(function (box) {
      const area = box.querySelector("textarea");
      if (!area.value && texts[box.dataset.field]) { area.value = texts[box.dataset.field]; carried = true; }
    });
    if (carried) { saveDraft(form); }
  }

  // The answer and, per field, its labelled words for the confirmation
  // ("Your vote: Seat 2", "Your speech: “…”"); a required field left empty.
  function collect(form) {
    const answer = {};
    const picked = [];
    let missing = null;
    let tooMany = null;
    form.querySelectorAll("fieldset[data-field]").forEach(function (box) {
      const name = box.dataset.field;
      const kind = box.dataset.kind;
      const said = function (words) { picked.push(box.dataset.confirm + t.label_sep + words); };
      if (kind === "text") {
        const text = box.querySelector("textarea").value;
        answer[name] = text;
        said(text.trim() ? "\u201c" + text + "\u201d" : t.said_nothing);
      } else if (kind === "select") {
        const select = box.querySelector("select");
        if (select.value !== "") {
          answer[name] = JSON.parse(select.value);
          said(select.options[select.selectedIndex].textContent);
        }
      } else if (kind === "multi") {
        const boxes = Array.from(box.querySelectorAll("input:checked"));
        answer[name] = boxes.map(function (b) { return JSON.parse(b.value); });
        if (boxes.length > Number(box.dataset.limit || boxes.length)) { tooMany = box; }
        if (boxes.length) { said(boxes.map(function (b) { return b.dataset.words; }).join(", ")); }
      } else {
        const radio = box.querySelector("input:checked");
        if (radio) { answer[name] = JSON.parse(radio.value); said(radio.dataset.words); }
      }
      if (box.dataset.required && !(name in answer) && missing === null) { missing = box; }
    });
    if (form.dataset.speak) { answer.speak = true; }  // OD-5: Send posts; Wait is its own button
    return {answer: answer, picked: picked, missing: missing, tooMany: tooMany};
  }

  // OD-7: an open day's box stays up between two rounds (no question open: the
  // server kept the form). A message sent then is held, and goes out as the next
  // round's ask opens, as the person's message of that round.
  let held = null;  // the day's draft key of the message held
  function betweenRounds(requestId) {
    const form = $("decision");
    if (form && !requestId) { form.dataset.between = "1"; }
  }
  // The new round's form holds the same draft (the day's): it is sent as typed,
  // through the referee's dry run like any message.
  function sendHeld(form) {
    const same = held !== null && held === form.dataset.draft && form.dataset.speak;
    held = null;
    if (same) { form.requestSubmit(); }
  }

  // Every element of the question is the form's own, looked up once: after
  // any await the pushed state may have replaced the form (the next question)
  // or emptied it (answered, timed out, handed back), and a lookup by id would
  // find the new form's buttons or nothing.
  function bindForm() {
    const form = $("decision");
    if (!form) { return; }
    const sendButton = form.querySelector("#send");
    const confirmBox = form.querySelector("#confirm");
    const confirmWhat = form.querySelector("#confirm-what");
    const confirmYes = form.querySelector("#confirm-yes");
    const confirmShown = form.querySelector("#confirm-shown");
    let pending = null;
    function showError(text) { if (form.isConnected) { showRefusal(text); } }
    function unconfirm() {  // back to editing: what the confirmation quoted is stale
      pending = null;
      confirmBox.hidden = true;
      sendButton.hidden = false;
    }
    restoreDraft(form);
    carryUnsent(form);
    form.addEventListener("input", function () { saveDraft(form); if (pending) { unconfirm(); } });
    form.addEventListener("change", function () { saveDraft(form); if (pending) { unconfirm(); } });
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      const asked = collect(form);
      // what the page can check itself, then the referee's dry run, before asking
      if (asked.missing) {
        showError(t.required.replace("{what}", asked.missing.querySelector("legend").textContent));
        return;
      }
      if (asked.tooMany) {
        showError(asked.tooMany.querySelector("small").textContent);
        return;
      }
      if (form.dataset.between) {  // OD-7: held for the next round's ask
        held = form.dataset.draft;
        sendButton.disabled = true;
        const note = form.querySelector("#chat-queued");
        if (note) { note.hidden = false; }
        return;
      }
      sendButton.disabled = true;
      const checked = await Live.post("/api/check", {request: form.dataset.request, answer: asked.answer});
      sendButton.disabled = false;
      if (!form.isConnected) { return; }  // the question is gone meanwhile
      if (!checked.ok) { showError(checked.data.error || t.not_sent); return; }
      showError("");
      const changed = Object.values((checked.data && checked.data.shown) || {});
      if (form.dataset.speak && changed.length === 0) {
        // OD-7: a chat message goes at once, like a line in any chat (words the
        // referee would change are still shown first, below)
        send(form, sendButton, asked.answer);
        return;
      }
      pending = asked;
      confirmWhat.textContent = asked.picked.join(" \u00b7 ");
      // words the referee will change (softened) are shown before the Confirm
      confirmShown.hidden = changed.length === 0;
      form.querySelector("#confirm-shown-text").textContent = changed.join(" \u00b7 ");
      confirmBox.hidden = false;
      sendButton.hidden = true;
      confirmYes.focus();
    });
    confirmYes.addEventListener("click", function () {
      if (pending) { const answer = pending.answer; unconfirm(); send(form, sendButton, answer); }
    });
    form.querySelector("#confirm-no").addEventListener("click", function () {
      unconfirm();
      const first = form.querySelector("input, select, textarea");
      if (first) { first.focus(); }
    });
    const waitButton = form.querySelector("#wait");
    if (waitButton) {  // OD-5: waiting says nothing, so there is nothing to confirm
      waitButton.addEventListener("click", function () { unconfirm(); send(form, waitButton, {speak: false}); });
    }
    if (!form.dataset.between) { sendHeld(form); }
    if (waitButton && form.dataset.between) { waitButton.disabled = true; }  // nothing to pass
    const lines = form.querySelector("#chat ol.chat-lines");
    if (lines) { lines.scrollTop = lines.scrollHeight; }  // the latest message in sight
    const first = form.querySelector("input, select, textarea");
    if (first) { first.focus({preventScroll: true}); }
  }

  async function send(form, button, answer) {
    button.disabled = true;
    const reply = await Live.post("/api/answer", {request: form.dataset.request, answer: answer});
    if (reply.ok) {
      clearDraft(form);  // the button stays disabled: this question is answered
      return;
    }
    button.disabled = false;
    if (form.isConnected) { showRefusal(reply.data.error || t.not_sent); }
  }

  function rulesShown(open) {
    $("rules").hidden = !open;
    $("rules-open").setAttribute("aria-expanded", String(open));
    if (open) { $("rules-close").focus(); } else { $("rules-open").focus(); }
  }
  $("rules-open").addEventListener("click", function () { rulesShown($("rules").hidden); });
  $("rules-close").addEventListener("click", function () { rulesShown(false); });
  // the "Now" panel's link to the rules in full (its summary names only what differs)
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-open-rules]")) { rulesShown(true); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !$("rules").hidden) { rulesShown(false); }
  });
  const leave = $("leave");
  if (leave) {
    leave.addEventListener("click", function () {
      if (window.confirm(t.leave_confirm)) { Live.post("/api/leave", {}); }
    });
  }
  if (mode === "seat") {  // the form the page came with answers at once
    shown = {request_id: Live.boot.request_id};
    unsentKey = Live.boot.unsent || "";
    $("error").textContent = Live.boot.error || "";
    betweenRounds(Live.boot.request_id);
    bindForm();
  }
  Live.connect(apply, function () { return over; });
})();

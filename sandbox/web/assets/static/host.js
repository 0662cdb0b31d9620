"use strict";
// The host panel: who plays each seat, hand a seat to a person or back to an AI,
// spectator links. Every value goes in with textContent, never as HTML.
(function () {
  const t = Live.t;
  const $ = function (id) { return document.getElementById(id); };
  let over = false;

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function button(label, action) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", action);
    return b;
  }

  function link(url) {
    const a = document.createElement("a");
    a.href = url;
    a.textContent = url;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    return a;
  }

  async function act(path, body) {
    const reply = await Live.post(path, body);
    $("error").textContent = reply.ok ? "" : (reply.data.error || t.not_sent);
  }

  function apply(state) {
    over = state.status === "ended";
    $("status").textContent = t["host_" + state.status] || state.status || "";
    $("start").hidden = state.status !== "ready";
    const body = $("seats").querySelector("tbody");
    body.textContent = "";
    state.seats.forEach(function (seat) {
      const row = document.createElement("tr");
      row.dataset.seat = seat.seat;
      cell(row, t.seat.replace("{n}", seat.seat));
      cell(row, seat.controller + (seat.switch_to ? " → " + seat.switch_to : ""));
      const actions = cell(row, "");
      if (seat.can_take) {
        actions.appendChild(button(t.take_over, function () { act("/api/host/take", {seat: seat.seat}); }));
      }
      if (seat.can_return) {
        actions.appendChild(button(t.hand_back, function () { act("/api/host/return", {seat: seat.seat}); }));
      }
      actions.appendChild(button(t.watch_seat, function () { act("/api/host/watch", {target: seat.seat}); }));
      const where = cell(row, "");
      if (seat.url) { where.appendChild(link(seat.url)); }
      body.appendChild(row);
    });
    const links = $("links");
    links.textContent = "";
    state.links.forEach(function (item) {
      const li = document.createElement("li");
      li.textContent = item.label + ": ";
      li.appendChild(link(item.url));
      links.appendChild(li);
    });
  }

  $("start").addEventListener("click", function () { act("/api/host/start", {}); });
  $("watch-referee").addEventListener("click", function () {
    act("/api/host/watch", {target: "referee"});
  });
  Live.connect(apply, function () { return over; });
})();

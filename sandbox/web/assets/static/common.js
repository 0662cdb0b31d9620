"use strict";
// Shared by every page: the token from the address, a WebSocket that pushes the
// page's state and comes back after a reload or a dropped connection.
window.Live = (function () {
  const token = new URLSearchParams(location.search).get("t") || "";
  const query = "?t=" + encodeURIComponent(token);
  const boot = JSON.parse(document.getElementById("boot").textContent);

  function connect(onState, isOver) {
    let wait = 300;
    const conn = document.getElementById("conn");
    function open() {
      const scheme = location.protocol === "https:" ? "wss://" : "ws://";
      const socket = new WebSocket(scheme + location.host + "/ws" + query);
      socket.onopen = function () { wait = 300; conn.textContent = ""; conn.className = ""; };
      socket.onmessage = function (message) { onState(JSON.parse(message.data)); };
      socket.onclose = function () {
        if (isOver()) {  // the game ended and its server stopped: not an error
          conn.textContent = boot.t.server_gone;
          conn.className = "note";
          return;
        }
        conn.textContent = boot.t.reconnecting;
        conn.className = "";
        setTimeout(open, wait);
        wait = Math.min(wait * 2, 5000);
      };
    }
    open();
  }

  // Never rejects: a dropped connection is a reply like any refusal
  // ({ok: false}), so no caller is left with a disabled button.
  async function post(path, body) {
    let response;
    try {
      response = await fetch(path + query, {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify(body),
      });
    } catch (e) {
      return {ok: false, data: {error: boot.t.not_sent}};
    }
    let data = {};
    try { data = await response.json(); } catch (e) { data = {error: response.statusText}; }
    return {ok: response.ok, data: data};
  }

  return {boot: boot, t: boot.t, token: token, connect: connect, post: post};
})();

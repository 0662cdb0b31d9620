// A remote seat's program in JavaScript (docs/remote-agents.md): it connects to
// the address `sandbox run` announced, answers every observation with one of
// its legal moves, and prints the game_over message as one JSON line.
//
//   node --experimental-websocket examples/remote_client.mjs 'ws://127.0.0.1:PORT/agent?t=TOKEN'
//
// Node.js 22 has WebSocket built in; Node.js 20 needs the flag above. No packages.

const url = process.argv[2];
if (!url) {
  console.error("usage: remote_client.mjs WS_URL");
  process.exit(2);
}

function connect(triesLeft) {
  const socket = new WebSocket(url);
  let opened = false;
  let last = null;
  socket.onopen = () => { opened = true; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "observation") {
      last = message;
      answer(socket, message);
    } else if (message.type === "refused" && last && message.attempts_left > 0) {
      answer(socket, last);
    } else if (message.type === "game_over") {
      console.log(JSON.stringify(message));
      socket.close();
      process.exit(0);
    }
  };
  socket.onerror = () => {};
  socket.onclose = () => {
    if (!opened && triesLeft > 0) {
      setTimeout(() => connect(triesLeft - 1), 100); // the run may still be starting
    } else {
      console.error("the server closed the connection before the game ended");
      process.exit(1);
    }
  };
}

function answer(socket, message) {
  const moves = message.observation.moves;
  const move = moves.length ? moves[Math.floor(Math.random() * moves.length)] : {};
  socket.send(JSON.stringify({ type: "answer", request_id: message.request_id, answer: move }));
}

connect(200);

"""A person playing one seat in a browser page served on loopback.

The seat's page shows only what the terminal seat would print: ``ctx.view``
(the role card, the public state, the events this seat may see) and, while the
seat owes a decision, a form built from the request's fields. Nothing else of
the game reaches this module, so nothing else can leak through it.

The server is stdlib ``http.server`` in a daemon thread, bound to 127.0.0.1,
started when the agent is built and stopped by ``close()`` (or at exit). Every
request must carry the per-run token (``?t=...``); anything else gets 403.
Answers arrive as JSON, are checked with the referee's dry run
(``ctx.validate``) on the game's event loop, and an illegal one is refused with
the referee's own message while the question stays open. "Leave game" makes
this and every later decision the referee's fallback, recorded as FALLBACK_QUIT.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import hmac
import html
import json
import secrets
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TypeVar, cast
from urllib.parse import parse_qs, urlsplit

from sandbox.agents.base import (
    FALLBACK_QUIT,
    FALLBACK_TIMEOUT,
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
)
from sandbox.core.errors import IllegalDecision, RefereeError
from sandbox.core.events import DecisionMade
from sandbox.core.requests import DecisionRequest, Field, MultiChoice, Scalar, Text
from sandbox.core.variant import HistoryItem, SeatView

T = TypeVar("T")

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 64 * 1024
LONG_POLL_MAX_S = 25.0
# How long an HTTP thread waits for the game's event loop to check an answer.
LOOP_REPLY_S = 10.0
# Up to this many options a Choice is a row of radio buttons, beyond it a select.
RADIO_LIMIT = 20  # 16 Killer players and "none" stay radios
# The core's record of this seat's own answer (visible to it alone).
OWN_DECISION = DecisionMade.kind
SERVE_POLL_S = 0.1

WAITING = "waiting"
YOUR_TURN = "your_turn"
LEFT = "left"
CLOSED = "closed"

Announce = Callable[[str], None]


def print_to_stderr(line: str) -> None:
    # stderr, so that `run --json` keeps stdout for its one JSON object.
    print(line, file=sys.stderr, flush=True)


class NoOpenDecision(Exception):
    """An answer for a question that is not (or no longer) open."""


# ---------------------------------------------------------------- the board


@dataclass
class Board:
    """What the page shows; read by HTTP threads, written by the game loop.

    ``epoch`` changes with every server, ``version`` with every new screen, so a
    page can tell whether it must redraw (and does not wipe a half-typed speech
    when nothing changed).
    """

    epoch: str
    version: int = 0
    status: str = WAITING
    view_html: str = ""
    form_html: str = ""
    request_id: str | None = None
    error: str = ""

    def to_json(self, seat: int) -> dict[str, Any]:
        return {
            "seat": seat,
            "epoch": self.epoch,
            "version": self.version,
            "status": self.status,
            "view_html": self.view_html,
            "form_html": self.form_html,
            "request_id": self.request_id,
            "error": self.error,
        }


@dataclass
class _Pending:
    ctx: DecisionContext
    future: asyncio.Future[AgentAnswer]


# ---------------------------------------------------------------- the agent


class HumanBrowserAgent(Agent):
    """A human seat played in a browser page at ``self.url``."""

    kind = "human"

    def __init__(
        self,
        seat: int,
        port: int | None = None,
        *,
        token: str | None = None,
        preferred_port: int | None = None,
        decision_timeout_s: float | None = None,
        announce: Announce = print_to_stderr,
    ) -> None:
        self.seat = seat
        self.token = token or secrets.token_urlsafe(18)
        self.decision_timeout_s = decision_timeout_s
        self.left = False
        self._lock = threading.Condition()
        self._board = Board(epoch=secrets.token_hex(4))
        self._pending: _Pending | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_seen_seq = -1
        self._stopped = False
        self._server = _bind(seat, port, preferred_port, self)
        self.port: int = self._server.server_address[1]
        self.url = f"http://{LOOPBACK}:{self.port}/?t={self.token}"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": SERVE_POLL_S},
            name=f"seat-{seat}-web",
            daemon=True,
        )
        self._thread.start()
        atexit.register(self._stop)
        announce(f"seat {seat}: open {self.url}")

    def describe(self) -> dict[str, Any]:
        # Never the token: the transcript header is shared with researchers.
        return {"kind": self.kind, "interface": "browser"}

    # ------------------------------------------------------- the game side
    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        self._loop = asyncio.get_running_loop()
        if self.left:
            return AgentAnswer(None, note="the player left", fallback_reason=FALLBACK_QUIT)
        future: asyncio.Future[AgentAnswer] = self._loop.create_future()
        self._pending = _Pending(ctx, future)
        self._show_turn(ctx)
        try:
            return await asyncio.wait_for(future, self.decision_timeout_s)
        except TimeoutError:
            return AgentAnswer(None, note="no answer in time", fallback_reason=FALLBACK_TIMEOUT)
        finally:
            self._pending = None
            if not self._stopped:
                status = LEFT if self.left else WAITING
                self._update(status=status, form_html="", request_id=None, error="")

    async def close(self) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._update(status=CLOSED, form_html="", request_id=None)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)
        atexit.unregister(self._stop)

    def _show_turn(self, ctx: DecisionContext) -> None:
        view = ctx.view
        view_html = render_view(view, self._last_seen_seq)
        if view.history:
            self._last_seen_seq = max(item.seq for item in view.history)
        self._update(
            status=YOUR_TURN,
            view_html=view_html,
            form_html=render_form(ctx.request),
            request_id=ctx.request.id,
            error="",
        )

    def _update(self, *, bump: bool = True, **changes: Any) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(self._board, name, value)
            if bump:
                self._board.version += 1
            self._lock.notify_all()

    # Runs on the game loop: the referee's dry run must not race the runner.
    def _answer_on_loop(self, request_id: object, answer: object) -> str:
        pending = self._pending
        if pending is None or pending.future.done() or pending.ctx.request.id != request_id:
            raise NoOpenDecision
        try:
            payload = pending.ctx.validate(answer)
        except RefereeError as err:
            message = err.render() if isinstance(err, IllegalDecision) else str(err)
            self._update(bump=False, error=message)
            return message
        pending.future.set_result(AgentAnswer(payload))
        return ""

    def _leave_on_loop(self) -> None:
        pending = self._pending
        if pending is not None and not pending.future.done():
            pending.future.set_result(
                AgentAnswer(None, note="the player left", fallback_reason=FALLBACK_QUIT)
            )

    # ------------------------------------------------------- the page side
    def snapshot(self, since: int | None, epoch: str | None, wait_s: float) -> dict[str, Any]:
        """The board, once it differs from (epoch, since) or after ``wait_s``."""
        with self._lock:
            self._lock.wait_for(
                lambda: self._stopped or epoch != self._board.epoch or since != self._board.version,
                timeout=wait_s,
            )
            return self._board.to_json(self.seat)

    def submit_from_page(self, request_id: object, answer: object) -> str:
        """'' when accepted, else the referee's message. Raises NoOpenDecision."""
        return self._call_on_loop(lambda: self._answer_on_loop(request_id, answer))

    def leave_from_page(self) -> None:
        with self._lock:
            self.left = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._leave_on_loop)
        if self._pending is None:
            self._update(status=LEFT, form_html="", request_id=None)

    def _call_on_loop(self, work: Callable[[], T]) -> T:
        loop = self._loop
        if loop is None or loop.is_closed() or self._pending is None:
            raise NoOpenDecision
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(work())
            except BaseException as err:  # handed back to the HTTP thread
                done.set_exception(err)

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:  # the loop closed in between
            raise NoOpenDecision from None
        return done.result(timeout=LOOP_REPLY_S)

    def page_html(self) -> str:
        with self._lock:
            state = self._board.to_json(self.seat)
        return render_page(state)


# ---------------------------------------------------------------- the server


class _SeatServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, agent: HumanBrowserAgent) -> None:
        self.agent = agent
        super().__init__((LOOPBACK, port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A closed tab drops its long poll mid-answer; that is not worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _bind(
    seat: int, port: int | None, preferred: int | None, agent: HumanBrowserAgent
) -> _SeatServer:
    if port:
        try:
            return _SeatServer(port, agent)
        except OSError as err:
            raise AgentSetupError(
                f"seat {seat}: cannot serve the browser seat on {LOOPBACK}:{port} ({err}); "
                "choose another port or leave 'port' out for a free one"
            ) from None
    if preferred:
        try:
            return _SeatServer(preferred, agent)
        except OSError:
            pass  # taken meanwhile: any free port will do
    return _SeatServer(0, agent)


class _Handler(BaseHTTPRequestHandler):
    server_version = "SeatServer"
    sys_version = ""

    @property
    def agent(self) -> HumanBrowserAgent:
        return cast(_SeatServer, self.server).agent

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: stderr belongs to the game's own messages."""

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if not (self._host_ok() and self._token_ok(query)):
            self._send_json(HTTPStatus.FORBIDDEN, {"error": "forbidden"})
            return
        if (method, url.path) == ("GET", "/"):
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", self.agent.page_html())
        elif (method, url.path) == ("GET", "/api/state"):
            self._state(query)
        elif (method, url.path) == ("POST", "/api/answer"):
            self._answer()
        elif (method, url.path) == ("POST", "/api/leave"):
            self.agent.leave_from_page()
            self._send_json(HTTPStatus.OK, {"ok": True})
        else:
            self._send_json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def _host_ok(self) -> bool:
        # A page on another site that rebinds its name to 127.0.0.1 sends its own Host.
        port = self.agent.port
        return self.headers.get("Host", "") in (f"{LOOPBACK}:{port}", f"localhost:{port}")

    def _token_ok(self, query: Mapping[str, list[str]]) -> bool:
        given = query.get("t", [""])[0]
        return hmac.compare_digest(given.encode(), self.agent.token.encode())

    def _state(self, query: Mapping[str, list[str]]) -> None:
        since = _int_or_none(query.get("since", [""])[0])
        epoch = query.get("epoch", [None])[0]
        wait = _float_or(query.get("wait", ["0"])[0], 0.0)
        wait = min(max(wait, 0.0), LONG_POLL_MAX_S)
        self._send_json(HTTPStatus.OK, self.agent.snapshot(since, epoch, wait))

    def _answer(self) -> None:
        body = self._read_json()
        if not isinstance(body, dict) or "answer" not in body:
            self._send_json(
                HTTPStatus.BAD_REQUEST,
                {"ok": False, "error": 'send JSON {"request": <id>, "answer": {...}}'},
            )
            return
        try:
            refusal = self.agent.submit_from_page(body.get("request"), body["answer"])
        except (NoOpenDecision, concurrent.futures.TimeoutError):
            self._send_json(
                HTTPStatus.CONFLICT,
                {"ok": False, "error": "This question is no longer open; the page will refresh."},
            )
            return
        if refusal:
            self._send_json(HTTPStatus.UNPROCESSABLE_ENTITY, {"ok": False, "error": refusal})
        else:
            self._send_json(HTTPStatus.OK, {"ok": True})

    def _read_json(self) -> object:
        length = _int_or_none(self.headers.get("Content-Length", "")) or 0
        if not 0 < length <= MAX_BODY_BYTES:
            return None
        try:
            return json.loads(self.rfile.read(length))
        except ValueError:
            return None

    def _send_json(self, status: HTTPStatus, data: Mapping[str, Any]) -> None:
        self._send(status, "application/json", json.dumps(data, ensure_ascii=False))

    def _send(self, status: HTTPStatus, content_type: str, text: str) -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        self.wfile.write(body)


# Inline script and style only; the page talks to its own origin and nothing else.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _float_or(text: str, default: float) -> float:
    try:
        return float(text)
    except ValueError:
        return default


# ---------------------------------------------------------------- rendering
# Everything a player or a model wrote passes through esc(); the page inserts
# these fragments as HTML, so this module is where escaping happens.


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def value_text(value: object) -> str:
    """A fact's value in words (None → none, lists joined, mappings as k: v)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {value_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        # A list of records (e.g. the dead) keeps each record apart.
        shown = [f"({value_text(v)})" if isinstance(v, Mapping) else value_text(v) for v in value]
        return ", ".join(shown) or "—"
    return str(value)


def render_view(view: SeatView, last_seen_seq: int = -1) -> str:
    """The seat's card, what it knows now, and its history (new items marked)."""
    parts = [
        '<section class="card"><h2>Your card</h2>',
        facts_list(view.private) or "<p>(no private facts)</p>",
        "</section>",
    ]
    if view.public:
        parts += ['<section class="now"><h2>Now</h2>', facts_list(view.public), "</section>"]
    parts.append(render_history(view.history, last_seen_seq))
    return "".join(parts)


def facts_list(facts: Mapping[str, Any]) -> str:
    rows = "".join(
        f"<dt>{esc(key)}</dt><dd>{esc(value_text(value))}</dd>" for key, value in facts.items()
    )
    return f"<dl>{rows}</dl>" if rows else ""


def render_history(items: Sequence[HistoryItem], last_seen_seq: int) -> str:
    if not items:
        return '<section class="history"><h2>History</h2><p>Nothing has happened yet.</p></section>'
    parts = ['<section class="history"><h2>History</h2>']
    section: tuple[int, str] | None = None
    for item in items:
        if (item.day, item.phase) != section:
            if section is not None:
                parts.append("</ol>")
            section = (item.day, item.phase)
            parts.append(f"<h3>Day {esc(item.day)} · {esc(item.phase)}</h3><ol>")
        parts.append(history_item(item, is_new=item.seq > last_seen_seq))
    parts.append("</ol></section>")
    return "".join(parts)


def history_item(item: HistoryItem, is_new: bool = False) -> str:
    new = " new" if is_new else ""
    if item.speech is not None:
        words = esc(item.speech) if item.speech.strip() else "<i>(said nothing)</i>"
        return (
            f'<li class="speech{new}" data-seq="{item.seq}"><span class="who">Seat '
            f'{esc(item.speaker)}</span> said:<blockquote class="said">{words}</blockquote></li>'
        )
    facts = "; ".join(f"{k}: {value_text(v)}" for k, v in item.facts.items())
    if item.kind == OWN_DECISION:
        return (
            f'<li class="mine{new}" data-seq="{item.seq}"><span class="tag you">You</span> '
            f'<span class="facts">{esc(facts)}</span></li>'
        )
    return (
        f'<li class="referee{new}" data-seq="{item.seq}"><span class="tag">Referee</span> '
        f'<span class="kind">{esc(item.kind)}</span> <span class="facts">{esc(facts)}</span></li>'
    )


def render_form(request: DecisionRequest) -> str:
    """The open question as an HTML form; option values are JSON, parsed by the page."""
    fields = "".join(field_html(f) for f in request.fields)
    return (
        f'<form id="decision" data-request="{esc(request.id)}">'
        f'<p class="instruction">{esc(request.instruction)}</p>'
        f'<p class="rule">rule {esc(request.rule)} · decision {esc(request.decision)}</p>'
        f'{fields}<button type="submit">Send answer</button></form>'
    )


def field_html(f: Field) -> str:
    head = (
        f'<fieldset data-field="{esc(f.name)}" data-kind="{_kind(f)}">'
        f'<legend>{esc(f.name)}</legend><p class="describe">{esc(f.description)}</p>'
    )
    if isinstance(f, Text):
        body = (
            f'<textarea name="{esc(f.name)}" maxlength="{f.max_chars}" rows="5"></textarea>'
            f'<small class="count">at most {f.max_chars} characters</small>'
        )
    elif isinstance(f, MultiChoice):
        boxes = "".join(_option_input("checkbox", f.name, o) for o in f.options)
        body = f"{boxes}<small>choose up to {f.max_items}</small>"
    elif len(f.legal()) <= RADIO_LIMIT:
        body = "".join(_option_input("radio", f.name, o) for o in f.legal())
    else:
        options = "".join(
            f'<option value="{_json_attr(o)}">{esc(option_label(o))}</option>' for o in f.legal()
        )
        body = (
            f'<select name="{esc(f.name)}"><option value="" selected disabled>choose…</option>'
            f"{options}</select>"
        )
    return f"{head}{body}</fieldset>"


def _kind(f: Field) -> str:
    if isinstance(f, Text):
        return "text"
    return "multi" if isinstance(f, MultiChoice) else "choice"


def _option_input(input_type: str, name: str, option: Scalar) -> str:
    return (
        f'<label class="option"><input type="{input_type}" name="{esc(name)}" '
        f'value="{_json_attr(option)}"> {esc(option_label(option))}</label>'
    )


def option_label(option: Scalar) -> str:
    return "none" if option is None else str(option)


def _json_attr(option: Scalar) -> str:
    return esc(json.dumps(option))


def render_page(state: Mapping[str, Any]) -> str:
    """The whole page: the first screen inline, then the script keeps it current."""
    template = resources.files("sandbox.agents.web_assets").joinpath("page.html")
    initial = json.dumps(state, ensure_ascii=False).replace("<", "\\u003c")
    return (
        template.read_text(encoding="utf-8")
        .replace("@@SEAT@@", esc(state["seat"]))
        .replace("@@VIEW@@", str(state["view_html"]))
        .replace("@@FORM@@", str(state["form_html"]))
        .replace("@@INITIAL@@", initial)
    )


# ---------------------------------------------------------------- building


# One CLI run may play a series: a seat keeps its token and (when free) its port
# from game to game, so the page the person opened keeps working.
_SERIES_ADDRESSES: dict[int, tuple[str, int]] = {}


def make_browser_agent(port: int | None, seat: int) -> HumanBrowserAgent:
    token, last_port = _SERIES_ADDRESSES.get(seat, (secrets.token_urlsafe(18), 0))
    announced: list[str] = []
    agent = HumanBrowserAgent(
        seat,
        port,
        token=token,
        preferred_port=last_port or None,
        announce=announced.append,
    )
    if last_port != agent.port:  # a new address: tell the person (once per address)
        for line in announced:
            print_to_stderr(line)
    _SERIES_ADDRESSES[seat] = (agent.token, agent.port)
    return agent

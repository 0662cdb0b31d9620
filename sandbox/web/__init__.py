"""The web side of a game: a person's seat in a browser page, the host panel
(take over a seat, hand it back) and live spectator pages, all served by one
Starlette app on uvicorn per run (see docs/human-seats.md).

Modules: ``hub`` (the server), ``guard`` (who may reach it), ``audience`` (one
kind of page behind one token), ``routes`` (what a page may ask), ``board`` (a
screen shared between the game and the server), ``seat`` (the browser seat
agent), ``control`` (who controls a seat; switches), ``run`` (one run's pages,
panel and spectators), ``pages`` and ``words`` (HTML through jinja2 templates),
``limits`` (bounds on what a browser may send); ``lobby``, ``lobby_table``,
``lobby_routes`` and ``lobby_pages``: ``sandbox serve``'s tables of people, each a
``WebRun`` with a host panel on the lobby's one server (see docs/lobby.md);
``end_question``: a study's blind-mode question at a person's end screen.
"""

from __future__ import annotations

from sandbox.web.hub import HubError, WebHub
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent

__all__ = ["HubError", "HumanBrowserAgent", "WebHub", "WebRun"]

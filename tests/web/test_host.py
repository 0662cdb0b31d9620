"""A seat gets its page or endpoint from the host that seats it, passed in:
the session hands the run's web pages over (``LiveHooks.host``, the seating's
``host``) or a script gives ``host=``; there is no process-wide run to reach for."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.agents.human.seat import HumanAgent
from sandbox.agents.remote import RemoteAgent
from sandbox.core.seat import AgentSetupError, Seating
from sandbox.games.registry import get_variant
from sandbox.session.gamefile import parse_config
from sandbox.session.play import LiveHooks
from sandbox.session.seating import build_agents
from sandbox.web.remote import RemoteSeat
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.web.helpers import quiet


@pytest.fixture
def two_runs() -> Iterator[tuple[WebRun, WebRun]]:
    runs = WebRun(announce=quiet), WebRun(announce=quiet)
    yield runs
    for run in runs:
        run.stop()


def browser_file(kind: str = "human") -> dict[str, object]:
    seat = {"kind": kind, "seats": [3]} | ({"interface": "browser"} if kind == "human" else {})
    return {"variant": "killer", "rules": {"players": 11}, "agent": [seat]}


def test_each_seat_gets_its_page_from_the_host_that_seats_it(
    two_runs: tuple[WebRun, WebRun],
) -> None:
    first, second = two_runs
    loaded = parse_config(browser_file())
    mine = build_agents(loaded, {3: "civilian"}, 1, host=first)[3]
    theirs = build_agents(loaded, {3: "civilian"}, 1, host=second)[3]
    assert isinstance(mine, HumanBrowserAgent) and isinstance(theirs, HumanBrowserAgent)
    assert mine.hub is first.hub() and theirs.hub is second.hub()
    assert mine.url != theirs.url


def test_a_programs_endpoint_is_on_the_host_that_seats_it(two_runs: tuple[WebRun, WebRun]) -> None:
    first, _ = two_runs
    seat = RemoteAgent()
    seat.attach(Seating(3, 1, get_variant("killer"), first))
    endpoint = seat.seated_agent
    assert isinstance(endpoint, RemoteSeat) and endpoint.hub is first.hub()
    assert endpoint.url.startswith(f"ws://127.0.0.1:{first.hub().port}/agent?t=")


def test_a_script_passes_the_host_to_the_seat_itself(two_runs: tuple[WebRun, WebRun]) -> None:
    first, second = two_runs
    person = HumanAgent("browser", host=first)
    person.attach(Seating(2, 1, get_variant("killer"), second))  # the seat's own host wins
    page = person.seated_agent
    assert isinstance(page, HumanBrowserAgent) and page.hub is first.hub()


@pytest.mark.parametrize("kind", ["human", "remote"])
def test_a_seat_that_needs_pages_and_has_no_host_is_refused_in_one_line(kind: str) -> None:
    loaded = parse_config(browser_file(kind))
    with pytest.raises(AgentSetupError, match=r"^seat 3: .* needs web pages .*WebRun\(\)"):
        build_agents(loaded, {3: "civilian"}, 1)


def test_the_runs_hooks_hand_the_run_over_as_the_host() -> None:
    run = WebRun(announce=quiet)
    assert LiveHooks().host is None
    assert run.hooks(LiveHooks()).host is run

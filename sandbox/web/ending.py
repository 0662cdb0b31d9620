"""The end of a game on every page of the run: each person's end screen (their
own result, "You won"), a handed-back page's and each spectator's ("Seat 3 won",
never "You": issue 38), and each remote program's last message.

Only once the game is over: then every role may be shown, to everyone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.core.game import Game
from sandbox.games.registry import find_variant
from sandbox.viewer.html import story_html
from sandbox.viewer.story import story_of_game
from sandbox.web.follow import Spectator
from sandbox.web.pages import SeatResult, render_end, render_final
from sandbox.web.remote import RemoteSeat
from sandbox.web.seat import HumanBrowserAgent
from sandbox.words import role_words


def end_screens(
    game: Game,
    people: Sequence[HumanBrowserAgent],
    former: Sequence[HumanBrowserAgent],
    spectators: Sequence[Spectator],
    remotes: Sequence[RemoteSeat],
    language: str,
) -> None:
    """Show the end on every page: ``people`` play a seat now, ``former`` were
    handed back (they follow their seat as its spectator), ``language`` is the
    spectators'."""
    outcome = game.outcome()
    if outcome is None:
        return
    roles = game.roles()  # the game is over: every role may be shown
    # the story at the end (issue 38): built once per language, from the game's own
    # events; it holds the referee's knowledge, so it is shown only now
    stories: dict[str, str] = {}

    def story(language: str) -> str:
        if language not in stories:
            told = story_of_game(game, language)
            stories[language] = story_html(told) if told is not None else ""
        return stories[language]

    for remote in remotes:  # closed seats of earlier games have left the list
        remote.finish(_remote_results(outcome.summary, outcome.results, roles))
    variant = game.variant.name
    for person in people:
        if person.board.get("status") == "handed_back":
            continue  # no longer this person's seat: the page keeps its notice
        final = render_final(person.worded(game.view(person.seat)), person.language)
        results = _results(outcome.results, roles, person.seat, variant, person.language)
        end = render_end(outcome.summary, results, person.language) + story(person.language)
        person.finish(end, final)
    results = _results(outcome.results, roles, None, variant, language)
    for page in former:
        if page not in people:  # a page handed back: the seat's spectator
            # its status stays "handed back" (the page says whose seat it no longer
            # is), under the spectator's end screen and the final view
            end = render_end(outcome.summary, results, page.language, watched=page.seat)
            end += story(page.language)
            final = render_final(page.worded(game.view(page.seat)), page.language)
            page.board.update(end_html=end, view_html=final)
    for spectator in spectators:
        spectator.refresh(game, language)
        # a spectator is no player: "Seat 3 won", never "You won" (issue 38)
        end = render_end(outcome.summary, results, language, watched=spectator.target)
        end += story(language)
        spectator.audience.board.update(status="ended", end_html=end)


def _results(
    results: Mapping[int, str],
    roles: Mapping[int, str],
    mine: int | None,
    variant: str,
    language: str,
) -> list[SeatResult]:
    return [
        SeatResult(
            seat,
            role_words(roles.get(seat, "?"), language, find_variant(variant)),
            result,
            seat == mine,
        )
        for seat, result in sorted(results.items())
    ]


def _remote_results(
    summary: str, results: Mapping[int, str], roles: Mapping[int, str]
) -> dict[str, Any]:
    """The end of a game for a remote program: every seat's role and result."""
    return {
        "summary": summary,
        "results": {str(s): r for s, r in sorted(results.items())},
        "roles": {str(s): r for s, r in sorted(roles.items())},
    }

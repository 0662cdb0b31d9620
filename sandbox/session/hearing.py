"""What the seats of a game never heard: the one reading of a transcript header's
hiding, used by everything that plays on from, replays or shows a game.

A ``remove_speech`` what-if branch (:mod:`sandbox.what_if.branches`) keeps the
speech in the referee's record (it was said) but no seat hears of it, nor of
the speaker's decision that made it, from the fork point on. The branch's
header says so in ``forked_from``: ``hidden`` (the seqs left out) and, where a
seq is left out from another point than ``forked_from.at``, ``hidden_from``
(one event count per seq). A decision asked once the game holds ``from``
events is asked with a view that leaves that seq out; earlier decisions (the
copied prefix) saw what they saw.

:class:`Hearing` is that rule, and :func:`hearing_of` the one reader of those
fields. ``sandbox resume`` (and so a what-if rerun), ``sandbox fork`` and the
what-if arms seat agents through :meth:`Hearing.seat` and warm replayable ones
through :meth:`Hearing.context` (``replay.rebuild``); ``sandbox replay`` checks
the fields (``replay.check_hearing``); ``sandbox view --seat`` filters a seat's
events with :meth:`Hearing.filter` (``viewer.timeline.seat_pairs``). So it
lives here, in the playing layer, and not in :mod:`sandbox.what_if` above it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext
from sandbox.core.variant import SeatView
from sandbox.session.errors import SessionError

Pairs = Sequence[tuple[int, Event]]


@dataclass(frozen=True)
class Hearing:
    """seq -> the event count from which no seat's view holds that event."""

    unheard: Mapping[int, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.unheard)

    def left_out(self, now: int | None = None) -> frozenset[int]:
        """The seqs a view taken when the game holds ``now`` events leaves out
        (``None``: the game's end, every hidden seq)."""
        return frozenset(s for s, since in self.unheard.items() if now is None or now >= since)

    def filter(self, pairs: Pairs, now: int | None = None) -> list[tuple[int, Event]]:
        """``pairs`` (seq, event) a seat may see, less those it never heard."""
        gone = self.left_out(now)
        return [(seq, event) for seq, event in pairs if seq not in gone]

    def view(self, game: Game, seat: int) -> SeatView:
        """``seat``'s view of ``game`` now, folded from the events it heard."""
        if not self.left_out(len(game.events)):
            return game.view(seat)
        heard = self.filter(game.visible_events(seat), len(game.events))
        return game.variant.build_view(seat, heard)

    def context(self, ctx: DecisionContext, game: Game) -> DecisionContext:
        """``ctx`` with its view taken from the events its seat heard."""
        if not self:
            return ctx
        return dataclasses.replace(ctx, view_fn=lambda: self.view(game, ctx.request.seat))

    def seat(self, agents: Mapping[int, Agent], game: Game) -> dict[int, Agent]:
        """The agents as they play ``game`` on: each deaf to what was hidden."""
        if not self:
            return dict(agents)
        return {seat: Unheard(agent, game, self) for seat, agent in agents.items()}

    def before(self, at: int) -> Hearing:
        """The hiding a game that keeps the first ``at`` events inherits (a fork
        or a what-if of this game at ``at``): the hidden seqs it keeps, left out
        from ``at`` at the latest (every decision it plays itself)."""
        return Hearing({s: min(since, at) for s, since in self.unheard.items() if s < at})

    def merged(self, other: Hearing) -> Hearing:
        both = dict(self.unheard)
        for seq, since in other.unheard.items():
            both[seq] = min(since, both.get(seq, since))
        return Hearing(both)

    def link(self, at: int) -> dict[str, Any]:
        """The ``forked_from`` fields of a game forked at ``at`` (none: nothing hidden)."""
        if not self:
            return {}
        seqs = sorted(self.unheard)
        out: dict[str, Any] = {"hidden": seqs}
        if any(self.unheard[s] != at for s in seqs):
            out["hidden_from"] = [self.unheard[s] for s in seqs]
        return out


def hearing_of(header: Mapping[str, Any]) -> Hearing:
    """The hiding a transcript's header records (SessionError, one line, if it
    is not readable: a header that says something was hidden must say what)."""
    link = header.get("forked_from")
    if not isinstance(link, Mapping) or not link.get("hidden"):
        return Hearing()
    hidden, at = link.get("hidden"), link.get("at")
    since = link.get("hidden_from", [at] * len(hidden) if isinstance(hidden, list) else None)
    if not (_ints(hidden) and _ints(since) and len(since) == len(hidden)):
        raise SessionError(
            "header forked_from: 'hidden' (and 'hidden_from') must be lists of event "
            f"numbers of one length; found {hidden!r} and {since!r}"
        )
    return Hearing(dict(zip(hidden, since, strict=True)))


def _ints(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    )


class Unheard(Agent):
    """A seat that never heard what ``hearing`` hides: every view it is given is
    folded from the events it may see, those left out."""

    def __init__(self, inner: Agent, game: Game, hearing: Hearing) -> None:
        self.inner = inner
        self.game = game
        self.hearing = hearing

    @property  # the inner agent's, not the class default
    def replayable(self) -> bool:  # type: ignore[override]
        return self.inner.replayable

    @property
    def probes_after_speech(self) -> bool:
        return bool(getattr(self.inner, "probes_after_speech", False))

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        return await self.inner.decide(self.hearing.context(ctx, self.game))

    async def probe(self, ctx: DecisionContext) -> list[dict[str, Any]]:
        probe = getattr(self.inner, "probe")  # noqa: B009 (only asked when probes_after_speech)
        found: list[dict[str, Any]] = await probe(self.hearing.context(ctx, self.game))
        return found

    async def close(self) -> None:
        await self.inner.close()


__all__ = ["Hearing", "Unheard", "hearing_of"]

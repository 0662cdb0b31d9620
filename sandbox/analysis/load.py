"""Transcripts as analysis reads them: each line as its JSON object, events
flattened to dicts (seq, kind and the event's fields).

The lines come from the one reader (:func:`sandbox.transcript.read_lines`, which
drops a torn last line and refuses other bad lines), but are not rebuilt into
typed events, so hand-made transcripts in tests and files from older versions or
of variants not installed read the same way. Games are gathered once each by
:func:`sandbox.transcript.identity.each_game_once`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.transcript import TranscriptError, read_lines
from sandbox.transcript.identity import each_game_once, identity_of
from sandbox.transcript.sides import side_of


@dataclass
class RawGame:
    """One transcript: header, events (seq, kind, data), call lines, outcome line."""

    path: Path
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    # each event's recorded ``vis`` ("public", [seats] or "referee"), by seq
    visibility: list[Any] = field(default_factory=list)

    @property
    def variant(self) -> str:
        return str(self.header.get("variant"))

    @property
    def roles(self) -> dict[int, str]:
        return {int(s): str(r) for s, r in (self.header.get("roles") or {}).items()}

    @property
    def sides(self) -> dict[int, str]:
        return {s: side_of(self.variant, r) for s, r in self.roles.items()}

    @property
    def contestants(self) -> dict[int, str]:
        """seat -> contestant; outside a study, the seat's model or agent kind."""
        named = self.header.get("contestants")
        if isinstance(named, Mapping):
            return {int(s): str(n) for s, n in named.items()}
        return {s: agent_label(d) for s, d in self.agents.items()}

    @property
    def agents(self) -> dict[int, dict[str, Any]]:
        return {int(s): dict(d) for s, d in (self.header.get("agents") or {}).items()}

    @property
    def study(self) -> dict[str, Any]:
        study = self.header.get("study")
        return dict(study) if isinstance(study, Mapping) else {}

    @property
    def game_id(self) -> str:
        return identity_of(self.header) or self.path.stem

    @property
    def results(self) -> dict[int, str]:
        if self.outcome is None:
            return {}
        return {int(s): str(r) for s, r in (self.outcome.get("results") or {}).items()}

    def of_kind(self, *kinds: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("kind") in kinds]

    def seen_by(self, index: int, seat: int) -> bool:
        """Whether the ``index``-th event was visible to ``seat``."""
        vis = self.visibility[index] if index < len(self.visibility) else "public"
        return vis == "public" or (isinstance(vis, list) and seat in vis)


def agent_label(described: Mapping[str, Any]) -> str:
    """'fake/legal-random' for an LLM seat, else its kind ('baseline', 'random')."""
    model = described.get("model")
    return str(model) if model else str(described.get("kind", "?"))


def read_raw(path: Path) -> RawGame:
    """Read one transcript's lines; raises TranscriptError when it is not one,
    or when a field analysis reads has the wrong shape (``"agents": true``)."""
    lines = read_lines(path)
    game = RawGame(path, lines.header)
    try:
        for _, obj in lines.objects():
            _add(game, obj)
        # every reader of a RawGame uses these: a bad shape is found here, once
        _ = (game.roles, game.agents, game.contestants, game.results)
    except (TypeError, ValueError, AttributeError) as err:
        raise TranscriptError(f"{path}: a field has the wrong shape ({err})") from None
    return game


def _add(game: RawGame, obj: Mapping[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "event":
        _check_event(obj)
        game.events.append({"seq": obj.get("seq"), "kind": obj.get("kind"), **obj.get("data", {})})
        game.visibility.append(obj.get("vis", "public"))
    elif kind == "call":
        game.calls.append(dict(obj))
    elif kind == "outcome":
        game.outcome = dict(obj)


def _check_event(obj: Mapping[str, Any]) -> None:
    """An event line's own fields as the schema has them (EventLine): every
    table reads them, so a damaged one skips the game here, in one line."""
    seq, kind, data, vis = obj.get("seq"), obj.get("kind"), obj.get("data", {}), obj.get("vis")
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0):
        raise TypeError(f"event seq {seq!r}")
    if not isinstance(kind, str) or not isinstance(data, Mapping):
        raise TypeError(f"event {seq}: kind {kind!r}, data {type(data).__name__}")
    if not (vis is None or isinstance(vis, str | list)):
        raise TypeError(f"event {seq}: vis {vis!r}")


@dataclass
class Loaded:
    """Games read from files/folders: each identity once, finished ones first."""

    games: list[RawGame]
    unfinished: list[RawGame]
    duplicates: int  # copies of a game already counted (same identity)
    skipped: list[tuple[str, str]]  # unreadable files with the reason


def load_games(paths: Iterable[Path]) -> Loaded:
    """Read every transcript; a game (same study/cell/seed or batch/seed) counts once."""
    gathered = each_game_once(paths, read_raw)
    return Loaded(
        games=[game for game in gathered.games if game.outcome is not None],
        unfinished=[game for game in gathered.games if game.outcome is None],
        duplicates=len(gathered.duplicates),
        skipped=gathered.skipped,
    )

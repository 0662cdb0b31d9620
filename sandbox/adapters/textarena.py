"""TextArena: importing this module registers an environment per variant in
TextArena's registry (the ``envs`` extra), so TextArena's own loop works:

>>> import textarena as ta
>>> import sandbox.adapters.textarena  # registers Killer-v0, FourFactions-v0, ...
>>> env = ta.make("Killer-v0", players=11, day_limit=2, transcript=None)
>>> env.reset(num_players=11, seed=1)
>>> done = False
>>> while not done:
...     player_id, observation = env.get_observation()
...     done, info = env.step("not an answer")  # every seat falls back
>>> rewards, game_info = env.close()
>>> sorted(rewards) == list(range(11))
True

Ids: the variant's name in CamelCase with ``-v0`` (``FourFactions-v0``),
wrapped in TextArena's ``LLMObservationWrapper``; ``-v0-train`` is the same,
``-v0-raw`` has no wrapper. Keyword arguments of ``ta.make`` are the
variant's rulings (``players=12``) and :class:`SandboxTextArenaEnv`'s own.

Player ``i`` is the ``i``-th seat driven from outside (all seats: seat
``i + 1``). A player's first message is the LLM seat's system text (the
rules, its role card); each question then brings the record's new lines and
the question with its answer format (the JSON schema, as an LLM seat without
structured output is given it). The action is the JSON answer; a refused one
brings the referee's error back to the same player, and after
``max_attempts`` the seat gets the recorded fallback. ``close()`` returns
``(rewards, game_info)``: the reward per player (win 1, draw 0, loss -1 by
default) and, per player, its seat, role, side, result, the ending, how many
answers were refused and the transcript's path.
"""

from __future__ import annotations

from typing import Any

from sandbox.adapters.extras import missing_extra

try:
    import textarena as ta
    from textarena.envs.registration import ENV_REGISTRY, register_with_versions
    from textarena.wrappers import LLMObservationWrapper
except ImportError as err:  # the envs extra is optional: say which one
    raise missing_extra(__name__, "textarena", "envs", err) from err

from sandbox.adapters.chat import SeatChats, hint
from sandbox.adapters.external import Verdict
from sandbox.adapters.step import STEP_OPTIONS, SteppedGame
from sandbox.adapters.validity import result_info
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.api import new_game

VERSION = "v0"
PLAYERS_RULING = "players"  # a ruling that sets the seat count, where a variant has one


def env_id(variant: str) -> str:
    """``four_factions`` -> ``FourFactions-v0``."""
    return "".join(part.capitalize() for part in variant.split("_")) + f"-{VERSION}"


class SandboxTextArenaEnv(ta.Env):  # type: ignore[misc]
    """One variant's games as a TextArena environment (see the module docstring)."""

    def __init__(self, variant: str, **kwargs: Any) -> None:
        """``kwargs``: :class:`StepOptions` (``external``, ``opponents``,
        ``max_attempts``, ``rewards``, ``language``, ``transcript``), the rest
        the variant's rulings."""
        self.variant = variant
        self.rules = {k: v for k, v in kwargs.items() if k not in STEP_OPTIONS}
        new_game(variant, 0, **self.rules)  # bad rulings fail here, at ta.make
        self._options: dict[str, Any] = {"external": None}
        self._options.update((k, v) for k, v in kwargs.items() if k in STEP_OPTIONS)
        language = str(self._options.get("language", "en"))
        self.language = language
        self.stepped: SteppedGame | None = None
        self._stepped_rules: dict[str, Any] | None = None
        self.seats: list[int] = []  # player id -> seat
        self._chats = SeatChats(language)  # what each seat has been sent so far
        self._refused: dict[int, int] = {}

    # ------------------------------------------------------------ TextArena
    def reset(self, num_players: int, seed: int | None = None) -> None:
        stepped = self._stepped_for(num_players)
        external = self._options["external"]
        if external is None or not callable(external):  # known before the deal
            seats = len(stepped.seat_numbers if external is None else set(external))
            _check_count(self.variant, seats, num_players)
        stepped.reset(seed)
        self.seats = list(stepped.external_seats)
        _check_count(self.variant, len(self.seats), num_players)
        self.state = ta.State(num_players=num_players, seed=seed)
        names = {pid: f"Seat {seat}" for pid, seat in enumerate(self.seats)}
        roles = stepped.roles()
        secret = {pid: roles[seat] for pid, seat in enumerate(self.seats)}
        self.state.standard_resets(game_state={}, role_mapping=names, secret_roles=secret)
        self._chats.reset()
        self._refused = dict.fromkeys(range(num_players), 0)
        for pid in range(num_players):  # documented keys, present at 0 too
            self.state.game_info[pid]["fallbacks"] = 0
        self._ask()

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        stepped = self._game()
        pid = self.state.current_player_id
        verdict = stepped.step(action, self.seats[pid])
        self.state.add_observation(
            message=action,
            observation_type=ta.ObservationType.PLAYER_ACTION,
            from_id=pid,
            to_id=pid,
        )
        info = self._note(pid, verdict)
        if stepped.over:
            self._finish()
        else:
            self._ask()
        return stepped.over, info

    def close(self) -> tuple[dict[int, float], dict[int, dict[str, Any]]]:
        """The rewards and the game info of the last game (then the loop's
        thread is stopped: reset starts another game all the same)."""
        stepped, state = self.stepped, getattr(self, "state", None)
        if state is not None and stepped is not None and stepped.over and state.rewards is None:
            self._finish()
        rewards = dict(state.rewards or {}) if state is not None else {}
        info = {pid: dict(state.game_info[pid]) for pid in range(len(self.seats))} if state else {}
        if stepped is not None:
            stepped.close()
            self.stepped = None
        return rewards, info

    # -------------------------------------------------------------- internal
    def _stepped_for(self, num_players: int) -> SteppedGame:
        rules = dict(self.rules)
        seats = len(new_game(self.variant, 0, **rules).seats)
        fields = get_variant(self.variant).config_model.model_fields
        if (
            self._options["external"] is None
            and seats != num_players
            and PLAYERS_RULING in fields
            and PLAYERS_RULING not in rules
        ):
            rules[PLAYERS_RULING] = num_players  # the seat count from TextArena's reset
        if self.stepped is None or rules != self._stepped_rules:
            if self.stepped is not None:
                self.stepped.close()
            self.stepped = SteppedGame(self.variant, rules=rules, **self._options)
            self._stepped_rules = rules
        return self.stepped

    def _game(self) -> SteppedGame:
        if self.stepped is None:
            raise RuntimeError("call reset(num_players=...) first")
        return self.stepped

    def _ask(self) -> None:
        """Queue the current seat's question (``sandbox.adapters.chat``): the
        system text the first time, the record's new lines, the question and
        its answer format."""
        stepped = self._game()
        seat = stepped.current_seat()
        assert seat is not None
        pid = self.seats.index(seat)
        self.state.current_player_id = pid
        for message in self._chats.question(stepped, seat):
            kind = ta.ObservationType.PROMPT if message.role == "system" else None
            self._say(pid, message.content, kind or ta.ObservationType.GAME_MESSAGE)

    def _note(self, pid: int, verdict: Verdict) -> dict[str, Any]:
        info: dict[str, Any] = {"accepted": verdict.accepted, "attempts": verdict.attempts}
        player = self.state.game_info[pid]
        if verdict.accepted:
            player["turn_count"] += 1
            return info
        self._refused[pid] += 1
        player["invalid_moves"] = self._refused[pid]
        info["error"] = verdict.error
        if verdict.fallback:
            player["turn_count"] += 1
            player["invalid_move"] = True  # at least one decision fell back
            player["fallbacks"] += 1
            info["fallback"] = True
        message = self._chats.verdict(verdict)
        assert message is not None  # refused: the repair or the fallback note
        self._say(pid, message.content, ta.ObservationType.GAME_ADMIN)
        return info

    def _finish(self) -> None:
        stepped = self._game()
        rewards, roles, sides = stepped.rewards(), stepped.roles(), stepped.sides()
        outcome = stepped.outcome
        assert outcome is not None
        path = stepped.transcript_path
        tallies = stepped.tallies()
        self.state.rewards = {pid: rewards[seat] for pid, seat in enumerate(self.seats)}
        for pid, seat in enumerate(self.seats):
            self.state.game_info[pid].update(result_info(tallies[seat]))
            self.state.game_info[pid].update(
                {
                    "seat": seat,
                    "role": roles[seat],
                    "side": sides[seat],
                    "result": outcome.results[seat],
                    "outcome": outcome.reason,
                    "reason": outcome.summary,
                    "invalid_moves": self._refused.get(pid, 0),
                    "transcript": str(path) if path is not None else None,
                }
            )
        self.state.done = True

    def _say(
        self, pid: int, text: str, kind: ta.ObservationType = ta.ObservationType.GAME_MESSAGE
    ) -> None:
        self.state.add_observation(message=text, observation_type=kind, to_id=pid)


def _check_count(variant: str, seats: int, num_players: int) -> None:
    if seats != num_players:
        raise ValueError(
            f"{env_id(variant)}: {seats} seats are played from outside in this game, "
            f"not {num_players}; reset(num_players={seats})"
        )


def register() -> list[str]:
    """Register every installed variant (once); the ids registered."""
    ids: list[str] = []
    for name in variant_names():
        ident = env_id(name)
        if ident not in ENV_REGISTRY:
            wrappers = {"default": [LLMObservationWrapper], "-train": [LLMObservationWrapper]}
            register_with_versions(
                id=ident, entry_point=SandboxTextArenaEnv, wrappers=wrappers, variant=name
            )
        ids.append(ident)
    return ids


__all__ = ["ENV_IDS", "SandboxTextArenaEnv", "env_id", "hint", "register"]

ENV_IDS = register()

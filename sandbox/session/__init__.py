"""Game sessions: play, series, resume, replay and fork, all through transcripts.

The CLI and the Python API are thin shells over this package. Everything here
works on files and the engine contract only (Game, Runner, TranscriptWriter).
(Its name is not ``play``: that is the public function ``sandbox.session``, which a
subpackage of the same name would hide once imported.)

- ``runner``: asks the seats, feeds the referee, counts RunStats; ``seating``
  gives each seat its game-file agent; ``driver`` runs async code from sync code.
- ``gamefile``: TOML game files (pydantic), agent specs that build agents.
- ``play``: ``play_seated``, the one game loop (the Python API's ``play`` and
  every game file played use it); games and series from game files.
- ``api``: the Python API (``new_game``, ``play``, ``play_sync``).
- ``header``: a transcript's header and outcome lines.
- ``replay``: rebuild from seed and decisions, divergence, visibility, fork points.
- ``resume``: resume in place, fork into a new file.
"""

from sandbox.core.game import fork_points
from sandbox.session.errors import SessionError
from sandbox.session.header import (
    build_header,
    outcome_line,
    random_seed,
    scrub,
    transcript_path,
    utc_now,
)
from sandbox.session.play import (
    GameRecord,
    LiveHooks,
    PlayResult,
    close_all,
    play_game,
    play_game_async,
    play_seated,
    play_series,
    run_to_end,
    runner_for,
)
from sandbox.session.replay import (
    Rebuilt,
    check_fork_point,
    check_header,
    check_visibility,
    counters_of,
    first_divergence,
    game_config_of,
    loaded_of,
    rebuild,
    replay,
    replay_transcript,
)
from sandbox.session.resume import (
    config_differences,
    drop_torn_tail,
    fork,
    fork_async,
    resume,
    resume_async,
)

__all__ = [
    "GameRecord",
    "LiveHooks",
    "PlayResult",
    "Rebuilt",
    "SessionError",
    "build_header",
    "check_fork_point",
    "check_header",
    "check_visibility",
    "close_all",
    "config_differences",
    "counters_of",
    "drop_torn_tail",
    "first_divergence",
    "fork",
    "fork_async",
    "fork_points",
    "game_config_of",
    "loaded_of",
    "outcome_line",
    "play_game",
    "play_game_async",
    "play_seated",
    "play_series",
    "random_seed",
    "rebuild",
    "replay",
    "replay_transcript",
    "resume",
    "resume_async",
    "run_to_end",
    "runner_for",
    "scrub",
    "transcript_path",
    "utc_now",
]

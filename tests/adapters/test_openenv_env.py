"""The OpenEnv environment (``sandbox.adapters.rl.openenv_env``): its own
server started on loopback, its own client, answers from the fake provider's
OpenAI endpoint; the episode's reward adds up and its transcript replays."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.rl_extra import need

need("openenv.core")

from openai import OpenAI  # noqa: E402

from sandbox.adapters.rl.openenv_env import SandboxAction, SandboxClient  # noqa: E402
from sandbox.models.fake import FakeLLMServer  # noqa: E402
from sandbox.session.replay import replay  # noqa: E402
from sandbox.transcript import read_transcript  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """``python -m sandbox.adapters.rl.openenv_env`` on loopback, stopped after."""
    port = free_port()
    command = [
        sys.executable, "-m", "sandbox.adapters.rl.openenv_env", "--variant", "killer",
        "--port", str(port), "--transcripts", str(tmp_path / "transcripts"),
    ]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_client_plays_a_killer_episode_through_the_server(server: str) -> None:
    with FakeLLMServer(seed=2) as fake:
        model = OpenAI(base_url=fake.base_url, api_key="not-a-secret")
        with SandboxClient(base_url=server).sync() as env:
            result = env.reset(seed=5)
            steps = 0
            while not result.done:
                chat = result.observation.messages
                assert chat[0]["role"] == "system" and chat[-1]["role"] == "user"
                reply = model.chat.completions.create(model="fake-legal-random", messages=chat)
                result = env.step(SandboxAction(text=reply.choices[0].message.content or ""))
                steps += 1
            state = env.state()
    summary = result.observation.summary
    assert summary is not None and steps > 0 and state.step_count == steps
    assert result.reward == pytest.approx(summary["reward"])
    ((seat, tally),) = summary["seats"].items()
    assert state.seats == [int(seat)] and tally["answers"] == steps
    assert tally["fallbacks"] == 0 and summary["reward"] == summary["reward_parts"]["result"]
    path = Path(summary["transcript"])
    assert replay(path) is None
    transcript = read_transcript(path)
    assert transcript.outcome is not None
    assert transcript.outcome["reason"] == summary["outcome"]
    assert transcript.header["roles"][seat] == tally["role"]

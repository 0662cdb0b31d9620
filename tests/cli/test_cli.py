"""The command line end to end, through typer's CliRunner, on the toy variant
(and on Killer when it is available)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.core.visibility import Visibility
from sandbox.transcript import read_transcript
from sandbox.viewer.timeline import build_timeline
from tests.cli.conftest import ToyFile

# Seat 1 always scripted (with a random tail), seats 2-3 random: resume must
# restore both a script position and random generators.
MIXED = """
[[agent]]
kind = "scripted"
seats = [1]
then = "random"
decisions = [{pick = 3}, {pick = 2}, {pick = 1}]
"""


def invoke(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def run_json(config: Path, *extra: str) -> dict[str, Any]:
    result = invoke("run", str(config), "--json", *extra)
    assert result.exit_code == 0, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)  # exactly one JSON document
    return obj


def event_lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [x for x in lines if x["type"] == "event"]


def test_run_json_prints_one_object_matching_the_transcript(toy_file: ToyFile) -> None:
    obj = run_json(toy_file())
    path = Path(obj["transcript"])
    transcript = read_transcript(path)
    assert obj["variant"] == "toy" and obj["seed"] == 7
    assert transcript.outcome is not None
    assert obj["reason"] == transcript.outcome["reason"]
    results = {s: v["result"] for s, v in obj["seats"].items()}
    assert results == transcript.outcome["results"]
    assert {s: v["role"] for s, v in obj["seats"].items()} == transcript.header["roles"]
    assert obj["stats"]["decisions"] == sum(
        1 for e in transcript.events if e.kind == "core.decision"
    )
    assert path.name.startswith("toy-s7-")


def test_header_records_config_agents_and_version(toy_file: ToyFile) -> None:
    header = read_transcript(Path(run_json(toy_file(MIXED))["transcript"])).header
    assert header["config"]["variant"] == "toy"
    assert header["agents"]["1"]["kind"] == "scripted"
    assert header["agents"]["2"]["kind"] == "random"
    assert header["sandbox_version"] and header["started"].endswith("Z")


def test_random_seed_is_recorded_when_none_given(toy_file: ToyFile) -> None:
    result = invoke("run", str(toy_file(seed=None)), "--json")
    obj = json.loads(result.stdout)
    assert f"seed: {obj['seed']}" in result.stderr
    assert read_transcript(Path(obj["transcript"])).header["seed"] == obj["seed"]


def test_series_plays_k_games_with_their_own_transcripts(toy_file: ToyFile) -> None:
    obj = run_json(toy_file(), "--series", "3")
    games = obj["games"]
    assert [g["seed"] for g in games] == [7, 8, 9]
    assert len({g["transcript"] for g in games}) == 3
    assert all(read_transcript(Path(g["transcript"])).finished for g in games)


@pytest.mark.parametrize(
    "body",
    [
        "[rules]\nseats = 'three'\n",
        "[[agent]]\nkind = 'random'\nseats = [9]\n",
        "bogus_key = 1\n",
        "[[agent]\n",
    ],
)
def test_config_error_is_one_line_exit_2_and_writes_nothing(
    toy_file: ToyFile, tmp_path: Path, body: str
) -> None:
    result = invoke("run", str(toy_file(body)), "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    # under --json the one line is a JSON object (tests/cli/test_conventions.py)
    assert len(lines) == 1 and json.loads(lines[0])["exit_code"] == 2
    assert json.loads(lines[0])["error"]
    plain = invoke("run", str(toy_file(body)))
    assert plain.exit_code == 2 and plain.stdout == ""
    lines = plain.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert not (tmp_path / "out").exists()


def test_validate_summarises_and_rejects(toy_file: ToyFile) -> None:
    ok = invoke("validate", str(toy_file(MIXED)))
    assert ok.exit_code == 0 and "seats: 3" in ok.stdout
    assert "seats 1: scripted (3 decisions, then random)" in ok.stdout
    bad = invoke("validate", str(toy_file("nonsense = true\n")))
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1


def test_view_as_seat_shows_only_its_events(toy_file: ToyFile, tmp_path: Path) -> None:
    path = Path(run_json(toy_file())["transcript"])
    transcript = read_transcript(path)
    for seat in (1, 2, 3):
        shown = {e.seq for s in build_timeline(transcript, seat).sections for e in s.entries}
        allowed = {
            i
            for i, v in enumerate(transcript.visibility)
            if Visibility.from_json(v).visible_to(seat)
        }
        assert shown and shown <= allowed
        result = invoke("view", str(path), "--seat", str(seat))
        html_out = tmp_path / f"s{seat}.html"
        invoke("view", str(path), "--seat", str(seat), "--html", str(html_out))
        html = html_out.read_text()
        for other in {1, 2, 3} - {seat}:
            # toy.secret of another seat and its sealed picks are private to it
            assert f"seat={other}, lucky" not in result.stdout
            assert f"seat {other} · pick" not in result.stdout
            assert f"seat={other}, lucky" not in html and f"seat {other} · pick" not in html
        assert f"seat={seat}, lucky" in result.stdout
        assert "seed" not in result.stdout  # the seed would reveal the deal


def test_referee_view_shows_everything(toy_file: ToyFile, tmp_path: Path) -> None:
    path = Path(run_json(toy_file())["transcript"])
    result = invoke("view", str(path))
    assert result.exit_code == 0
    for seat in (1, 2, 3):
        assert f"seat={seat}, lucky" in result.stdout and f"seat {seat} · pick" in result.stdout


def test_html_escapes_player_text(toy_file: ToyFile, tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    # Seat 1 alone picks the lowest number, so it speaks (toy rule T-2).
    body = "".join(
        f"[[agent]]\nkind = 'scripted'\nseats = [{seat}]\nthen = 'random'\n"
        f"decisions = [{decisions}]\n"
        for seat, decisions in (
            (1, f"{{pick = 1}}, {{speech = '{evil}'}}"),
            (2, "{pick = 2}"),
            (3, "{pick = 3}"),
        )
    )
    path = Path(run_json(toy_file(body))["transcript"])
    assert any(evil in json.dumps(e["data"]) for e in event_lines(path))
    out = tmp_path / "game.html"
    assert invoke("view", str(path), "--html", str(out)).exit_code == 0
    html = out.read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<h2>" in html and 'class="outcome"' in html


def test_replay_ok_and_tampering_detected(toy_file: ToyFile) -> None:
    path = Path(run_json(toy_file())["transcript"])
    ok = invoke("replay", str(path))
    assert ok.exit_code == 0 and ok.stdout.startswith("OK")
    lines = path.read_text().splitlines()
    target = next(i for i, x in enumerate(lines) if '"kind":"toy.out"' in x)
    obj = json.loads(lines[target])
    obj["data"]["seat"] = 1 if obj["data"]["seat"] != 1 else 2
    lines[target] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")
    bad = invoke("replay", str(path))
    assert bad.exit_code == 1
    assert f"seq {obj['seq']}" in bad.stdout and "DIVERGED" in bad.stdout


def test_replay_detects_a_forged_visibility(toy_file: ToyFile) -> None:
    path = Path(run_json(toy_file())["transcript"])
    text = path.read_text().replace('"vis":[2]', '"vis":"public"', 1)
    path.write_text(text)
    assert invoke("replay", str(path)).exit_code == 1


def _cut_points(path: Path) -> dict[str, int]:
    """Byte offsets: mid-line (torn write), right after a core.step, mid-step."""
    raw = path.read_bytes()
    starts = [0]
    for i, byte in enumerate(raw):
        if byte == ord("\n"):
            starts.append(i + 1)
    lines = raw.decode().splitlines()
    step = next(i for i, x in enumerate(lines) if '"kind":"core.step"' in x and i > 10)
    decision = next(
        i for i, x in enumerate(lines) if '"kind":"core.decision"' in x and i > step + 1
    )
    return {
        "torn": starts[len(lines) // 2] + 17,
        "after_step": starts[step + 1],
        "mid_step": starts[decision + 1],
        # a whole last line without its newline (killed before the last byte)
        "no_newline": starts[step + 1] - 1,
    }


@pytest.mark.parametrize("where", ["torn", "after_step", "mid_step", "no_newline"])
def test_resume_after_crash_matches_uninterrupted_run(
    toy_file: ToyFile, tmp_path: Path, where: str
) -> None:
    full = Path(run_json(toy_file(MIXED))["transcript"])
    cut = tmp_path / "crashed.jsonl"
    cut.write_bytes(full.read_bytes()[: _cut_points(full)[where]])
    assert not read_transcript(cut).finished
    result = invoke("resume", str(cut), "--quiet")
    assert result.exit_code == 0, result.stderr
    assert event_lines(cut) == event_lines(full)
    resumed, original = read_transcript(cut), read_transcript(full)
    assert resumed.outcome is not None and original.outcome is not None
    assert resumed.outcome["results"] == original.outcome["results"]
    assert resumed.outcome["stats"]["decisions"] == original.outcome["stats"]["decisions"]
    assert invoke("replay", str(cut)).exit_code == 0


def test_resume_refuses_a_finished_game(toy_file: ToyFile) -> None:
    path = Path(run_json(toy_file())["transcript"])
    result = invoke("resume", str(path))
    assert result.exit_code == 2 and "already finished" in result.stderr


def test_fork_copies_prefix_and_continues_with_other_agents(
    toy_file: ToyFile, tmp_path: Path
) -> None:
    original = Path(run_json(toy_file())["transcript"])
    events = event_lines(original)
    at = next(e["seq"] + 1 for e in events if e["kind"] == "core.step" and e["seq"] > 5)
    other = toy_file(
        "[[agent]]\nkind = 'scripted'\nseats = [1, 2, 3]\n", name="other.toml"
    )  # every seat falls back from here on
    result = invoke(
        "fork",
        str(original),
        "--at",
        str(at),
        "--config",
        str(other),
        "--out",
        str(tmp_path / "forks"),
        "--quiet",
    )
    assert result.exit_code == 0, result.stderr
    (forked,) = (tmp_path / "forks").glob("*.jsonl")
    branch = read_transcript(forked)
    assert event_lines(forked)[:at] == events[:at]
    assert branch.header["forked_from"]["at"] == at
    later = [e for e in branch.events[at:] if e.kind == "core.decision"]
    assert later and all(e.to_json()["data"]["fallback"] for e in later)
    assert branch.finished and invoke("replay", str(forked)).exit_code == 0


def test_fork_off_boundary_names_nearest_points(toy_file: ToyFile) -> None:
    original = Path(run_json(toy_file())["transcript"])
    step = next(e["seq"] for e in event_lines(original) if e["kind"] == "core.step")
    result = invoke("fork", str(original), "--at", str(step))  # just before the boundary
    assert result.exit_code == 2
    assert "not a step boundary" in result.stderr and str(step + 1) in result.stderr


def test_fork_refuses_other_rules(toy_file: ToyFile) -> None:
    original = Path(run_json(toy_file())["transcript"])
    step = next(e["seq"] for e in event_lines(original) if e["kind"] == "core.step")
    other = toy_file("[rules]\nseats = 4\n", name="four.toml")
    result = invoke("fork", str(original), "--at", str(step + 1), "--config", str(other))
    assert result.exit_code == 2 and "differ" in result.stderr


def test_stats_on_a_folder_with_junk(toy_file: ToyFile, tmp_path: Path) -> None:
    config = toy_file()
    for seed in range(1, 6):
        run_json(config, "--seed", str(seed))
    folder = tmp_path / "out"
    (folder / "junk.jsonl").write_text("not json at all\n")
    (folder / "empty.jsonl").write_text("")
    result = invoke("stats", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    obj = json.loads(result.stdout)
    toy = obj["variants"]["toy"]
    assert toy["games"] == 5 and sum(toy["reasons"].values()) == 5
    assert {s["path"].rsplit("/", 1)[-1] for s in obj["skipped"]} == {"junk.jsonl", "empty.jsonl"}
    wins = sum(
        1
        for p in folder.glob("toy-*.jsonl")
        for r in (read_transcript(p).outcome or {})["results"].values()
        if r == "win"
    )
    counted = sum(
        round(cells["win"]["rate"] * cells["win"]["seats"]) for cells in toy["roles"].values()
    )
    assert counted == wins == 5  # one winner per toy game
    for cells in toy["roles"].values():
        for cell in cells.values():
            low, high = cell["ci95"]
            assert 0 <= low <= cell["rate"] <= high <= 1
    text = invoke("stats", str(folder))
    assert text.exit_code == 0 and "skipped" in text.stdout and "Traceback" not in text.stdout


@pytest.mark.parametrize(
    "content, expect",
    [
        (None, "no such"),
        ('{"type":"header","schema":99,"variant":"toy"}\n', "schema"),
        ('{"type":"header","schema":1,"variant":"chess"}\n', "chess"),
        ("hello\n", "not a transcript"),
    ],
)
def test_bad_transcripts_are_one_line_errors(
    tmp_path: Path, content: str | None, expect: str
) -> None:
    path = tmp_path / "t.jsonl"
    if content is not None:
        path.write_text(content)
    for command in (["view"], ["replay"], ["resume"], ["fork", "--at", "3"]):
        result = invoke(command[0], str(path), *command[1:])
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.count("\n") == 1 and expect in result.stderr


def test_seat_out_of_range_and_unknown_variant(toy_file: ToyFile) -> None:
    path = Path(run_json(toy_file())["transcript"])
    assert invoke("view", str(path), "--seat", "4").exit_code == 2
    assert invoke("run", str(toy_file()), "--as-seat", "0").exit_code == 2
    unknown = invoke("rules", "chess")
    assert unknown.exit_code == 2 and unknown.stderr.startswith("error: ")


def test_rules_prints_the_variant_rules() -> None:
    result = invoke("rules", "toy")
    assert result.exit_code == 0 and "T-1" in result.stdout


def test_live_view_as_seat_hides_other_seats(toy_file: ToyFile) -> None:
    result = invoke("run", str(toy_file()), "--as-seat", "2")
    assert result.exit_code == 0
    assert "seat=1, lucky" not in result.stdout and "seat 3 · pick" not in result.stdout
    referee = invoke("run", str(toy_file()))
    assert "seat=1, lucky" in referee.stdout


def test_human_seat_via_stdin_quits_into_recorded_fallbacks(toy_file: ToyFile) -> None:
    config = toy_file("[[agent]]\nkind = 'human'\nseats = [2]\n")
    result = invoke("run", str(config), "--json", input="nine\n1\nquit\n")
    assert result.exit_code == 0, result.stderr
    transcript = read_transcript(Path(json.loads(result.stdout)["transcript"]))
    mine = [e.to_json()["data"] for e in transcript.events if e.kind == "core.decision"]
    mine = [d for d in mine if d["seat"] == 2]
    assert mine[0]["payload"] == {"pick": 1} and not mine[0]["fallback"]
    assert mine[1:] and all(d["fallback_reason"] == "quit" for d in mine[1:])
    assert "not one of the seats 1, 2, 3" in result.stderr  # seat numbers are the keys


def test_fake_llm_command_exists() -> None:
    result = invoke("fake-llm", "--help")
    assert result.exit_code == 0 and "--policy" in result.stdout


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_real_variants_resume_and_seat_views(tmp_path: Path, variant: str) -> None:
    config = tmp_path / "g.toml"
    config.write_text(
        f'variant = "{variant}"\nseed = 11\n[run]\nout = "{tmp_path / "out"}"\n'
        '[default_agent]\nkind = "random"\n'
    )
    full = Path(run_json(config)["transcript"])
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(full.read_bytes()[: _cut_points(full)["mid_step"]])
    assert invoke("resume", str(cut), "--quiet").exit_code == 0
    assert event_lines(cut) == event_lines(full)
    transcript = read_transcript(full)
    for seat in (1, 5):
        shown = {e.seq for s in build_timeline(transcript, seat).sections for e in s.entries}
        vis = transcript.visibility
        assert shown and all(Visibility.from_json(vis[i]).visible_to(seat) for i in shown)


HUMAN_SEAT_2 = "[[agent]]\nkind = 'human'\nseats = [2]\n"


def shows_pick_of(output: str, seat: int) -> bool:
    """A seat's sealed pick, as the referee stream or that seat's own stream prints it."""
    return f"seat {seat} · pick" in output or f"seat={seat}, request_id" in output


def _cut_copy(full: Path, tmp_path: Path, name: str) -> Path:
    cut = tmp_path / name
    cut.write_bytes(full.read_bytes()[: _cut_points(full)["after_step"]])
    return cut


def test_resume_and_fork_hide_the_referee_stream_from_a_human(
    toy_file: ToyFile, tmp_path: Path
) -> None:
    config = toy_file(HUMAN_SEAT_2)
    played = invoke("run", str(config), "--json", input="quit\n")
    full = Path(json.loads(played.stdout)["transcript"])
    # Control: seats 1 and 3 do pick after the cut, and the stream would show it.
    shown = invoke("resume", str(_cut_copy(full, tmp_path, "a.jsonl")), "--as-seat", "1")
    assert shown.exit_code == 0, shown.stderr
    assert shows_pick_of(shown.stdout, 1) and not shows_pick_of(shown.stdout, 3)
    hidden = invoke("resume", str(_cut_copy(full, tmp_path, "b.jsonl")), input="quit\n")
    assert hidden.exit_code == 0, hidden.stderr
    assert not shows_pick_of(hidden.stdout, 1) and not shows_pick_of(hidden.stdout, 3)
    assert "referee's view is hidden" in hidden.stderr
    at = next(e["seq"] + 1 for e in event_lines(full) if e["kind"] == "core.step")
    forked = invoke("fork", str(full), "--at", str(at), "--config", str(config), input="quit\n")
    assert forked.exit_code == 0, forked.stderr
    assert not shows_pick_of(forked.stdout, 1) and not shows_pick_of(forked.stdout, 3)


def test_resume_and_fork_check_the_seat_range(toy_file: ToyFile, tmp_path: Path) -> None:
    full = Path(run_json(toy_file())["transcript"])
    cut = _cut_copy(full, tmp_path, "cut.jsonl")
    resumed = invoke("resume", str(cut), "--as-seat", "99")
    assert resumed.exit_code == 2 and "seat 99 out of range" in resumed.stderr
    assert not read_transcript(cut).finished  # refused before anything was appended
    forked = invoke("fork", str(full), "--at", "1", "--as-seat", "4")
    assert forked.exit_code == 2 and "seat 4 out of range" in forked.stderr


@pytest.mark.parametrize(
    "args, names",
    [
        (["run", "{config}", "--series", "0"], "--series"),
        (["view", "{config}", "--seat", "abc"], "--seat"),
        (["run"], "config"),
        (["run", "{config}", "--no-such-flag"], "--no-such-flag"),
        (["no-such-command"], "no-such-command"),
    ],
)
def test_parameter_errors_are_one_line_exit_2(
    toy_file: ToyFile, args: list[str], names: str
) -> None:
    config = str(toy_file())
    result = invoke(*(a.replace("{config}", config) for a in args))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and names in lines[0]
    assert result.stdout == ""


def test_run_help_keeps_the_bracketed_table_name() -> None:
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "(default: [run].out)" in result.stdout


@pytest.mark.parametrize(
    "args, expect",
    [(["--port", "99999"], "--port"), (["--port", "0", "--policy", "nope"], "unknown policy")],
)
def test_fake_llm_bad_input_is_one_line_and_claims_nothing(args: list[str], expect: str) -> None:
    result = invoke("fake-llm", *args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expect in lines[0]
    assert "fake LLM" not in result.stdout


def test_fake_llm_announces_itself_once_after_binding(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox.models.fake import server

    def interrupt(seconds: float) -> None:
        raise KeyboardInterrupt  # stands in for Ctrl-C once the server is up

    monkeypatch.setattr(server, "time", SimpleNamespace(sleep=interrupt))
    result = invoke("fake-llm", "--port", "0")
    assert result.exit_code == 0, result.stderr
    banners = [line for line in result.stdout.splitlines() if "fake LLM" in line]
    assert len(banners) == 1 and "127.0.0.1:0/" not in banners[0]  # the bound port


def _as_aborted(finished: Path, target: Path) -> Path:
    """A copy of a finished game whose outcome line says the provider failed."""
    lines = [json.loads(x) for x in finished.read_text().splitlines() if x.strip()]
    outcome = lines[-1]
    assert outcome["type"] == "outcome"
    outcome["reason"] = "aborted"
    outcome["results"] = {seat: "draw" for seat in outcome["results"]}
    target.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return target


def test_stats_leaves_aborted_games_out_of_the_rates(toy_file: ToyFile, tmp_path: Path) -> None:
    finished = Path(run_json(toy_file())["transcript"])
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(finished.read_bytes())
    _as_aborted(finished, folder / "b.jsonl")
    default = json.loads(invoke("stats", str(folder), "--json").stdout)["variants"]["toy"]
    outcome = read_transcript(finished).outcome
    assert outcome is not None
    assert default["reasons"] == {outcome["reason"]: 1, "aborted": 1}
    assert default["games"] == 2 and default["rated"] == 1
    draws = [cells["draw"] for cells in default["roles"].values()]
    assert all(cell["rate"] == 0 for cell in draws)  # the finished toy game has no draw
    assert sum(cell["seats"] for cell in draws) == 3  # the finished game's three seats
    counted = json.loads(invoke("stats", str(folder), "--json", "--include-aborted").stdout)
    toy = counted["variants"]["toy"]
    assert toy["rated"] == 2 and any(c["draw"]["rate"] > 0 for c in toy["roles"].values())
    text = invoke("stats", str(folder))
    assert text.exit_code == 0 and "aborted (left out of the rates" in text.stdout


@pytest.mark.parametrize("content", [None, "", "not json\n"])
def test_stats_with_nothing_readable_is_an_error(tmp_path: Path, content: str | None) -> None:
    target = tmp_path / "x"
    if content is None:
        target.mkdir()  # an empty folder
    else:
        target = tmp_path / "x.jsonl"
        target.write_text(content)
    for extra in ([], ["--json"]):
        result = invoke("stats", str(target), *extra)
        assert result.exit_code == 2 and result.stdout == ""
        lines = result.stderr.strip().splitlines()
        if extra:  # under --json the one line is a JSON object
            lines = [f"error: {json.loads(line)['error']}" for line in lines]
        assert len(lines) == 1 and lines[0].startswith("error: ") and str(target) in lines[0]


def test_negative_seeds_are_refused(toy_file: ToyFile, tmp_path: Path) -> None:
    flag = invoke("run", str(toy_file()), "--seed", "-1", "--json")
    assert flag.exit_code == 2 and flag.stderr.count("\n") == 1 and "--seed" in flag.stderr
    in_file = invoke("run", str(toy_file(seed=-3)), "--json")
    assert in_file.exit_code == 2 and json.loads(in_file.stderr)["exit_code"] == 2
    assert "seed" in in_file.stderr and "-3" in in_file.stderr
    assert not (tmp_path / "out").exists()


def test_a_folder_given_as_transcript_is_named_as_such(tmp_path: Path) -> None:
    for command in (["view"], ["replay"], ["resume"], ["fork", "--at", "3"]):
        result = invoke(command[0], str(tmp_path), *command[1:])
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr.count("\n") == 1 and "is a directory" in result.stderr


def test_replay_of_an_unfinished_game_says_so(toy_file: ToyFile, tmp_path: Path) -> None:
    full = Path(run_json(toy_file())["transcript"])
    cut = _cut_copy(full, tmp_path, "cut.jsonl")
    result = invoke("replay", str(cut))
    assert result.exit_code == 0
    assert f"unfinished: {len(read_transcript(cut).events)} events, no outcome" in result.stdout
    assert "unfinished" not in invoke("replay", str(full)).stdout

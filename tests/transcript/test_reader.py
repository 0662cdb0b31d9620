"""The one transcript reader: what :func:`read_lines` refuses and tolerates, and
the discovery helpers every command finds its files with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sandbox.transcript import TranscriptError, latency_of
from sandbox.transcript.files import read_head, transcript_files
from sandbox.transcript.reader import read_lines

HEADER = {"type": "header", "schema": 1, "variant": "killer", "seed": 1, "roles": {"1": "killer"}}
OUTCOME = {"type": "outcome", "reason": "hand", "results": {"1": "win"}}


def write(path: Path, *lines: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def event(seq: int) -> dict[str, Any]:
    return {"type": "event", "seq": seq, "kind": "hand.made", "vis": "public", "data": {}}


def test_a_torn_last_line_is_dropped(tmp_path: Path) -> None:
    lines = read_lines(write(tmp_path / "t.jsonl", HEADER, event(0), '{"type":"ev'))
    assert lines.torn_tail
    assert [obj["seq"] for _, obj in lines.objects()] == [0]


def test_a_last_line_torn_inside_a_character_is_one_torn_line(tmp_path: Path) -> None:
    """A crash may cut a line inside a multibyte character (Chinese speech): the
    file stays readable, the tail is dropped, and the game is not finished."""
    path = write(tmp_path / "t.jsonl", HEADER, event(0))
    speech = json.dumps({**event(1), "data": {"speech": "我怀疑三号"}}, ensure_ascii=False)
    with path.open("ab") as fh:
        fh.write(speech.encode("utf-8")[:-7])  # mid-way through a character
    lines = read_lines(path)
    assert lines.torn_tail
    assert [obj["seq"] for _, obj in lines.objects()] == [0]
    head = read_head(path)
    assert head is not None and not head.finished


def test_a_lone_surrogate_is_written_as_its_escape_and_reads_back(tmp_path: Path) -> None:
    """json.loads turns the escape "\\ud83d" (a provider's or a page's JSON) into
    a lone surrogate, which UTF-8 cannot hold: the line is still written whole."""
    from sandbox.transcript import TranscriptWriter

    odd = json.loads('"half an emoji: \\ud83d"')
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(path, background=False)
    writer.header({k: v for k, v in HEADER.items() if k not in ("type", "schema")})
    writer.call({"seat": 1, "raw": odd})
    writer.close()
    calls = [obj for _, obj in read_lines(path).objects() if obj["type"] == "call"]
    assert calls[0]["raw"] == odd


def test_blank_lines_are_skipped_and_numbers_kept(tmp_path: Path) -> None:
    lines = read_lines(write(tmp_path / "t.jsonl", "", HEADER, "", event(0)))
    assert lines.header_number == 2 and not lines.torn_tail
    assert [number for number, _ in lines.objects()] == [4]


@pytest.mark.parametrize(
    "middle, expect",
    [("{not json", ":2: unreadable line in the middle"), ("[1, 2]", ":2: a line must be")],
)
def test_a_bad_middle_line_names_file_and_line(tmp_path: Path, middle: str, expect: str) -> None:
    lines = read_lines(write(tmp_path / "t.jsonl", HEADER, middle, event(0)))
    with pytest.raises(TranscriptError, match=expect):
        list(lines.objects())


@pytest.mark.parametrize("first", ["junk", json.dumps(event(0)), ""])
def test_what_does_not_start_with_a_header_is_refused(tmp_path: Path, first: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(first, encoding="utf-8")
    with pytest.raises(TranscriptError, match="not a transcript"):
        read_lines(path)


def test_missing_files_and_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="no such"):
        read_lines(tmp_path / "gone.jsonl")
    with pytest.raises(TranscriptError, match="not a regular file"):
        read_lines(tmp_path)


def test_other_schemas_and_unknown_variants_still_read_as_lines(tmp_path: Path) -> None:
    # the tolerant layer analysis builds on: only the typed ``load`` checks these
    header = {**HEADER, "schema": 0, "variant": "not-installed"}
    lines = read_lines(write(tmp_path / "t.jsonl", header, event(0), OUTCOME))
    assert lines.header["variant"] == "not-installed" and len(list(lines.objects())) == 2


def test_latency_in_either_unit() -> None:
    assert latency_of({"latency_ms": 1500}) == 1.5
    assert latency_of({"latency_s": 0.25, "latency_ms": 9}) == 0.25
    assert latency_of({"latency_ms": "slow"}) is None


def test_heads_say_whether_the_game_ended(tmp_path: Path) -> None:
    done = read_head(write(tmp_path / "done.jsonl", HEADER, event(0), OUTCOME, ""))
    torn = read_head(write(tmp_path / "torn.jsonl", HEADER, OUTCOME, '{"type":"ev'))
    bare = read_head(write(tmp_path / "bare.jsonl", HEADER))
    assert done is not None and done.finished and done.header == HEADER
    assert torn is not None and not torn.finished
    assert bare is not None and not bare.finished
    assert read_head(write(tmp_path / "junk.jsonl", "junk")) is None
    assert read_head(tmp_path) is None


def test_folders_are_searched_recursively_and_files_kept_as_given(tmp_path: Path) -> None:
    b = write(tmp_path / "d" / "sub" / "b.jsonl", HEADER)
    a = write(tmp_path / "d" / "a.jsonl", HEADER)
    write(tmp_path / "d" / "notes.txt", "x")
    (tmp_path / "d" / "folder.jsonl").mkdir()
    given = tmp_path / "elsewhere.jsonl"
    assert transcript_files([tmp_path / "d", given]) == [a, b, given]

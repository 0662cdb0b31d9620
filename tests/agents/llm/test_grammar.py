"""The constrained route's grammar plan (sandbox/agents/llm/grammar.py), with
hand-built requests and known answers; the real server's side of the same
properties is tests/models/local/test_grammar_server.py."""

from __future__ import annotations

import json

import pytest

from sandbox.agents.llm import answer_format
from sandbox.agents.llm.grammar import MIN_TEXT_CHARS, Plan, plan_for
from sandbox.agents.llm.parse import AnswerError, parse_answer
from sandbox.agents.llm.settings import LIMITS
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text

SEATS = tuple(range(2, 12))  # seat 1 speaks; ten others


def speech_request(concede: bool = True) -> DecisionRequest:
    fields = (
        Text("speech", "your public speech (empty text passes)", 1200),
        Choice("claim", ("none", "police", "killer", "civilian"), "the role you claim"),
        MultiChoice("accuse", SEATS, "seats you accuse", len(SEATS), optional=True),
        MultiChoice("vouch", SEATS, "seats you vouch for", len(SEATS), optional=True),
    )
    if concede:
        fields += (Choice("concede", (False, True), "true concedes"),)
    return DecisionRequest("3.1.speech", 1, "speech", "KG-8", "Speak.", fields)


def vote_request() -> DecisionRequest:
    target = Choice("target", SEATS, "the player you vote out", nullable=True)
    return DecisionRequest("5.1.vote", 1, "vote", "KG-9", "Vote.", (target,))


def longest_answer(plan: Plan, request: DecisionRequest) -> str:
    """The longest answer the plan's grammar allows, written by hand: every
    string at its bound, the widest value of each choice, every seat named in
    a group with the longer list name."""
    bounds = dict(plan.text_chars)
    parts = [f'"reasoning":"{"x" * bounds["reasoning"]}"']
    for f in request.fields:
        if isinstance(f, Choice):
            widest = max((json.dumps(v) for v in f.legal()), key=len)
            parts.append(f'"{f.name}":{widest}')
    (group,) = plan.groups
    widest_name = max(group.members, key=len)
    named = ",".join(f'"{s}":"{widest_name}"' for s in group.options)
    parts.append(f'"{group.key}":{{{named}}}')
    parts.append(f'"speech":"{"y" * bounds["speech"]}"')
    return "{" + ",".join(parts) + "}"


def test_the_speech_grammar_writes_text_last_and_lists_as_one_object() -> None:
    plan = plan_for(speech_request(), 48, 160, 448, "en")
    assert plan is not None
    # the long text comes last, after every short field; the lists are one key
    assert plan.order == ("reasoning", "claim", "concede", "accuse_or_vouch", "speech")
    assert dict(plan.text_chars) == {"reasoning": 48, "speech": 160}
    assert 'root ::= "{" "\\"reasoning\\":" note' in plan.grammar
    assert plan.grammar.rstrip().endswith('"\\""')  # the speech rule closes its string
    # free text: "pass" said explicitly, or at least MIN_TEXT_CHARS characters, the
    # first one visible (a blank speech would be a silent pass)
    assert f'( "pass" | first ch{{{MIN_TEXT_CHARS - 1},159}} )' in plan.grammar
    assert "first ::= [\\x21" in plan.grammar


def test_the_longest_answer_fits_max_tokens_with_its_closing_characters() -> None:
    for max_tokens in (448, 300, 260):
        request = speech_request()
        plan = plan_for(request, 48, 160, max_tokens, "en")
        assert plan is not None
        text = longest_answer(plan, request)
        json.loads(text)  # well-formed: what the grammar's longest path writes
        assert len(text.encode()) == plan.max_bytes <= max_tokens
    # 300 tokens: the note is shortened first (to its minimum of 8), the speech
    # gets the rest; the bytes besides the strings' characters are 215 here
    tight = plan_for(speech_request(), 48, 160, 300, "en")
    assert tight is not None
    fixed = len(longest_answer(tight, speech_request())) - sum(dict(tight.text_chars).values())
    assert fixed == 215
    assert dict(tight.text_chars) == {"reasoning": 8, "speech": 300 - 215 - 8}


def test_a_choice_fits_the_small_choice_budget() -> None:
    plan = plan_for(vote_request(), 48, 160, 64, "en")
    assert plan is not None
    # {"reasoning":"<n>","target":null} with the widest value: 64 bytes at most
    assert plan.max_bytes <= 64
    assert dict(plan.text_chars)["reasoning"] == 64 - len('{"reasoning":"","target":null}')
    assert plan.hint("en") == ""  # the prompt's own field list already says this shape
    assert 'v-target ::= "2" | "3"' in plan.grammar and '| "null"' in plan.grammar


def test_a_request_that_cannot_fit_goes_the_schema_route() -> None:
    # every seat named, a claim and a speech cannot fit 112 tokens' bytes
    assert plan_for(speech_request(), 48, 160, 112, "en") is None
    fmt = answer_format.for_decision(
        speech_request(), None, LIMITS["compact"], "json_object", "en",
        takes_grammar=True, max_tokens=112,
    )  # fmt: skip
    assert fmt.extra_body is None and fmt.response_format is not None


def test_other_languages_count_four_bytes_a_character() -> None:
    plan = plan_for(vote_request(), 48, 160, 64, "zh")
    assert plan is not None
    fixed = len('{"reasoning":"","target":null}')
    assert dict(plan.text_chars)["reasoning"] == (64 - fixed) // 4
    assert plan.max_bytes <= 64


def test_decode_turns_the_object_back_into_disjoint_lists_in_seat_order() -> None:
    plan = plan_for(speech_request(), 48, 160, 448, "en")
    assert plan is not None
    wire = {
        "reasoning": "r",
        "claim": "police",
        "concede": False,
        "accuse_or_vouch": {"3": "accuse", "11": "vouch", "5": "accuse"},
        "speech": "I suspect seat 3 and seat 5.",
    }
    decoded = plan.decode(wire)
    assert decoded["accuse"] == [3, 5] and decoded["vouch"] == [11]
    assert "accuse_or_vouch" not in decoded
    assert plan.decode({"accuse_or_vouch": {}})["accuse"] == []


def test_the_grammar_format_parses_into_the_referees_fields() -> None:
    request = speech_request()
    fmt = answer_format.for_decision(
        request, None, LIMITS["compact"], "json_object", "en",
        takes_grammar=True, max_tokens=448,
    )  # fmt: skip
    assert fmt.response_format is None and fmt.extra_body is not None
    assert "accuse_or_vouch" in fmt.hint  # the shape differs from the field list
    raw = json.dumps(
        {
            "reasoning": "quiet seat",
            "claim": "none",
            "concede": False,
            "accuse_or_vouch": {"4": "vouch", "2": "accuse"},
            "speech": "pass",
        }
    )
    parsed = parse_answer(raw, fmt.decision)
    assert parsed.decision == {
        "speech": "",  # the explicit pass is the rules' pass: no text
        "claim": "none",
        "accuse": [2],
        "vouch": [4],
        "concede": False,
    }
    assert parsed.reasoning == "quiet seat"
    # a seat that is no option is still refused by the checks after decoding
    bad = raw.replace('"4": "vouch"', '"1": "vouch"')
    with pytest.raises(AnswerError, match="vouch"):
        parse_answer(bad, fmt.decision)


def test_probes_and_other_routes_keep_the_schema_form() -> None:
    request = vote_request()
    plain = answer_format.for_decision(request, None, LIMITS["compact"], "json_object", "en")
    assert plain.extra_body is None and plain.response_format is not None
    strict = answer_format.for_decision(
        request, None, LIMITS["compact"], "json_schema", "en", takes_grammar=True, max_tokens=64
    )
    assert strict.extra_body is None


def test_a_lone_list_is_written_in_option_order_without_repeats() -> None:
    request = DecisionRequest(
        "1.1.pick", 1, "pick", "X-1", "Pick.",
        (MultiChoice("picks", ("a", "b", "c"), "up to two", 2),),
    )  # fmt: skip
    plan = plan_for(request, 16, None, None, "en")
    assert plan is not None and plan.groups == ()
    rules = dict(line.split(" ::= ", 1) for line in plan.grammar.strip().splitlines())
    # two values left: "a" may go on to "b" or "c"; "c" (the last) can only close
    assert rules["l-picks-0-2"] == '"\\"a\\"" ( "]" | "," l-picks-1-1 | "," l-picks-2-1 )'
    assert rules["l-picks-2-2"] == '"\\"c\\"" ( "]" )'
    assert rules["l-picks-1-1"] == '"\\"b\\"" ( "]" )'  # one value left: only close
    assert rules["l-picks"] == '"[" ( "]" | l-picks-0-2 | l-picks-1-2 | l-picks-2-2 )'


def test_string_bounds_stay_within_what_llama_cpp_expands_well() -> None:
    # the full style: the referee's 1200 characters, no max_tokens
    plan = plan_for(speech_request(), 200, None, None, "en")
    assert plan is not None
    assert dict(plan.text_chars) == {"reasoning": 200, "speech": 256}


def test_a_text_field_shorter_than_the_minimum_keeps_its_own_limit() -> None:
    """A variant may allow fewer characters than MIN_TEXT_CHARS (Werewolf's
    speech_chars >= 1): the grammar's bound never exceeds the field's, and
    "pass" (4 bytes) still fits a field of fewer characters, decoded to ""."""
    for limit in (10, 3, 1, 0):
        request = DecisionRequest(
            "1.1.speech", 1, "speech", "X-2", "Speak.", (Text("speech", "a few words", limit),)
        )
        plan = plan_for(request, 48, None, 64, "en")
        assert plan is not None
        assert dict(plan.text_chars)["speech"] == limit
        if limit:
            assert f"first ch{{{limit - 1},{limit - 1}}}" in plan.grammar
        else:
            assert '( "pass" ) "\\""' in plan.grammar
        assert plan.max_bytes <= 64
        assert plan.decode({"reasoning": "", "speech": "pass"})["speech"] == ""


def test_the_shared_example_names_no_seat_so_every_seat_reads_it_alike() -> None:
    # two seats of one step: their options differ by their own seat
    mine = speech_request(concede=False)
    other_seats = tuple(s for s in (1, *SEATS) if s != 5)
    fields = tuple(
        MultiChoice(f.name, other_seats, f.description, len(other_seats), optional=True)
        if isinstance(f, MultiChoice)
        else f
        for f in mine.fields
    )
    theirs = DecisionRequest("3.5.speech", 5, "speech", "KG-8", "Speak.", fields)
    plans = [plan_for(r, 48, 160, 448, "en") for r in (mine, theirs)]
    assert all(p is not None for p in plans)
    own = {p.hint("en") for p in plans if p is not None}
    shared = {p.hint("en", shared=True) for p in plans if p is not None}
    assert len(own) == 2, "each seat's own example names its own options"
    assert len(shared) == 1, "the shared example is the same for both seats"
    (hint,) = shared
    assert '"accuse_or_vouch":{"N":"accuse","N":"vouch"}' in hint
    assert not any(str(s) in hint for s in range(1, 12)), hint


def test_the_hint_goes_where_the_prompt_says() -> None:
    fmt = answer_format.grammar_format(speech_request(), LIMITS["compact"], 448, "en")
    assert fmt is not None and fmt.hint
    prompt = [{"role": "system", "content": "S"}, {"role": "user", "content": "fields|card"}]
    at_end = fmt.messages(prompt)[1]["content"]
    assert at_end == "fields|card" + fmt.hint
    placed = fmt.messages(prompt, at=len("fields|"))[1]["content"]
    assert placed == "fields|" + fmt.hint + "card"
    assert prompt[1]["content"] == "fields|card", "the rendered prompt is not changed"


def test_the_shared_example_leaves_out_the_seats_own_fields() -> None:
    plan = plan_for(speech_request(concede=True), 48, 160, 448, "en", frozenset({"concede"}))
    assert plan is not None
    shared = plan.hint("en", shared=True)
    assert "concede" not in shared and '"claim":"none"' in shared
    # kept, a boolean is a value, not a seat: never the placeholder
    kept = plan_for(speech_request(concede=True), 48, 160, 448, "en")
    assert kept is not None and '"concede":false' in kept.hint("en", shared=True)


def test_open_with_seat_adds_the_openings_and_the_requests_seats() -> None:
    """Issue 40 item 5: the compact style's grammar opens a speech by naming a seat
    of the request's options; the full style's, and a field too short to keep
    words of its own after the opening, open freely as before."""
    assert LIMITS["compact"].open_with_seat and not LIMITS["full"].open_with_seat
    plan = plan_for(speech_request(), 48, 160, 448, "en", open_with_seat=True)
    assert plan is not None
    rules = dict(line.split(" ::= ", 1) for line in plan.grammar.splitlines())
    assert rules["open"] == '"Seat " | "I suspect seat " | "I trust seat " | "I think seat "'
    assert rules["seat"] == " | ".join(f'"{s}"' for s in SEATS)  # the options, not seat 1
    assert rules["t-speech"] == '"\\"" ( "pass" | open seat after ch{5,142} ) "\\""'  # 12-160
    free = plan_for(speech_request(), 48, 160, 448, "en")
    assert free is not None and "open" not in free.grammar
    short = DecisionRequest(
        "3.1.speech", 1, "speech", "KG-8", "Speak.", (Text("speech", "a few words", 24),)
    )
    tight = plan_for(short, 48, 160, 448, "en", open_with_seat=True)
    assert tight is not None and "open" not in tight.grammar  # 24 - 17 < 16 own characters
    zh = plan_for(speech_request(), 48, 160, 448, "zh", open_with_seat=True)
    assert zh is not None and '"2号"' in zh.grammar and '"我怀疑"' in zh.grammar

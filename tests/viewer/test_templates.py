"""A referee's sentence written as a template of the event's data fields
(``sandbox.words.parts.Template``): each field said as the f-strings it
replaces said it, in both languages."""

from __future__ import annotations

from sandbox.core.words import REFEREE, Lang, Words
from sandbox.words.parts import NIGHT_FALLS, Template, from_templates

EN, ZH = Lang("en"), Lang("zh")


def test_a_template_says_seats_lists_and_plain_fields_in_each_language() -> None:
    said = Template(
        "{seat:Seat} asks {target:seat} on day {day} ({members:seats})",
        "{seat:Seat}在第{day}天问{target:seat}（{members:seats}）",
    )
    d = {"seat": 3, "target": 5, "day": 2, "members": [1, 4]}
    assert said.fill(d, EN) == "Seat 3 asks seat 5 on day 2 (seats 1, 4)"
    assert said.fill(d, ZH) == "3号在第2天问5号（1、4号）"


def test_a_missing_field_is_said_as_d_get_gives_it() -> None:
    said = Template("{target:seat} of {members:seats} on day {day}", "{target:seat}")
    assert said.fill({}, EN) == "nobody of nobody on day None"
    assert said.fill({"role": "police"}, EN) == "nobody of nobody on day None"
    assert Template("{role:term}", "{role:term}").fill({"role": "police"}, ZH) == ZH.term("police")


def test_the_referee_states_a_template_about_its_seat() -> None:
    table = from_templates({"x.role": Template("{seat:Seat} is {role}", "{seat}", about="seat")})
    assert table["x.role"]({"seat": 4, "role": "killer"}, EN) == Words(
        "x.role", REFEREE, "Seat 4 is killer.", 4
    )
    night = from_templates({"x.night": NIGHT_FALLS})["x.night"]
    assert night({"night": 2}, ZH) == Words("x.night", REFEREE, "第2夜降临。")

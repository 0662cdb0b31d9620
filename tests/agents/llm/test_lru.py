"""The byte-bounded LRU (sandbox/agents/llm/lru.py, cachetools' LRUCache
charged in bytes): hand-built sizes with known answers, eviction order, and
the answer-format caches staying within their budgets however many distinct
request shapes they see."""

from __future__ import annotations

import sys

import pytest

from sandbox.agents.llm import answer_format as af
from sandbox.agents.llm.lru import ByteLRU, byte_lru, deep_size, model_size
from sandbox.agents.llm.settings import LIMITS
from sandbox.core.requests import Choice, DecisionRequest, Text


def test_deep_size_counts_every_reachable_object_once() -> None:
    inner = ["ab", "cd"]
    expected = (
        sys.getsizeof({"k": inner})
        + sys.getsizeof("k")
        + sys.getsizeof(inner)
        + sys.getsizeof("ab")
        + sys.getsizeof("cd")
    )
    assert deep_size({"k": inner}) == expected
    # the same list twice is counted once
    twice = [inner, inner]
    assert deep_size(twice) == sys.getsizeof(twice) + deep_size(inner)
    # a cycle ends
    loop: list[object] = []
    loop.append(loop)
    assert deep_size(loop) == sys.getsizeof(loop)
    # classes and functions are program text: their size only, not their contents
    assert deep_size(int) == sys.getsizeof(int)


def test_entries_are_dropped_least_recently_used_first_to_stay_in_budget() -> None:
    cache: ByteLRU[str, int] = ByteLRU(30, size_of=lambda v: v, key_size=lambda k: 0)
    cache.put("a", 10)
    cache.put("b", 10)
    cache.put("c", 10)
    assert cache.get("a") == 10  # a is now the most recent
    cache.put("d", 10)  # 40 > 30: b, the least recently used, goes
    assert "b" not in cache and cache.get("b") is None
    assert [cache.get(k) is not None for k in "acd"] == [True, True, True]
    assert cache.currsize == 30 and len(cache) == 3
    cache.put("a", 25)  # replacing an entry charges its new size only: c and d go
    assert cache.currsize == 25 and len(cache) == 1
    cache.put("huge", 31)  # bigger than the whole budget: never kept
    assert "huge" not in cache and cache.get("a") == 25
    with pytest.raises(ValueError, match="too large"):
        cache["huge"] = 31  # cachetools' own refusal, which put absorbs
    assert (len(cache), cache.currsize, cache.maxsize) == (1, 25, 30)


def test_a_key_is_charged_with_its_value_and_none_is_a_value() -> None:
    cache: ByteLRU[str, None] = ByteLRU(100, size_of=lambda v: 1, key_size=len)
    cache.put("x" * 9, None)
    assert "x" * 9 in cache and cache["x" * 9] is None
    assert cache.currsize == 10
    with pytest.raises(ValueError, match="max_bytes"):
        ByteLRU(0)


def test_the_decorator_memoises_by_arguments_and_counts() -> None:
    calls: list[int] = []

    @byte_lru(1 << 20)
    def square(n: int) -> list[int]:
        calls.append(n)
        return [n * n]

    first = square(3)
    assert square(3) is first and calls == [3]
    assert square(4) == [16] and calls == [3, 4]
    info = square.cache_info()
    assert (info.hits, info.misses, len(square.cache)) == (1, 2, 2)
    square.cache_clear()
    assert square(3) == [9] and calls == [3, 4, 3]


def _request(i: int) -> DecisionRequest:
    seats = tuple(s for s in range(16) if (i >> s) & 1)
    fields = (Choice("target", seats, "Who"), Text("speech", "What you say", 600))
    return DecisionRequest("r", 0, "vote", "KG-1", "Vote.", fields)


def test_answer_format_caches_stay_within_their_byte_budgets() -> None:
    """600 distinct request shapes (more than the old 512-entry limit held):
    every cache ends within its budget, and what it returns is still right."""
    for i in range(1, 601):
        fmt = af.response_format(_request(i), None, LIMITS["full"], "json_schema")
        assert fmt is not None
    for table in (af._decision_model, af.model_schema):
        info = table.cache_info()
        assert info.maxsize is not None
        assert 0 < info.currsize <= info.maxsize and len(table.cache) < 600
    for store in (af.response_format, af.wire_schema):
        info = store.cache_info()
        assert info.maxsize is not None
        assert 0 < info.currsize <= info.maxsize
    # a shape evicted long ago is rebuilt identically
    again = af.response_format(_request(1), None, LIMITS["full"], "json_schema")
    combined = af.answer_models(_request(1)).wire
    assert again == af.model_response_format(combined, "json_schema")


def test_a_model_is_charged_at_least_its_python_heap() -> None:
    model = af._decision_model.__wrapped__("vote", _request(77).fields, None, LIMITS["full"])
    namespace = deep_size(dict(vars(model)))
    assert model_size(model) == sys.getsizeof(model) + namespace
    assert namespace > deep_size(model.__pydantic_core_schema__) > 1000

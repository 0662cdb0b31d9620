"""The message an adapter raises when its optional extra is missing."""

from __future__ import annotations

from sandbox.adapters.extras import missing_extra


def test_the_message_names_the_missing_package_and_the_extra_to_install() -> None:
    cause = ImportError("No module named 'gymnasium'", name="gymnasium")
    err = missing_extra("sandbox.adapters.pettingzoo", "pettingzoo and gymnasium", "envs", cause)
    assert str(err) == (
        "sandbox.adapters.pettingzoo needs pettingzoo and gymnasium (gymnasium is missing): "
        "pip install -e '.[envs]'"
    )

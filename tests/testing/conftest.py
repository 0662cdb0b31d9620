"""Hypothesis profiles: "ci" (default, the full example counts) and "dev"
(100 examples, for quick local runs: HYPOTHESIS_PROFILE=dev)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", parent=settings.get_profile("ci"), max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

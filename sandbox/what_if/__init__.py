"""What-if experiments on saved games (docs/studies.md, "What if"): change one
thing in a game, play the rest again K times beside an unchanged control, and
measure what the change did.

- :mod:`~sandbox.what_if.intervention`: what an arm changes, checked against its
  source game (:func:`prepare`), and the events its branches start from;
- :mod:`~sandbox.what_if.branches`: the branches of each arm played (or
  finished, or found finished), one transcript each that says where it forked;
- :mod:`~sandbox.what_if.counterfactual`: one intervention on one game and its
  effect on the outcomes (``sandbox whatif``, :func:`whatif`);
- :mod:`~sandbox.what_if.ablation`: a sample of a study's speeches removed or
  replaced by a pass (``sandbox ablate``).

What a branch's seats never heard is read from its header by
:mod:`sandbox.session.hearing`: resume, replay, fork and the viewer read it
too, and they sit below this package, so the rule stays with them.

Layer: this package plays games (``session``) and measures them (``analysis``);
``cli``, ``report`` and ``study`` may import it, nothing below them does. The
folder is ``what_if`` because ``sandbox.whatif`` is the public function
(``from sandbox import whatif``), which a subpackage of that name would shadow.
"""

from __future__ import annotations

from sandbox.what_if.branches import Branch, play_branch, resume_branch, run_arms
from sandbox.what_if.counterfactual import DEFAULT_BRANCHES, WhatIfResult, run_whatif, whatif
from sandbox.what_if.intervention import CONTROL, KINDS, Intervention, Prepared, prepare

__all__ = [
    "CONTROL",
    "DEFAULT_BRANCHES",
    "KINDS",
    "Branch",
    "Intervention",
    "Prepared",
    "WhatIfResult",
    "play_branch",
    "prepare",
    "resume_branch",
    "run_arms",
    "run_whatif",
    "whatif",
]

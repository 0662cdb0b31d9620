"""Framework adapters: the sandbox's games in the frameworks researchers already
use. ``step`` is the stepping interface under all of them; ``pettingzoo`` and
``textarena`` need the ``envs`` extra (docs/frameworks.md)."""

"""Framework adapters: the sandbox's games played from inside the frameworks
researchers already use. ``step`` is the stepping interface under them;
``pettingzoo`` and ``textarena`` need the ``envs`` extra (docs/frameworks.md),
``inspect_ai/`` the ``inspect`` extra (docs/inspect.md). The core never imports
an adapter."""

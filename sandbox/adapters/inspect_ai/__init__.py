"""inspect_ai evaluations of the sandbox's games (the ``inspect`` extra).

``inspect eval sandbox/<variant> --model M -T side=... -T opponents=...``: each
sample is one game in which the evaluated model plays a seat or a whole side,
the other seats come from an opponent pool, and the scores are the win and the
variant's behaviour metrics. docs/inspect.md has the options.

- ``agent``: ``InspectAgent``, the ``llm`` seat with its calls through inspect;
- ``opponents``: the pool that fills the other seats;
- ``samples``: one sample per game, its seed and the seats the model plays;
- ``scoring``: the scorer and its metrics, read from the game's transcript;
- ``tasks``: the solver and one registered task per variant (the entry point);
- ``mock``: answers for inspect's ``mockllm/model`` that play legally (tests).
"""

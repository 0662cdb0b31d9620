"""The prompt of one decision, built from the seat's view: the stage between
the view and the answer format.

One job per module, each importing only those before it: ``escaping`` (player
text can only be quoted), ``templates`` (the jinja2 environment over the
packaged ``prompts/`` folder and the lookup order), ``record`` (the seat's
history as prompt lines, kept per seat between decisions), ``budget`` (the
tokens a prompt may take and the record condensed to fit) and ``render`` (the
two chat messages, laid out for prefix caches).
"""

from sandbox.agents.llm.prompt.record import RecordMemo
from sandbox.agents.llm.prompt.render import RenderedPrompt, hold, render_prompt, shared_layout
from sandbox.agents.llm.prompt.templates import precompile

__all__ = ["RecordMemo", "RenderedPrompt", "hold", "precompile", "render_prompt", "shared_layout"]

"""Words: every event, decision, card and rule of a game as people and models
read them, per variant and language (``en``, ``zh``).

One source per event and language: a variant's words module
(``games/<v>/words.py``, a :class:`~sandbox.core.words.VariantWords`) says
each event; the viewer, the web pages, the human seats and the model seats'
record all say it through :mod:`sandbox.words.say`. The prompt templates
(jinja2, ``prompts/<variant>/<lang>/``) lay the prompt out around those lines,
and the rules are templates too (:mod:`sandbox.words.rules`).

This package imports only :mod:`sandbox.core`, jinja2 and the packaged
templates, so the seats may use it without importing the games. Its functions
take the :class:`~sandbox.core.variant.Variant` object, never a name.
"""

# The public face is the dispatcher's own list (say.__all__).
from sandbox.words.say import *  # noqa: F403
from sandbox.words.say import __all__ as __all__

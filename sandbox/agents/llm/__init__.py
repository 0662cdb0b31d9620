"""LLM seats: a model plays a seat through structured decisions, repaired in
the same conversation when invalid, with every call recorded.

One decision, stage by stage (each stage one module, visited once, importing
only the stages before it; ``agent`` orchestrates them in this order):

1. view — ``beliefs``: what the seat is asked about beside the decision (the
   belief probe), from its own view only;
2. prompt — ``prompt/`` (``escaping``, ``templates``, ``record``, ``budget``,
   ``render``): the two chat messages, laid out for prefix caches and fitted
   to the model's window;
3. answer format — ``answer_format``: the answer schema, composed from cached
   parts, as sent with the call, as checked, or in words for the prompt, on
   the rung of the structured-output ladder ``ladder`` picks;
4. call — ``sandbox.models.client``: one model call, one retry layer;
5. parse — ``parse``: the answer read and checked, or the repair message;
6. record — ``call_record``: what the call leaves for study on its record.

``settings`` holds the seat's ``[llm]`` settings and the answer lengths each
prompt style implies; ``setup`` what a seat settles once (retry policy,
concurrency, window, warm-up).
"""

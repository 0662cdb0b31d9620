"""Model transport: the providers, one class per way a model is served, each
answering what the seat asks of it (``providers``: litellm, our own
OpenAI-protocol servers, the fake, the embedded local model, inspect's
model); one call with one retry layer (``client``), pooled HTTP clients
(``pool``), the target and its resolved endpoint (``endpoints``), keys kept
out of every record (``secrets``), the process-wide call gate (``gate``),
litellm and what it knows of a model (``remote``), the embedded model's
server (``local``) and the fake provider's (``fake``)."""

"""Model transport: one call with one retry layer (``client``), pooled HTTP
clients (``pool``), where a model string is served (``endpoints``), keys kept
out of every record (``secrets``), the process-wide call gate (``gate``), and
our own OpenAI-protocol servers beside the remote provider route (``remote``,
litellm): the embedded model (``local``) and the fake provider (``fake``)."""

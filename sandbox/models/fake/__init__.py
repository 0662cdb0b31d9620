"""A fake OpenAI-compatible chat server for tests, dry runs and benchmarks.

It speaks real HTTP on the loopback interface so the whole client path
(litellm → openai SDK → HTTP) is exercised without a model or a key.
"""

from sandbox.models.fake.server import FakeLLMServer, run_server

__all__ = ["FakeLLMServer", "run_server"]

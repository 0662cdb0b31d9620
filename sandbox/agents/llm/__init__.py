"""LLM seats: litellm client, prompts, repair loop, retries, call records."""

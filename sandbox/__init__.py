"""A sandbox for social-deduction games played by LLM agents."""

__version__ = "0.1.0"

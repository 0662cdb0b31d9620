"""The backends' one error (its own module, so every backend module can raise it
without importing the others)."""

from __future__ import annotations


class BackendError(ValueError):
    """A backend that cannot be used as asked (shown as one error line, exit 2)."""

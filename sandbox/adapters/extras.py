"""The one message an adapter gives when its optional extra is not installed."""

from __future__ import annotations


def missing_extra(module: str, needs: str, extra: str, err: ImportError) -> ImportError:
    """The ImportError to raise from ``err`` when ``module`` cannot import what it
    ``needs``: it names the missing package and the extra that brings it, as the
    frameworks' extras are optional (docs/frameworks.md)."""
    return ImportError(
        f"{module} needs {needs} ({err.name} is missing): pip install -e '.[{extra}]'"
    )

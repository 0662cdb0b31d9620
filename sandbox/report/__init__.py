"""``sandbox report``: a self-contained HTML page (plus Markdown and CSV) from a summary."""

from sandbox.report.page import write_report

__all__ = ["write_report"]

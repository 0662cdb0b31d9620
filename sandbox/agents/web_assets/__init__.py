"""The browser seat's page template (see sandbox/agents/web.py)."""

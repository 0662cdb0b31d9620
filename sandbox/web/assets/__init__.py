"""The web seat's jinja2 templates (templates/) and static files (static/)."""

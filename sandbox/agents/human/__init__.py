"""A person at the table: the seat (``seat``: this terminal or a browser page)
and the terminal prompt (``terminal``)."""

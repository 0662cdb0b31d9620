"""Viewers for games: terminal (rich) and self-contained HTML, as referee or as one seat."""

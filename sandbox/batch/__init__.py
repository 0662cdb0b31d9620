"""Batches of independent games: the plain-data jobs (``jobs``), the batch
runner (``run``), worker processes with games in flight (``workers``) and the
backends that play them (``backends``: local processes or a Ray cluster)."""

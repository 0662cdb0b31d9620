"""The pure rules engine: events, visibility, decision requests, the referee.

Nothing in this package does I/O or imports agent, LLM or UI code.
"""

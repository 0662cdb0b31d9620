"""Seats: scripted, random, baseline bots, humans and LLMs behind one interface."""

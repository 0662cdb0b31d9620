"""Adapters: the sandbox's games played from inside other frameworks (evaluation
harnesses, environment APIs). Each adapter is an optional extra; the core never
imports one."""

"""Model-vs-model studies: experiment files, schedules, resumable runs (docs/studies.md)."""

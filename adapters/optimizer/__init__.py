"""The FSRS optimizer behind the core's Optimizer port (bot/application/study/memory_fit.py)."""

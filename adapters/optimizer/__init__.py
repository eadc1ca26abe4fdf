"""The FSRS optimizer behind the core's Optimizer port (bot/study/memory_fit.py)."""

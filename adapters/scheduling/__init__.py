"""Driven adapter for time: the APScheduler implementation of the core's Scheduler port."""

"""Benchmarks: scripts that measure studybot end to end and print a table of results against targets.

Run them as scripts (`python benchmarks/answers.py`) or as modules (`python -m benchmarks.answers`);
`benchmarks/_common.py` holds what they share (machine facts, percentiles, the table, CPU pinning).
"""

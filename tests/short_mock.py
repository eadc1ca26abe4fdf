"""A mock exam short enough to sit on the real clock in a test: a paper of two items (the sample
bank's single-choice and true/false questions, a point each) lasting three seconds, and a
reminder lead of a second and a half, set the public way: the paper's `minutes` (a fraction is
allowed) in a bank file or the bank, and `study.mock_reminder_minutes` in the configuration."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from bot.domain.questions import Bank, Paper, PaperSection, QuestionType

PAPER_MINUTES = 0.05  # three seconds
REMIND_MINUTES = 0.025  # a second and a half before the end
PAPER_TIME = timedelta(minutes=PAPER_MINUTES)
STUDY = {"mock_reminder_minutes": REMIND_MINUTES}  # the `study:` section of the configuration
ITEMS, TOTAL = 2, "2"  # what the paper asks, and its full marks as the notices print them
# Long enough for a loaded CI machine; the notices come within a few seconds.
TIMEOUT = 30.0

SAMPLE_BANK = Path(__file__).resolve().parent / "banks" / "sample.yaml"
PAPER_YAML = f"""
paper:
  minutes: {PAPER_MINUTES}
  pass_mark: 1
  sections:
    - {{type: single, count: 1, points: 1}}
    - {{type: judge, count: 1, points: 1}}
"""


def short_paper_file(folder: Path) -> Path:
    """tests/banks/sample.yaml with the short paper declared, written into `folder`."""
    path = folder / "sample-short-paper.yaml"
    path.write_text(SAMPLE_BANK.read_text(encoding="utf-8") + PAPER_YAML, encoding="utf-8")
    return path


def with_short_paper(bank: Bank) -> Bank:
    """`bank` (one with a single-choice and a true/false question) declaring the short paper."""
    sections = (PaperSection(QuestionType.SINGLE, 1, 1.0), PaperSection(QuestionType.JUDGE, 1, 1.0))
    return replace(bank, paper=Paper(sections, PAPER_MINUTES, 1.0))

"""Reader for Moodle's Aiken format: a question line (or several), options `A.` / `A)` one per
line, then `ANSWER: X`. Single choice only, by the format's definition. Moodle wants `ANSWER` in
capitals; teachers write `Answer: B` too, and a full-width colon, so both are read.
"""

from __future__ import annotations

import re

from bot.domain.questions import QuestionType

from .base import Draft, PaperDraft
from .clean import CleanText
from .fields import join_lines
from .report import Report

__all__ = ["AikenReader", "looks_like_aiken"]

_OPTION_RE = re.compile(r"^[ \t]*([A-Z])[.)][ \t]+(\S.*?)[ \t]*$")
_ANSWER_RE = re.compile(r"^[ \t]*(?i:answer)[ \t]*[:：][ \t]*(\S*)[ \t]*$")
_STRICT_RE = re.compile(r"^[ \t]*[A-Z][.)][ \t]+\S.*\n[ \t]*ANSWER[ \t]*:[ \t]*[A-Z]\b", re.MULTILINE)
_LOOSE_RE = re.compile(r"^[ \t]*[A-Z][.)][ \t]+\S.*\n[ \t]*(?i:answer)[ \t]*[:：][ \t]*[A-Za-z]\b",
                       re.MULTILINE)
# A numbered item (`1.` `1、` `1)` `(1)`): a paper, whose reader also takes `Answer: B` after an item.
_NUMBERED_RE = re.compile(r"^[ \t]*(?:[(（][ \t]*\d+[ \t]*[)）]|\d+[ \t]*[.．、)）])", re.MULTILINE)


def looks_like_aiken(text: str) -> bool:
    """At least one `ANSWER: X` line right after option lines; `Answer: X` in any case only when
    no question is numbered (numbered questions with `Answer:` lines are a paper)."""
    if _STRICT_RE.search(text):
        return True
    return bool(_LOOSE_RE.search(text)) and not _NUMBERED_RE.search(text)


class AikenReader:
    name = "aiken"

    def read(self, doc: CleanText, report: Report) -> PaperDraft:
        drafts: list[Draft] = []
        stem: list[tuple[int, str]] = []  # (offset, line)
        options: list[tuple[str, str, int, int]] = []  # letter, text, start, end
        pos = 0
        for line in doc.text.split("\n"):
            start, pos = pos, pos + len(line) + 1
            if not line.strip():
                if stem and not options:
                    continue  # a blank line inside a question's text
                continue
            answer = _ANSWER_RE.match(line)
            option = _OPTION_RE.match(line)
            if answer:
                if not stem or not options:
                    report.warn("unplaced", "import.aiken.lone_answer", doc.where(start),
                                line=repr(line.strip()))
                else:
                    letter = answer.group(1)
                    if letter.isascii() and letter.isalpha():
                        letter = letter.upper()  # `Answer: b` names option B
                    drafts.append(self._draft(doc, len(drafts) + 1, stem, options,
                                              letter, start + answer.start(1), report))
                stem, options = [], []
            elif option and stem:
                expected = chr(ord("A") + len(options))
                if option.group(1) != expected:
                    report.warn("unplaced", "import.aiken.option_order", doc.where(start),
                                letter=option.group(1), expected=expected)
                options.append((option.group(1), option.group(2), start + option.start(2),
                                start + option.end(2)))
            elif options:
                # Text after the options and before ANSWER: the previous question has no
                # answer line; this starts the next question.
                report.warn("no-answer", "import.aiken.no_answer", doc.where(stem[0][0]))
                stem, options = [(start, line)], []
            else:
                stem.append((start, line))
        if stem:
            report.warn("no-answer", "import.aiken.ends_inside", doc.where(stem[0][0]))
        return PaperDraft(drafts)

    def _draft(self, doc, number, stem, options, answer, answer_at, report) -> Draft:
        spans = {"stem": (stem[0][0], stem[-1][0] + len(stem[-1][1])),
                 "answer": (answer_at, answer_at + len(answer))}
        for letter, _, start, end in options:
            spans[f"options.{letter}"] = (start, end)
        return Draft(
            number=number, stem=join_lines("\n".join(text for _, text in stem)),
            where=doc.where(stem[0][0]),
            options=tuple((letter, text) for letter, text, _, _ in options),
            answer=answer or None, type_hint=QuestionType.SINGLE, spans=spans,
        )

"""The reader interface: a reader turns cleaned source text into draft items that the shared
builder (build.py) turns into questions; each source format is one sibling reader module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from bot.domain.questions import QuestionType

from .clean import CleanText
from .report import Report, SectionInfo

__all__ = ["Draft", "PaperDraft", "Reader", "Span"]

Span = tuple[int, int]  # [start, end) in the cleaned text


@dataclass
class Draft:
    """One item as read from the source, before its type and answer are settled.

    `answer` is the raw answer text (None if the source gave none); `type_hint` is what the
    source declared (a section header, a GIFT question kind...), None if it must be inferred.
    `spans` locates each field ("stem", "options.B", "answer", "explanation") in the cleaned
    text so that warnings can point at the exact source position.
    """

    number: int
    stem: str
    where: str
    options: tuple[tuple[str, str], ...] = ()
    answer: str | None = None
    explanation: str = ""
    type_hint: QuestionType | None = None
    # A type the source names that no type accepts (a CSV `type` cell of 排序题 before there is
    # such a type): settle() leaves the item out rather than guess another type from its shape.
    type_word: str | None = None
    points: float = 1.0
    points_given: bool = False  # the source gave the points (else 1: one warning if none did)
    spans: dict[str, Span] = field(default_factory=dict)
    # The stem with the option text still in it: what the question says if it turns out to
    # be a type without options (`简述A.和B.的区别` is not a choice item).
    whole_stem: str = ""
    tags: tuple[str, ...] = ()
    qid: str | None = None  # an id the source gives (a CSV `id` column, a GIFT `::title::`)
    tolerance: float | None = None  # numeric fill answers: accepted distance from the value
    # Fill alternatives when the format lists them one by one (GIFT `=a =b`, a CSV `a|b`),
    # taken as they are instead of splitting the answer text.
    alternatives: tuple[str, ...] | None = None
    # Where the answer stands when it is not with the item (an answer key at the end), so that
    # what is wrong with it is reported there.
    answer_where: str = ""
    doubt: str = ""  # why the key is doubtful (a 存疑 column, a GIFT comment): Question.doubt
    # The pictures that go with the item (a Word or PDF paper's, images.py): bytes, extension.
    pictures: list[tuple[bytes, str]] = field(default_factory=list)


@dataclass
class PaperDraft:
    """Everything a reader found: a title line if the source has one, items and sections, and
    what a studybot export recorded of the bank (its id and language) when the source says."""

    drafts: list[Draft]
    title: str = ""
    sections: list[SectionInfo] = field(default_factory=list)
    bank_id: str = ""
    language: str = ""  # a language the source declares (a deck's note, a GIFT comment)
    script: str = ""  # zh-TW / zh-CN when the source's own words say (a table's header)
    # The tags' display names a studybot export recorded (bank/importer/tag_names.py): (slug, name).
    tag_names: tuple[tuple[str, str], ...] = ()


class Reader(Protocol):
    """A source format, chosen by `name`."""

    name: str

    def read(self, doc: CleanText, report: Report) -> PaperDraft: ...

"""Question-bank domain types: questions, banks and errata, as immutable values.

A bank file (YAML, see docs/bank-format.md) is loaded by the `bank` package into these types;
the core and the adapters only ever see these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class QuestionType(StrEnum):
    SINGLE = "single"
    MULTI = "multi"
    JUDGE = "judge"
    FILL = "fill"
    SHORT = "short"
    ORDERING = "ordering"
    # What each type is (its options, its input kind, its words) lives in its module under
    # bot/domain/question_types: ask TYPES[qtype].


@dataclass(frozen=True, slots=True)
class Erratum:
    """One repair an editor made to a question copied from a damaged source."""

    field: str  # which part of the question: stem, options.B, answer, explanation, ...
    was: str  # what the source said
    now: str  # what the bank says now
    why: str


@dataclass(frozen=True, slots=True)
class KeyPointMark:
    """How a short answer shows one key point (bot/domain/key_points.py): any of `words` (a word
    "a+b" needs both a and b; none: the point's own text and content words), worth `share`
    of the item's points relative to its other key points."""

    words: tuple[str, ...] = ()
    share: float = 1.0


@dataclass(frozen=True, slots=True)
class Question:
    """One bank item.

    `answer` is uniform across types so that values stay hashable and comparable:
    single -> ("C",); multi -> ("A", "B", "D"); judge -> ("true",) or ("false",);
    fill -> accepted alternatives; short -> (reference answer,).
    """

    id: str
    number: int
    type: QuestionType
    stem: str
    answer: tuple[str, ...]
    points: float = 1.0
    options: tuple[tuple[str, str], ...] = ()  # (letter, text) in display order
    explanation: str = ""
    tags: tuple[str, ...] = ()
    key_points: tuple[str, ...] = ()
    # short only: one per key point when the bank says how each is shown (else empty)
    key_point_marks: tuple[KeyPointMark, ...] = ()
    errata: tuple[Erratum, ...] = ()
    completed_by_editor: bool = False  # truncated in the source, completed by the editors
    # fill only: a numeric answer accepts any number within this distance of an alternative
    tolerance: float | None = None
    # why the key or explanation is doubtful ("" if it is not): the learner sees it at the reveal
    doubt: str = ""
    # pictures that go with the item, shown with its stem: file names in the bank's
    # `<bank>.images/` folder (docs/bank-format.md, `images`), their bytes in Bank.images
    images: tuple[str, ...] = ()

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(letter for letter, _ in self.options)

    def option_text(self, letter: str) -> str:
        for candidate, text in self.options:
            if candidate == letter:
                return text
        raise KeyError(letter)


@dataclass(frozen=True, slots=True)
class PaperSection:
    """One section of an exam paper: `count` questions of one type, `points` each."""

    type: QuestionType
    count: int
    points: float


@dataclass(frozen=True, slots=True)
class Paper:
    """The exam a bank stands for (docs/bank-format.md, `paper:`): its sections in order, the
    time allowed and the score that passes."""

    sections: tuple[PaperSection, ...]
    minutes: float  # a fraction for a paper shorter than a minute (a test's, or a drill's)
    pass_mark: float

    @property
    def total(self) -> float:
        return sum(s.count * s.points for s in self.sections)


@dataclass(frozen=True, slots=True)
class BankImage:
    """One picture of a bank: its file name (`[A-Za-z0-9][A-Za-z0-9._-]*.png|jpg|jpeg|gif|webp`)
    and its bytes."""

    name: str
    data: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class Bank:
    id: str
    title: str
    language: str
    source: str
    questions: tuple[Question, ...] = field(default_factory=tuple)
    paper: Paper | None = None  # the exam this bank declares; None: one is made from its counts
    # The bytes of every picture its questions name (Question.images), by file name.
    images: tuple[BankImage, ...] = ()
    # A display name per tag (`tag_names:` in the file): (slug, name), in the file's order. A
    # learner sees the name (in the bank's own language, as all its text) and may type either.
    tag_names: tuple[tuple[str, str], ...] = ()

    def tag_name(self, tag: str) -> str:
        """What a learner sees for `tag`: its display name, else the slug itself."""
        return dict(self.tag_names).get(tag.lower(), tag)

    def tag_key(self, typed: str) -> str:
        """The tag a learner means by `typed`: a slug in any case, or a display name (compared
        case-insensitively; the caller folds traditional characters first). Anything else comes
        back lower-cased, so a refusal names it as typed."""
        folded = typed.strip().casefold()
        for slug, name in self.tag_names:
            if folded in (slug, name.casefold()):
                return slug
        return folded

    def image(self, name: str) -> bytes:
        """The bytes of the picture `name` (KeyError if the bank has none by that name)."""
        for image in self.images:
            if image.name == name:
                return image.data
        raise KeyError(name)

    def question(self, question_id: str) -> Question:
        for q in self.questions:
            if q.id == question_id:
                return q
        raise KeyError(question_id)

    @property
    def tags(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for q in self.questions:
            for tag in q.tags:
                seen.setdefault(tag, None)
        return tuple(seen)

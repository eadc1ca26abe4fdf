"""QuestionTypeRules: everything one question type decides, in one place. Each type's module
(bot/domain/question_types/<id>.py) subclasses it; the registry in bot.domain.question_types maps each
QuestionType to its rules, and the core and the bank consult only that registry.

The parts, in the order a question lives:
- bank: the words importers and commands accept for the type, whether it takes options, the
  keys only it may carry, its JSON Schema rule (added to the bank schema by bank/schema.py), the
  problems of an answer as written in a bank, and that answer as a Question.answer tuple and
  back as YAML;
- importing and exporting: what an importer makes of an item its source says is of this type
  (settle), and the answer as a CSV/Excel cell and as a GIFT answer body;
- rounds: whether a contest asks it by default and whether one press (a reaction) answers it;
- answering: the input kind adapters render, reading a reply into its canonical response and
  grading that response;
- showing: option buttons, whether the text layout lists the options, the label of a response
  and of the correct answer, the reference shown after answering, the catalog key the reveal
  shows the answer with, and the tallies of the reveal.

Nothing outside this package branches on a QuestionType: it asks TYPES[qtype].
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from bot.domain.key_points import Coverage
from bot.domain.kinds import InputKind, OptionCount, OptionView
from bot.domain.questions import Question, QuestionType
from bot.domain.verdicts import Verdict
from bot.locales.i18n import bank_text

__all__ = ["Example", "QuestionTypeRules", "Settled", "answer_tuple", "got_phrase", "trim_answer"]

_TRIM = " \t\u3000\n。.；;，,"


def trim_answer(text: str) -> str:
    """An answer as a source writes it, without the punctuation and brackets around it."""
    text = text.strip(_TRIM)
    while len(text) >= 2 and text[0] in "（(【[" and text[-1] in "）)】]":
        text = text[1:-1].strip(_TRIM)
    return text


@dataclass(frozen=True, slots=True)
class Example:
    """An item of a type as a bank file writes it (its keys less id, number and type), with a
    reply that is right and one that is wrong. The docs show a type's first; the tests, which
    iterate TYPES and never name a type, take every part of every type through them."""

    item: dict[str, Any]
    right: str
    wrong: str


@dataclass(frozen=True, slots=True)
class Settled:
    """What an importer makes of an item whose source says it is of a type (settle()).

    `qtype` and `answer` are the item as imported (another type when the answer says so, e.g. a
    single-choice section's item with two letters); qtype None: the answer does not fit, the
    importer judges the item by its shape, or leaves it out when `drop`. `warning` is an
    import.answers.* catalog key saying what was done, filled by `params` (the importer adds
    answer, letters and type).
    """

    qtype: QuestionType | None
    answer: tuple[str, ...] = ()
    warning: str | None = None
    drop: bool = False


def got_phrase(value: Any, quote: bool = False) -> str:
    """'got the boolean true', plus a hint to quote it where text was expected."""
    if value is None:
        return "got nothing (an empty value)"
    if isinstance(value, str):
        return f"got the string {value!r}"
    if not isinstance(value, bool | int | float):
        return "got a list" if isinstance(value, list) else "got a mapping"
    text = str(value).lower() if isinstance(value, bool) else str(value)
    kind = "boolean" if isinstance(value, bool) else "number"
    hint = f'; quote it ("{text}") if it is meant as text' if quote else ""
    return f"got the {kind} {text}{hint}"


def answer_tuple(value: Any) -> tuple[str, ...]:
    """A checked bank answer that is text or a list of text, as a tuple."""
    return tuple(value) if isinstance(value, list) else (value,)


class QuestionTypeRules(ABC):
    """The rules of one question type; subclasses set the class attributes and the abstract
    methods, and override a default where the type differs."""

    qtype: ClassVar[QuestionType]
    input_kind: ClassVar[InputKind]
    # What importers (table type column, paper section headers) and the `type` argument of
    # commands accept for this type besides its id, in simplified and traditional characters.
    words: ClassVar[tuple[str, ...]]
    takes_options: ClassVar[bool] = False
    # Whether Question.answer's letters are an order (kept as written) rather than a set (kept
    # in option order): a mock exam's shuffled options keep it so (bot/domain/option_shuffle.py).
    ordered_answer: ClassVar[bool] = False
    # Bank keys no other type may carry, with the JSON Schema of their value (self-contained:
    # no $ref, so the bank's fast path can check a value alone).
    own_keys: ClassVar[dict[str, dict[str, Any]]] = {}
    # A regular expression for this type's answer as a compact answer key writes it after the
    # items ("1.A 2.对"), or None if such keys never hold it (bank/importer/answer_key.py).
    key_pattern: ClassVar[str | None] = None
    # JSON Schema for an item of this type (the `then` of its rule in the bank schema); whether
    # it takes options is added from takes_options.
    schema: ClassVar[dict[str, Any]]
    # The sentences of answer_problems (but "<id> answer is empty"), as regular expressions with
    # the catalog key each is shown with in a chat's language (bank/check_text.py; a group
    # named `got` is a got_phrase).
    check_texts: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Items of this type, more than one where its answer takes several forms (see Example).
    examples: ClassVar[tuple[Example, ...]]


    @property
    def is_choice(self) -> bool:
        """Answered by picking (buttons or reactions), as opposed to typing text."""
        return self.input_kind in (InputKind.CHOOSE_ONE, InputKind.CHOOSE_MANY, InputKind.TRUE_FALSE)
    @property
    def name(self) -> str:
        return self.qtype.value

    # ---------------------------------------------------------------- bank

    @abstractmethod
    def answer_problems(self, answer: Any, letters: list[str] | None) -> list[str]:
        """What is wrong with `answer` as a bank writes it (None: absent), for an item whose
        option letters are `letters` (None: unknown)."""

    def bank_answer(self, answer: Any) -> tuple[str, ...]:
        """A checked bank answer as Question.answer."""
        return answer_tuple(answer)

    def yaml_answer(self, question: Question) -> Any:
        """Question.answer as a bank file writes it (bank.yaml_io): a tuple is written on one
        line ([A, B]), a list one item a line."""
        return question.answer[0] if len(question.answer) == 1 else list(question.answer)

    # ---------------------------------------------------------------- importing, exporting

    def settle(self, answer: str, options: tuple[tuple[str, str], ...]) -> Settled:
        """An item its source says is of this type, with the (non-blank, stripped) answer text
        `answer` and the options found ((letter, text); none for a type without options)."""
        return Settled(self.qtype, (answer,))

    def table_answer(self, question: Question) -> str:
        """The answer as a CSV/Excel answer cell (what the table importer reads back)."""
        return question.answer[0]

    def gift_body(self, question: Question, escape: Callable[[str], str]) -> str | None:
        """The answer as the body of a GIFT question (between its braces); `escape` escapes
        GIFT's special characters. The `type=` comment the exporter writes says the type.
        None: GIFT has no form for this type (a GIFT export of a bank with such items is
        refused, naming them, rather than writing them as something else)."""
        return " ".join(f"={escape(a)}" for a in question.answer).replace("\n", "\\n")

    # ---------------------------------------------------------------- rounds

    # A contest asks it unless told to include typed items too: answered with a press or two,
    # and graded at once.
    in_contests: ClassVar[bool] = False
    # One press answers it, so one reaction can (Discord dailies answered by reactions).
    one_press: ClassVar[bool] = False
    # Seconds one answer takes a learner, before their own answers measure it (the exam plan,
    # bot/domain/exam_plan.py, budgets a day's items by it).
    answer_seconds: ClassVar[float] = 30.0

    # ---------------------------------------------------------------- answering

    @abstractmethod
    def read(self, question: Question, raw: str) -> str:
        """raw as an answer to question, in canonical form; raises InvalidResponse."""

    def response_tokens(self, response: str) -> tuple[str, ...]:
        """The option tokens a canonical response picked, in its order (none for a typed answer):
        what a mock item's buttons mark as chosen."""
        return tuple(response.split(",")) if response and self.is_choice else ()

    def remap_letters(self, response: str, mapping: dict[str, str]) -> str:
        """A canonical response with its option letters renamed by `mapping` (a mock exam's
        shuffled options, bot/domain/option_shuffle.py); unchanged if it is not letters. By default a
        response is option letters joined by "," (one for a single choice), in option order."""
        parts = response.split(",")
        if not all(p in mapping for p in parts):
            return response
        return ",".join(sorted(mapping[p] for p in parts))

    @abstractmethod
    def verdict(self, question: Question, response: str, raw: str, *, partial_credit: bool) -> Verdict:
        """The verdict on `response` (read from `raw`)."""

    async def prepare(self, question: Question) -> None:
        """Make ready, off the event loop, what grading `question` needs (a segmenter's
        dictionary); called before grading from async code."""
        return None

    def grades_by_key_points(self, question: Question) -> bool:
        """Whether an answer awaiting its self-grade is given a provisional score by the item's
        key points (its Grade's fraction), which a mock and /ready count until the self-grade."""
        return False

    def coverage(self, question: Question, response: str) -> Coverage | None:
        """Which of the item's key points `response` covers (None: not graded by them)."""
        return None

    # ---------------------------------------------------------------- showing

    # The catalog key the reveal shows the correct answer with (a self-graded type's answer
    # is a reference, not "the" answer).
    reveal_key: ClassVar[str] = "reveal.correct"

    @property
    def lists_options(self) -> bool:
        """Whether the text layout lists the options under the stem (a true/false item's two
        buttons say it all)."""
        return self.takes_options

    def option_views(self, question: Question, language: str) -> tuple[OptionView, ...]:
        return tuple(
            OptionView(letter, letter, bank_text(language, text)) for letter, text in question.options
        )

    def correct_tokens(self, question: Question) -> tuple[str, ...]:
        """The option tokens that are right (none for a typed type)."""
        return ()

    def response_label(self, question: Question, response: str, language: str) -> str:
        return bank_text(language, response)

    def correct_label(self, question: Question, language: str) -> str:
        return bank_text(language, question.answer[0])

    def reference(self, question: Question, language: str) -> str:
        """The reference answer a learner grades themselves against ("" if none)."""
        return ""

    def tally(
        self, question: Question, answers: Iterable[tuple[str, str]], language: str
    ) -> tuple[OptionCount, ...]:
        """The counts shown at the reveal for (response, verdict) pairs: how many were right."""
        right = sum(1 for _, verdict in answers if verdict == Verdict.CORRECT)
        return (OptionCount("correct", "✅", right, True),)

    def _option_tally(
        self, question: Question, tokens: Iterable[str], language: str
    ) -> tuple[OptionCount, ...]:
        """Per-option counts of the chosen tokens, the right options marked."""
        counts = Counter(tokens)
        correct = set(self.correct_tokens(question))
        return tuple(
            OptionCount(o.token, o.label, counts.get(o.token, 0), o.token in correct)
            for o in self.option_views(question, language)
        )

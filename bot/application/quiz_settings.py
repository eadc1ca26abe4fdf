"""The quiz core's settings (defaults for new chats, limits) and the refusal it raises."""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.kinds import AnswerPolicy, RevealPolicy
from bot.domain.questions import Bank, QuestionType
from bot.domain.records import ChatSettings
from bot.locales.i18n import t
from bot.views.bidi import isolate


def no_questions(*filters: object) -> QuizError:
    """The refusal for an empty selection, naming the tag/type filters that emptied it (a
    question type by its name in the chat's language)."""
    named = tuple(f for f in filters if f)
    return NoQuestions(named) if named else QuizError("error.no_questions")


def no_number(bank: Bank, number: int | None) -> QuizError:
    """The refusal for a question number the bank does not have, naming the bank's own range
    (第 0 题不在题库里：本题库 1–62 题)."""
    numbers = [q.number for q in bank.questions] or [0]
    return QuizError("practice.no_number", number=number, first=min(numbers), last=max(numbers))


class QuizError(Exception):
    """A request the core refuses; `key`/`params` name the catalog sentence to show."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def render(self, language: str) -> str:
        # The params often echo what the user typed (a tag, a time zone): isolated, see bot.views.bidi.
        # A param that depends on the language (a question type's name) is a function of it.
        params = {k: v(language) if callable(v) else v for k, v in self.params.items()}
        params = {k: isolate(v) if isinstance(v, str) else v for k, v in params.items()}
        return t(language, self.key, **params)


class NoQuestions(QuizError):
    """No question matches these filters: tags as typed, question types in the chat's language."""

    def __init__(self, filters: tuple[object, ...]) -> None:
        super().__init__("error.no_questions_for", filter=" / ".join(str(f) for f in filters))
        self.filters = filters

    def render(self, language: str) -> str:
        named = " / ".join(
            t(language, f"type.{f}") if isinstance(f, QuestionType) else isolate(str(f)) for f in self.filters
        )
        return t(language, self.key, filter=named)


@dataclass(frozen=True, slots=True)
class CoreSettings:
    default_bank: str
    timezone: str = "Asia/Shanghai"
    language: str = "zh-CN"
    reveal_policy: RevealPolicy = RevealPolicy.PRACTICE
    answer_policy: AnswerPolicy = AnswerPolicy.FIRST
    partial_credit: bool = False
    practice_minutes: float = 60.0
    reveal_top_n: int = 10
    ask_limit: int = 6  # /quiz per user per ask_window seconds, in groups
    private_ask_limit: int = 60  # the same in private chats: one person studying alone is faster
    ask_window: float = 60.0
    max_answer_chars: int = 2000  # a longer answer is refused, not stored

    def chat_defaults(self) -> ChatSettings:
        return ChatSettings(
            bank_id=self.default_bank,
            timezone=self.timezone,
            language=self.language,
            reveal_policy=self.reveal_policy,
            answer_policy=self.answer_policy,
            partial_credit=self.partial_credit,
        )

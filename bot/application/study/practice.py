"""Practice modes of `/quiz` and `/memorise`: a question by its number (`/quiz 52`, which moves
the sequential place), the bank in order from where the person stopped (顺序练习, `/quiz next`,
the position kept per person and bank), several tags at once (`/quiz ml cv`, `tag=ml,cv`),
`/quiz stop` (the run's summary), and memorise mode (背题模式: the question with its answer and
explanation at once, nothing recorded).

Asked questions are a practice run's (bot/application/study/drill.py) and go through `Quiz.ask` (a practice
round in the caller's chat, its rate limit and its grading), so every platform shows them as
any /quiz question.
"""

from __future__ import annotations

import re

from bot.application.commands.parsing import Parsed
from bot.application.presenting import correct_label, option_views
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError, no_number
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.drill import RANDOM, SEQUENTIAL, Drill, Spec
from bot.domain.doubts import explanation_text
from bot.domain.next_question import typed_tag
from bot.domain.questions import Bank, Question, QuestionType
from bot.locales.i18n import bank_text, t
from bot.ports.study_storage import StudyStore

_TAG_SPLIT = re.compile(r"[\s,，、]+")


def tags_of(value: object, bank: Bank) -> tuple[str, ...]:
    """The tags a `tag` argument names: words split at spaces or commas, each a slug or a display
    name of the bank's (`tag_names:`; traditional characters read as simplified), once each."""
    words = (typed_tag(bank, w) for w in _TAG_SPLIT.split(str(value or "")) if w.strip())
    return tuple(dict.fromkeys(w for w in words if w))


class Practice:
    def __init__(self, quiz: Quiz, store: StudyStore, drill: Drill) -> None:
        self.quiz = quiz
        self.store = store
        self.drill = drill

    async def quiz_command(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/quiz`: a practice run's question (bot/application/study/drill.py) — random, sequential (`next`,
        or a number, which moves the place), of a type or tags — or `stop`, or memorise mode."""
        args = parsed.args
        mode = args.get("practice")
        if mode == "memorise":
            return await self.memorise(parsed, caller, language)
        if mode == "stop":
            return await self.drill.stop(caller.chat, caller.user, language)
        qtype = _qtype(args.get("type"))
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        tags = tags_of(args.get("tag"), bank)
        number = args.get("number")
        if isinstance(number, int):
            return await self.drill.start(caller.chat, caller.user, Spec(SEQUENTIAL), language, number=number)
        if len(tags) > 1:  # several tags: one of them must exist at least
            _tagged(bank, tags)
        spec = Spec(SEQUENTIAL if mode == "next" else RANDOM, qtype, tags)
        return await self.drill.start(caller.chat, caller.user, spec, language)

    async def memorise(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """A question with its answer and explanation at once; no round, nothing recorded."""
        args = parsed.args
        chat = await self.quiz.chat(caller.chat)
        bank = self.quiz.bank_for(chat)
        number = args.get("number")
        if isinstance(number, int):
            question = _numbered(bank, number)
        else:
            tags = tags_of(args.get("tag"), bank)
            question = await self.quiz.pick_question(
                chat,
                tag=tags[0] if len(tags) == 1 else None,
                qtype=_qtype(args.get("type")),
                only=_tagged(bank, tags) if len(tags) > 1 else None,
            )
        return Reply(TextView(memorise_text(question, language)), language)


def memorise_text(question: Question, language: str) -> str:
    lines = [
        t(language, "memorise.header"),
        "",
        f"{question.number}. [{t(language, f'type.{question.type}')}] {bank_text(language, question.stem)}",
    ]
    lines += [f"{o.label}. {o.text}" for o in option_views(question, language) if o.text]
    lines += ["", t(language, "memorise.answer", answer=correct_label(question, language))]
    if question.explanation or question.doubt:
        explanation = explanation_text(language, question)
        lines.append(t(language, "memorise.explanation", explanation=explanation))
    lines += ["", t(language, "memorise.more")]  # no button brings the next one: say how
    return "\n".join(lines)


def _qtype(value: object) -> QuestionType | None:
    return value if isinstance(value, QuestionType) else None


def _numbered(bank: Bank, number: int) -> Question:
    found = next((q for q in bank.questions if q.number == number), None)
    if found is None:
        raise no_number(bank, number)
    return found


def _tagged(bank: Bank, tags: tuple[str, ...]) -> frozenset[str]:
    """Questions carrying any of `tags`; none is an error naming them."""
    wanted = set(tags)
    ids = frozenset(q.id for q in bank.questions if wanted & {x.lower() for x in q.tags})
    if not ids:
        raise QuizError("practice.no_tags", tags=", ".join(tags))
    return ids

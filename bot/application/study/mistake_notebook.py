"""The mistake notebook (错题本): /mistakes by tag and cause, practice and export, and a mistake's cause
from the reveal's buttons or /mistakes cause."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict

from bot.application.answering import TextReply
from bot.application.commands.parsing import Parsed
from bot.application.presenting import correct_label, option_views, tag_label, tag_list
from bot.application.quiz_settings import QuizError
from bot.application.replies import FileView, Reply, TextView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.application.study.drill import MISTAKES, Spec
from bot.application.study.practice import tags_of
from bot.application.study.study_context import StudyContext
from bot.domain.kinds import ChatRef, UserRef
from bot.domain.mastery import CAUSES
from bot.domain.next_question import typed_tag
from bot.domain.questions import Bank, Question, QuestionType
from bot.locales.i18n import bank_text, t
from bot.views.study import (
    MistakesView,
    NotebookRow,
)

_NO_TAG = "—"  # the notebook's heading for items without a tag
Entry = tuple[Question, int]  # a notebook entry: the question and how many times it was missed


class MistakeNotebook(StudyContext):
    async def cause_click(self, chat: ChatRef, user: UserRef, question_id: str, cause: str) -> TextReply:
        """A cause button under a wrong answer's reveal: the clicker's cause of that mistake."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            reply = await self._set_cause(Caller(chat, user), question_id, cause, language)
        except QuizError as exc:
            return TextReply(exc.render(language), language)
        return TextReply(render_reply(reply), reply.language)

    async def _set_cause(self, caller: Caller, question_id: str, cause: str, language: str) -> Reply:
        if cause not in CAUSES:
            raise QuizError("cause.unknown")
        user_id, bank = await self._person(caller)
        question = bank.question(question_id)
        key = (user_id, bank.id, question_id)
        entry = (await self.store.mistakes([key])).get(key)
        if entry is None or not entry.active:
            raise QuizError("cause.not_in_notebook", number=question.number)
        await self.store.set_mistake_cause(user_id, bank.id, question_id, cause, self.clock.now())
        said = t(language, "cause.set", number=question.number, cause=t(language, f"cause.{cause}"))
        return Reply(TextView(said), language)

    async def mistakes_cause(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """`/mistakes cause [N] CAUSE`: the same as the reveal's cause buttons, typed (the console
        has no buttons): question N, else the question last asked in this chat."""
        number = self._number(parsed)
        if number is not None:
            question_id = (await self._by_number(caller, number)).id
        else:
            chat = await self.quiz.chat(caller.chat)
            last = await self.quiz.store.last_round(chat.id)
            if last is None or last.bank_id != self.quiz.bank_for(chat).id:
                raise QuizError("cause.no_question")
            question_id = last.question_id
        return await self._set_cause(caller, question_id, str(parsed.args.get("cause")), language)

    async def _notebook(self, caller: Caller, tag: str | None) -> tuple[int, Bank, list[Entry]]:
        """The caller's user id, their chat's bank and its notebook entries (question, misses)."""
        user_id, bank = await self._person(caller)
        by_id = {q.id: q for q in bank.questions}
        entries = [
            (by_id[m.question_id], m.misses)
            for m in await self.store.notebook(user_id, bank.id)
            if m.question_id in by_id
        ]
        if tag:
            key = typed_tag(bank, tag)  # a slug or the tag's display name
            entries = [(q, n) for q, n in entries if key in q.tags]
        return user_id, bank, entries

    async def mistakes(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """The notebook by tag and type, each entry with its cause; `/mistakes 粗心` (a cause's
        name in any language) lists the entries of that cause, `/mistakes ml` those of a tag."""
        tag = parsed.args.get("tag")
        cause_filter = _cause_named(str(tag)) if tag else None
        by_tag = str(tag) if tag and cause_filter is None else None
        user_id, bank, entries = await self._notebook(caller, by_tag)
        causes = await self.store.mistake_causes(user_id, bank.id)
        if cause_filter is not None:
            entries = [(q, n) for q, n in entries if causes.get(q.id, "") == cause_filter]
        groups: dict[tuple[str, QuestionType], list[NotebookRow]] = defaultdict(list)
        for question, misses in entries:
            # Under the tag's display name, as the chat reads bank text.
            key = (tag_label(language, bank, question.tags[0]) if question.tags else _NO_TAG, question.type)
            stem, cause = bank_text(language, question.stem), causes.get(question.id, "")
            groups[key].append(NotebookRow(question.number, question.type, stem, misses, cause, question.id))
        ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], list(QuestionType).index(kv[0][1])))
        tally = Counter(causes.get(q.id, "") for q, _ in entries)
        by_cause = tuple((c, tally[c]) for c in (*CAUSES, "") if tally[c])
        view = MistakesView(
            language,
            tuple((tag_, qtype, tuple(sorted(rows, key=_by_cause))) for (tag_, qtype), rows in ordered),
            len(entries),
            self.feed.graduate_after,
            by_cause,
        )
        return Reply(view, language)

    async def mistakes_practice(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        spec = Spec(MISTAKES, tags=tags_of(parsed.args.get("tag"), bank))
        return await self.drill.start(caller.chat, self._user(caller), spec, language)

    async def mistakes_export(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """The notebook as two files, each entry whole (stem, options, answer, explanation, cause):
        a CSV to sort in a spreadsheet and a Markdown page to print or revise from away from the
        chat; both read without the bank beside them."""
        user_id, bank, entries = await self._notebook(caller, None)
        if not entries:
            raise QuizError("mistakes.empty")
        causes = await self.store.mistake_causes(user_id, bank.id)
        columns = ("number", "type", "tags", "misses", "cause", "stem", "options", "answer", "explanation")
        header = dict(zip(columns, (t(language, f"export.{c}") for c in columns), strict=True))
        options = [_option_lines(q, language) for q, _ in entries]
        rows = [
            {
                "number": str(q.number),
                "type": t(language, f"type.{q.type}"),
                "tags": tag_list(language, bank, q.tags),
                "misses": str(n),
                "cause": t(language, f"cause.{causes[q.id]}") if causes.get(q.id) in CAUSES else "",
                "stem": bank_text(language, q.stem),
                "options": "\n".join(listed),  # one cell, a line each
                "answer": correct_label(q, language),
                "explanation": bank_text(language, q.explanation),
            }
            for (q, n), listed in zip(entries, options, strict=True)
        ]
        out = io.StringIO()
        csv.writer(out).writerows([list(header.values()), *(list(row.values()) for row in rows)])
        lines = [f"# {t(language, 'mistakes.title')} — {bank_text(language, bank.title)}", ""]
        for row, listed in zip(rows, options, strict=True):
            lines += [f"## {row['number']}. {row['stem']}", ""]
            if listed:
                # An option's own line breaks stay inside its bullet (indented continuation lines).
                lines += [*("- " + option.replace("\n", "\n  ") for option in listed), ""]
            lines += [  # type, misses and answer are never empty; cause and explanation may be
                "- " + t(language, "export.field", label=header[c], value=row[c])
                for c in ("type", "misses", "answer", "cause", "explanation")
                if row[c]
            ]
            lines.append("")
        files = (
            FileView("mistakes.csv", ("\ufeff" + out.getvalue()).encode("utf-8")),  # BOM: Excel reads UTF-8
            FileView("mistakes.md", "\n".join(lines).encode("utf-8")),
        )
        return Reply(TextView(t(language, "mistakes.exported", count=len(rows))), language, files=files)


def _by_cause(row: NotebookRow) -> tuple[int, int]:
    """Within a group: tagged causes in their order, untagged last; then as listed."""
    return (CAUSES.index(row.cause) if row.cause in CAUSES else len(CAUSES), 0)


def _cause_named(word: str) -> str | None:
    """The cause a word names (its key, or its name in any catalog language), else None."""
    from bot.locales.i18n import LANGUAGES

    folded = word.strip().casefold()
    for cause in CAUSES:
        if folded == cause or any(folded == t(lang, f"cause.{cause}").casefold() for lang in LANGUAGES):
            return cause
    return None


def _option_lines(question: Question, language: str) -> list[str]:
    """ "A. text" for each option that has a text: a judge item's 对/错 have none and are not listed."""
    return [f"{view.label}. {view.text}" for view in option_views(question, language) if view.text]

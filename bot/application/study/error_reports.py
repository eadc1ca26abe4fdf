"""Error reports (纠错): /report from a learner, /reports list|resolve|dismiss for whoever looks after
the bank, and the notices that tell each side."""

from __future__ import annotations

import dataclasses
import hashlib

from bot.application.commands.parsing import Parsed
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.study_context import StudyContext
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.domain.questions import Bank, Question
from bot.domain.records import Chat
from bot.domain.study_records import Report
from bot.locales.i18n import bank_text, t
from bot.views.quiz import notice
from bot.views.study import (
    ReportRow,
    ReportsView,
)

REPORT_LIMIT = 500  # characters of a report's text, and of the note that closes it


class ErrorReports(StudyContext):
    async def report(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """File a report on question N (`/report N reason`: N as the learner sees it, the mock's
        item number during a mock in this chat), else on the question last shown; its owners
        (bot/application/study/bank_owners.py) are told in private."""
        text = str(parsed.args.get("text") or "").strip()
        if not text:
            raise QuizError("report.empty")
        if len(text) > REPORT_LIMIT:
            raise QuizError("report.too_long", limit=REPORT_LIMIT, length=len(text))
        user = self._user(caller)
        user_id = await self.quiz.user_id(user)
        chat = await self.quiz.chat(caller.chat)
        given = self._number(parsed)
        target = await self._reported(user_id, chat, given)
        if target is None or target[0] not in self.quiz.banks:
            raise QuizError("report.no_question")
        bank = self.quiz.banks[target[0]]
        version = self._versions.setdefault(bank.id, bank_version(bank))
        item = bank.question(target[1])
        report_id = await self.reports.add_report(
            Report(0, user_id, chat.id, bank.id, version, target[1], text, self.clock.now(),
                   question_hash=question_hash(item), message_ref=caller.message_ref)
        )  # fmt: skip
        await self._tell_owners(bank, item.number, report_id, user, chat, text)
        # The number as the reporter gave it (a mock's item number), else the bank's.
        shown = given if given is not None else item.number
        return Reply(TextView(t(language, "report.thanks", id=report_id, number=shown)), language)

    async def _reported(self, user_id: int, chat: Chat, number: int | None) -> tuple[str, str] | None:
        """(bank id, question id) a report is about: item `number` when given (refused when there
        is none), else the open mock's current item or the chat's last question."""
        mock = await self.mocks.store.open_mock(user_id)
        if number is not None:
            if mock is not None and mock.chat_id == chat.id:  # the numbers the mock shows
                if not 1 <= number <= len(mock.items):
                    raise QuizError("report.no_such_number", number=number, first=1, last=len(mock.items))
                return mock.bank_id, mock.items[number - 1].question_id
            bank = self.quiz.bank_for(chat)
            found = next((q for q in bank.questions if q.number == number), None)
            if found is None:
                numbers = [q.number for q in bank.questions] or [0]
                raise QuizError("report.no_such_number", number=number, first=min(numbers), last=max(numbers))
            return bank.id, found.id
        if mock is not None:
            return mock.bank_id, mock.items[mock.position].question_id
        last = await self.quiz.store.last_round(chat.id)
        return (last.bank_id, last.question_id) if last is not None else None

    async def _tell_owners(
        self, bank: Bank, number: int, report_id: int, reporter: UserRef, chat: Chat, text: str
    ) -> None:
        """A private notice of a new report to each owner of its bank (but the reporter), in
        their private chat on their platform, through the outbox."""
        if self.owners is None:
            return
        for person in self.owners.notified(bank.id):
            if (person.platform, person.user_key) == (str(reporter.platform), reporter.user_key):
                continue
            owner_chat = await self.quiz.chat(self._private_chat(person.platform, person.user_key))
            lang = owner_chat.settings.language
            where = chat.ref.title if chat.ref.kind is not ChatKind.PRIVATE and chat.ref.title else None
            await self.outbox.post_notice(
                owner_chat,
                notice(
                    "report.owner_notice" if where else "report.owner_notice_private", lang,
                    id=report_id, number=number, bank=bank_text(lang, bank.title),
                    reporter=reporter.display_name, chat=where or "", text=text,
                ),
            )  # fmt: skip

    def _private_chat(self, platform: str, user_key: str) -> ChatRef:
        """A person's private chat with the bot, as their platform's adapter names it (Telegram:
        the person's id; Discord: a DM it opens when it first posts there)."""
        port = self.outbox.ports.get(platform)
        private_key = getattr(port, "private_chat_key", None)  # optional on a ChatPort
        key = private_key(user_key) if callable(private_key) else user_key
        return ChatRef(Platform(platform), str(key), ChatKind.PRIVATE)

    async def _scope(self, caller: Caller) -> tuple[int | None, tuple[str, str] | None, list[str]]:
        """Which reports an admin looks after: in a group, those made there (on a platform with
        servers, in any channel of the server); and those on the banks they own (from any chat).
        In a private chat only the latter: a person is their own chat's admin, not a bank's."""
        chat = await self.quiz.chat(caller.chat)
        banks = self.owners.banks_of(caller) if self.owners is not None else []
        if caller.private:
            return None, None, banks
        guild = caller.chat.guild_key
        return chat.id, (str(caller.chat.platform), guild) if guild is not None else None, banks

    async def reports_list(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        rows = []
        chat_id, guild, banks = await self._scope(caller)
        found = (
            await self.reports.open_reports(chat_id=chat_id, guild=guild, of_banks=banks)
            if chat_id is not None or banks
            else []
        )
        for report in found:
            bank = self.quiz.banks.get(report.bank_id)
            number = next((q.number for q in bank.questions if q.id == report.question_id), 0) if bank else 0
            rows.append(
                ReportRow(
                    report.id,
                    number,
                    report.question_id,
                    report.reporter,
                    report.text,
                    report.created_at.date().isoformat(),
                )
            )
        return Reply(ReportsView(language, tuple(rows)), language)

    async def reports_resolve(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._close_report(parsed, caller, language, "resolved")

    async def reports_dismiss(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self._close_report(parsed, caller, language, "dismissed")

    async def _close_report(self, parsed: Parsed, caller: Caller, language: str, state: str) -> Reply:
        note = str(parsed.args.get("note") or "")
        return await self.close_report(caller, int(str(parsed.args["id"])), state, note, language)

    async def close_report(
        self, caller: Caller, report_id: int, state: str, note: str, language: str
    ) -> Reply:
        """Resolve or dismiss (`state`) an open report the caller looks after, with a note; the
        reporter is told where they reported. `reports.not_open` for one they do not look after
        (or that is not open): `/reports resolve|dismiss` and the web app's admin page."""
        note = note.strip()[:REPORT_LIMIT]
        report = await self.reports.get_report(report_id)
        chat = await self.quiz.store.get_chat(report.chat_id) if report is not None else None
        chat_id, guild, banks = await self._scope(caller)
        in_scope = report is not None and (report.bank_id in banks or (chat is not None and (
            chat.id == chat_id or (guild is not None and chat.ref.guild_key == guild[1]
                                   and str(chat.ref.platform) == guild[0])
        )))  # fmt: skip
        if (
            report is None
            or not in_scope
            or not await self.reports.close_report(report_id, state, note, self.clock.now())
        ):
            raise QuizError("reports.not_open", id=report_id)
        # The reporter hears back where they reported (a chat the bot can always post to), named,
        # in answer to their report where the platform can answer a message.
        if chat is not None:
            bank = self.quiz.banks.get(report.bank_id)
            number = next((q.number for q in bank.questions if q.id == report.question_id), 0) if bank else 0
            told = notice(
                f"report.{state}_named", chat.settings.language, id=report_id, number=number,
                note=note or "—", name=report.reporter or "—",
            )  # fmt: skip
            await self.outbox.post_notice(chat, dataclasses.replace(told, reply_to=report.message_ref))
        return Reply(TextView(t(language, f"reports.{state}", id=report_id)), language)


def bank_version(bank: Bank) -> str:
    """A content hash of the bank's questions: which text a report was made against."""
    digest = hashlib.sha256(repr((bank.id, bank.questions)).encode())
    return digest.hexdigest()[:12]


def question_hash(question: Question) -> str:
    """A content hash of one item: whether the text a report was made against has changed since."""
    return hashlib.sha256(repr(question).encode()).hexdigest()[:12]

"""The /mock commands and the mock's buttons, each handed to the mock exam itself
(bot/application/study/mock_exam.py)."""

from __future__ import annotations

from bot.application.clicks import MockClick
from bot.application.commands.parsing import Parsed
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.application.study.study_context import StudyContext
from bot.domain.kinds import ChatRef, UserRef
from bot.locales.i18n import t


class MockExamCommands(StudyContext):
    async def mock_start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank = parsed.args.get("bank")
        view = await self.mocks.start(
            caller.chat, self._user(caller), str(bank) if bank else None, language,
            ordered=parsed.args.get("order") == "ordered",
        )  # fmt: skip
        return Reply(view, language)

    async def mock_go(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.show(self._user(caller), self._number(parsed), language), language)

    async def mock_answer(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        response = parsed.args.get("response")
        if response is None:  # "/mock 6": go to item 6
            return await self.mock_go(parsed, caller, language)
        view = await self.mocks.answer(self._user(caller), self._number(parsed), str(response), language)
        return Reply(view, language)

    async def mock_flag(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.flag(self._user(caller), self._number(parsed), language), language)

    async def mock_sheet(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.sheet(self._user(caller), language), language)

    async def mock_submit(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        confirmed = parsed.args.get("confirm") == "confirm"
        view = await self.mocks.submit(self._user(caller), language, confirmed=confirmed)
        if view is None:  # nothing answered: no result
            return Reply(TextView(t(language, "mock.empty_hand_in")), language)
        return Reply(view, language)

    async def mock_quit(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        await self.mocks.quit(self._user(caller))
        return Reply(TextView(t(language, "mock.quit")), language)

    async def mock_grade(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        number = self._number(parsed) or 0
        view = await self.mocks.self_grade(self._user(caller), number, str(parsed.args["level"]), language)
        return Reply(view, language)

    async def mock_report(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.last_report(self._user(caller), language), language)

    async def mock_review(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.mocks.review(self._user(caller), self._number(parsed), language), language)

    async def mock_click(self, chat: ChatRef, user: UserRef, click: MockClick) -> Reply:
        """A mock button (bot/application/clicks.py), in the chat's language; a refused click is a
        sentence and changes nothing."""
        language = (await self.quiz.chat(chat)).settings.language
        try:
            view = await self.mocks.click(chat, user, click, language)
        except QuizError as exc:
            return Reply(TextView(exc.render(language)), language)
        if view is None:
            return Reply(TextView(t(language, "mock.button_refused")), language)
        return Reply(view, language)

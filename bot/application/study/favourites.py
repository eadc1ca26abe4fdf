"""Favourites (收藏): the ☆ on every question, /favorites list|add|remove|practice."""

from __future__ import annotations

from bot.application.answering import TextReply
from bot.application.commands.parsing import Parsed
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.application.study.drill import FAVOURITES, Spec
from bot.application.study.study_context import StudyContext
from bot.domain.kinds import ChatRef, UserRef
from bot.locales.i18n import bank_text, t
from bot.views.study import (
    FavouritesView,
)


class Favourites(StudyContext):
    async def favourite_click(
        self, chat: ChatRef, user: UserRef, question_id: str, on: bool = True
    ) -> TextReply:
        """The ☆ under a question or reveal: star that question for the clicker (the web app's
        ★ takes the star off again: `on` False). A question not in the chat's bank (it changed
        bank since) is refused with the catalog's sentence, `closed`."""
        try:
            reply = await self.favourite(Caller(chat, user), question_id, on)
        except QuizError as exc:
            language = (await self.quiz.chat(chat)).settings.language
            return TextReply(exc.render(language), language, closed=True)
        return TextReply(render_reply(reply), reply.language)

    async def starred(self, chat: ChatRef, user: UserRef) -> frozenset[str]:
        """The questions of the chat's bank the person has starred (the web app draws ☆ or ★)."""
        user_id, bank = await self._person(Caller(chat, user))
        return frozenset(await self.store.favourites(user_id, bank.id))

    async def favourite(self, caller: Caller, question_id: str, on: bool) -> Reply:
        """Star or unstar a question of the chat's bank (the ☆ button on questions and reveals)."""
        user_id, bank = await self._person(caller)
        language = (await self.quiz.chat(caller.chat)).settings.language
        try:
            question = bank.question(question_id)
        except KeyError:
            raise QuizError("favorites.unknown", number=question_id) from None
        await self.store.set_favourite(user_id, bank.id, question.id, on, self.clock.now())
        key = "favorites.added" if on else "favorites.removed"
        return Reply(TextView(t(language, key, number=question.number)), language)

    async def favorites_add(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        question = await self._by_number(caller, self._number(parsed))
        return await self.favourite(caller, question.id, True)

    async def favorites_remove(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        question = await self._by_number(caller, self._number(parsed))
        return await self.favourite(caller, question.id, False)

    async def favorites(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        user_id, bank = await self._person(caller)
        by_id = {q.id: q for q in bank.questions}
        ids = tuple(i for i in await self.store.favourites(user_id, bank.id) if i in by_id)
        rows = tuple((by_id[i].number, by_id[i].type, bank_text(language, by_id[i].stem)) for i in ids)
        return Reply(FavouritesView(language, rows, ids), language)

    async def favorites_practice(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return await self.drill.start(caller.chat, self._user(caller), Spec(FAVOURITES), language)

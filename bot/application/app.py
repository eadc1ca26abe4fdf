"""The application layer: runs a catalog command for a caller and returns what to show.

Permission and scope are checked here, once, from the catalog entry; refusals come back as
sentences in the chat's language. Chat adapters parse only their platform (a text line through
`bot.application.commands.parsing`, Discord's typed options straight into `Parsed`), call `run`, and render
the reply by the kind of its view.

Each catalog entry names its use case by an enum member (bot/application/commands/catalog.py); the
application layer, the study tools and bank uploads each map every member of their enum to a
handler in one `match` that mypy checks for exhaustiveness, and `Application` resolves the
handler of every catalog entry when it is built: an entry nothing carries out stops start-up
(`NoHandler`), it never answers "not available" at run time.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Never, NoReturn, Protocol, overload

from bot.application.answering import Answering, AnswerReply, TextReply
from bot.application.attachments import Attachment, OpenFile, attach
from bot.application.clicks import Click, MockClick, WeakClick
from bot.application.commands.catalog import (
    CATALOG,
    AppUseCase,
    Command,
    Permission,
    Scope,
    StudyUseCase,
    UploadUseCase,
    UseCase,
)
from bot.application.commands.help import (
    HelpRow as HelpRow,  # re-exported: adapters import the views from here
)
from bot.application.commands.help import HelpView as HelpView
from bot.application.commands.help import command_help, full_help
from bot.application.commands.parsing import Parsed, parse
from bot.application.contests import Contests
from bot.application.daily import Dailies
from bot.application.live_counts import LiveCounts, ShowCount
from bot.application.pictures import question_pictures
from bot.application.posted_rounds import PostedRounds
from bot.application.presenting import tag_list
from bot.application.quiz import Quiz
from bot.application.quiz_settings import QuizError
from bot.application.replies import DailyReply, FileView, Reply, TextView, WelcomeView
from bot.application.requests import Ask, Caller, ShowLeaderboard, ShowStats
from bot.application.store_faults import (
    log_failure as log_failure,  # re-exported: adapters log faults with it
)
from bot.application.web_access import (
    WebAccess as WebAccess,  # re-exported: the web adapter signs people in with it
)
from bot.application.web_access import csrf_token as csrf_token
from bot.domain.kinds import AnswerMode, ChatRef, RoundKind, UserRef
from bot.domain.questions import Bank, QuestionType
from bot.domain.windows import Window
from bot.locales.i18n import bank_text, t
from bot.ports.storage import StoreFull, StoreUnavailable
from bot.ports.web_storage import WebGrant as WebGrant
from bot.views.quiz import QuestionView

# The mock exam's views, for the chat adapters that add their buttons (re-exported: adapters see
# the application layer only).
from bot.views.study import MockConfirmView as MockConfirmView
from bot.views.study import MockQuestionView as MockQuestionView
from bot.views.study import MockReportView as MockReportView
from bot.views.study import MockReviewView as MockReviewView
from bot.views.study import MockSheetView as MockSheetView
from bot.views.study import ProgressView as ProgressView
from bot.views.study import StudyView as StudyView
from bot.views.study import WeakView as WeakView

log = logging.getLogger("studybot.application")


# What carries out one catalog entry: its parsed arguments, who runs it and the reply language.
Handler = Callable[[Parsed, Caller, str], Awaitable[Reply]]


class NoHandler(LookupError):
    """A catalog entry whose use case nothing carries out: a bug of this build, refused when the
    application is built (studybot/runner.py says so in one line)."""

    def __init__(self, command: str) -> None:
        super().__init__(f"/{command}: no handler for its use case")
        self.command = command


def no_handler(use_case: Never) -> NoReturn:
    """The last case of a use-case `match`: mypy refuses the call while any member of the enum
    has no case of its own; at run time (a key of no known enum) it raises NoHandler."""
    raise NoHandler(repr(use_case))


class StudyTools(Protocol):
    """What the study tools (bot/application/study/use_cases.StudyUseCases) offer the application layer."""

    def handler(self, use_case: StudyUseCase, /) -> Handler: ...
    async def typed_answer(self, chat: ChatRef, user: UserRef, text: str) -> TextReply | None: ...
    async def favourite_click(
        self, chat: ChatRef, user: UserRef, question_id: str, on: bool = True
    ) -> TextReply: ...
    async def starred(self, chat: ChatRef, user: UserRef) -> frozenset[str]: ...
    async def next_question(self, chat: ChatRef, user: UserRef, after: int | None = None) -> Reply: ...
    async def pending_self_grade(self, chat: ChatRef, user: UserRef) -> int | None: ...
    async def mock_click(self, chat: ChatRef, user: UserRef, click: MockClick) -> Reply: ...
    async def weak_click(self, chat: ChatRef, user: UserRef) -> Reply: ...
    async def cause_click(self, chat: ChatRef, user: UserRef, question_id: str, cause: str) -> TextReply: ...


class UploadTools(Protocol):
    """What bank uploads (bot/application/bank_uploads.BankUploads) offer the application layer."""

    def handler(self, use_case: UploadUseCase, /) -> Handler: ...
    def visible(self, chat: ChatRef) -> list[tuple[str, Bank]]: ...


class Application:
    def __init__(
        self, quiz: Quiz, dailies: Dailies, contests: Contests, study: StudyTools | None = None,
        uploads: UploadTools | None = None,
    ) -> None:  # fmt: skip
        self.quiz = quiz
        self.dailies = dailies
        self.contests = contests
        self.answering = Answering(quiz)
        self.study = study
        self.rounds = PostedRounds(quiz)
        self.uploads = uploads
        self.web: WebAccess | None = None  # the web app's sign-in, when configured (bootstrap sets it)
        if study is not None:
            self.answering.mock_typed = study.typed_answer
            self.answering.favourite = study.favourite_click
            self.answering.next_question = study.next_question
            self.answering.pending_self_grade = study.pending_self_grade
            self.answering.mistake_cause = study.cause_click
        # Every entry's handler, resolved now: a catalog entry without one stops start-up.
        self._handlers: dict[UseCase, Handler] = {}
        for entry in CATALOG:
            try:
                self._handlers[entry.use_case] = self.handler(entry.use_case)
            except NoHandler:
                raise NoHandler(entry.name) from None

    def handler(self, use_case: UseCase) -> Handler:
        """What carries out `use_case`: the study tools' or bank uploads' own when they run, else
        the application layer's (a plain form, or a sentence saying the tool is not running)."""
        if isinstance(use_case, AppUseCase):
            return self._own(use_case)
        if isinstance(use_case, StudyUseCase):
            if self.study is None:
                return self._without_study(use_case)
            return self.study.handler(use_case)
        if isinstance(use_case, UploadUseCase):
            if self.uploads is None:
                return self._without_uploads(use_case)
            return self.uploads.handler(use_case)
        no_handler(use_case)

    # ------------------------------------------------------------ the ways in: clicks, typed text

    @overload
    async def click(self, chat: ChatRef, user: UserRef, click: Click) -> AnswerReply: ...
    @overload
    async def click(self, chat: ChatRef, user: UserRef, click: MockClick | WeakClick) -> Reply: ...

    async def click(
        self, chat: ChatRef, user: UserRef, click: Click | MockClick | WeakClick
    ) -> AnswerReply | Reply:
        """Every button press (and form submit) a chat adapter receives, whatever it is under: a
        question's, a mock exam's, or /weak's. The click rule (bot/application/clicks.py) decides
        whether it may act."""
        match click:
            case MockClick():
                return await self._mock_click(chat, user, click)
            case WeakClick():
                return await self._weak_click(chat, user, click)
            case _:
                return await self.answering.click(click, user, chat)

    async def typed(
        self, chat: ChatRef, user: UserRef, text: str, *,
        round_id: int | None = None, reply_to: str | None = None,
    ) -> AnswerReply:  # fmt: skip
        """A message that is not a command: an answer (to `round_id`, to the question `reply_to`
        answers, to the person's mock here, else to the chat's open question), a self-grade word,
        or "next"."""
        return await self.answering.typed(chat, user, text, round_id=round_id, reply_to=reply_to)

    async def _mock_click(self, chat: ChatRef, user: UserRef, click: MockClick) -> Reply:
        """A button under a mock exam's item, sheet, hand-in prompt or report (the study tools'
        bot/application/study/use_cases.py carries it out; without them it is closed)."""
        if self.study is None:
            language = await self.language(chat)
            return Reply(TextView(t(language, "receipt.closed")), language)
        return await self.study.mock_click(chat, user, click)

    async def _weak_click(self, chat: ChatRef, user: UserRef, click: WeakClick) -> Reply:
        """The "practise these" button under /weak: the clicker's weak-point run here (closed
        when the message does not carry the button, or without the study tools)."""
        elsewhere = (str(click.platform), click.chat_key) != (str(chat.platform), chat.chat_key)
        if self.study is None or not click.carried or elsewhere:
            language = await self.language(chat)
            return Reply(TextView(t(language, "receipt.closed")), language)
        return await self.study.weak_click(chat, user)

    async def favourite(self, chat: ChatRef, user: UserRef, question_id: str, on: bool) -> TextReply:
        """The ☆ (or the web app's ★, `on` False) on a question shown by its bank's id rather than
        a round's (a mock's reviewed item, a notebook row): the ☆ click's use case, as the chat's
        ☆ under a question runs it (bot/application/answering.py)."""
        if self.study is None:
            language = await self.language(chat)
            return TextReply(t(language, "receipt.closed"), language, closed=True)
        return await self.study.favourite_click(chat, user, question_id, on)

    async def starred(self, chat: ChatRef, user: UserRef) -> frozenset[str]:
        """The question ids of the chat's bank the person has starred (none without the study tools)."""
        return frozenset() if self.study is None else await self.study.starred(chat, user)

    async def language(self, chat: ChatRef) -> str:
        try:
            return (await self.quiz.chat(chat)).settings.language
        except StoreUnavailable:
            return self.quiz.known_language(chat)

    def pictures(self, view: object) -> tuple[FileView, ...]:
        """The pictures a view shows with its stem (a question, a mock's item, a reviewed one),
        as image files to send with it; none for any other view."""
        if not isinstance(view, QuestionView | MockQuestionView | MockReviewView):
            return ()
        return question_pictures(self.quiz.banks, view.bank_id, view.images)

    def picture(self, chat: ChatRef, bank_id: str, name: str) -> FileView | None:
        """One picture of a bank the chat may use (the web app's <img>); None for any other: a
        chat sees no other group's uploaded bank."""
        if self.uploads is not None and all(bank.id != bank_id for _, bank in self.uploads.visible(chat)):
            return None
        found = question_pictures(self.quiz.banks, bank_id, (name,))
        return found[0] if found else None

    async def question_posted(self, round_id: int, message_ref: str) -> None:
        """A question a command asked for was posted as `message_ref` (clicks are checked against it)."""
        try:
            await self.quiz.set_message_ref(round_id, message_ref)
        except StoreUnavailable:  # the store warned; a click on it is admitted by its own control
            log.debug("round %s: message %s not recorded", round_id, message_ref)

    async def chat_moved(self, chat: ChatRef, new_chat_key: str) -> None:
        """The platform moved the chat (a Telegram group became a supergroup)."""
        await self.quiz.move_chat(chat, new_chat_key)

    async def chat_gone(self, chat: ChatRef) -> None:
        """The bot was removed or blocked: the chat's schedules pause until it talks again."""
        await self.quiz.pause_chat(chat)

    def live_counts(self, interval: float, show: ShowCount, kinds: frozenset[RoundKind]) -> LiveCounts:
        """Debounced answer counts under posted questions of `kinds` (bot/live_counts)."""
        return LiveCounts(self.quiz, interval, show, kinds)

    def command_for(self, line: str, *, bot_name: str | None = None) -> Command | None:
        """The catalog command a text line would run (so an adapter knows its permission before
        asking the platform who is an admin); None when the line runs none."""
        try:
            return parse(line, bot_name=bot_name).command
        except QuizError:
            return None

    async def run_text(
        self, line: str, caller: Caller, *, bot_name: str | None = None,
        attachment: Attachment | None = None, open_file: OpenFile | None = None,
    ) -> Reply:  # fmt: skip
        """Parse and run one text command; any refusal becomes a TextView in the chat's language.
        A file sent with it (`attachment`), or named in it and opened by `open_file` (the
        console), fills the command's FILE argument (bot/application/attachments.py)."""
        try:
            parsed = attach(parse(line, bot_name=bot_name), attachment, open_file)
        except QuizError as exc:
            language = await self.language(caller.chat)
            return Reply(TextView(exc.render(language)), language)
        return await self.run(parsed, caller)

    async def run(self, parsed: Parsed, caller: Caller) -> Reply:
        try:
            return await self._run(parsed, caller)
        except StoreUnavailable as exc:  # nothing was committed: the command may simply be sent again
            language = caller.language or self.quiz.known_language(caller.chat)
            full = isinstance(exc, StoreFull)
            key = "error.store_full_command" if full else "error.store_unavailable_command"
            return Reply(TextView(t(language, key)), language)

    async def _run(self, parsed: Parsed, caller: Caller) -> Reply:
        language = caller.language or await self.language(caller.chat)
        command = parsed.command
        refusal = self._refusal(command, caller)
        if refusal is not None:
            return Reply(TextView(t(language, refusal)), language)
        try:
            reply = await self._handlers[command.use_case](parsed, caller, language)
        except QuizError as exc:
            language = caller.language or await self.language(caller.chat)  # a use case may have changed it
            return Reply(TextView(exc.render(language)), language)
        if reply.public and caller.language is not None:
            reply = replace(reply, language=await self.language(caller.chat))
        return reply

    def _refusal(self, command: Command, caller: Caller) -> str | None:
        if not command.scope.allows(caller.private):
            return "error.private_only" if command.scope is Scope.PRIVATE else "error.group_only"
        if command.permission is Permission.CHAT_ADMIN and not (caller.private or caller.admin):
            return "error.not_admin"
        return None

    def help_view(self, caller: Caller, language: str, topic: str | None = None) -> HelpView:
        """/help: every command the chat allows; /help <command>: that one
        (bot/application/commands/help.py)."""
        if topic:
            return command_help(topic, language, caller.private)
        return full_help(language, caller.private)

    async def welcome(self, chat: ChatRef, key: str) -> Reply:
        """The greeting `key` (a catalog key taking the bank's `title` and `count`) for the chat's bank."""
        language = await self.language(chat)
        bank = self.quiz.bank_for(await self.quiz.chat(chat))
        text = t(language, key, title=bank_text(language, bank.title), count=len(bank.questions))
        return Reply(WelcomeView(text, language), language)

    def _user(self, caller: Caller) -> UserRef:
        if caller.user is None:  # e.g. a message sent as a channel: nobody to keep stats for
            raise QuizError("error.no_user")
        return caller.user

    # ------------------------------------------------------------ use cases (one per catalog entry)

    def _own(self, use_case: AppUseCase) -> Handler:
        match use_case:
            case AppUseCase.START:
                return self._start
            case AppUseCase.HELP:
                return self._help
            case AppUseCase.LEADERBOARD:
                return self._leaderboard
            case AppUseCase.STREAK:
                return self._streak
            case AppUseCase.TAGS:
                return self._tags
            case AppUseCase.LANGUAGE:
                return self._language
            case AppUseCase.TIMEZONE:
                return self._timezone
            case AppUseCase.DAILY_SET:
                return self._daily_set
            case AppUseCase.DAILY_OFF:
                return self._daily_off
            case AppUseCase.DAILY_SHOW:
                return self._daily_show
            case AppUseCase.CONTEST_START:
                return self._contest_start
            case AppUseCase.CONTEST_STOP:
                return self._contest_stop
            case AppUseCase.CONTEST_STATUS:
                return self._contest_status
            case AppUseCase.WEB:
                return self._web
            case _:
                no_handler(use_case)

    def _without_study(self, use_case: StudyUseCase) -> Handler:
        # /quiz without its practice modes, /review as a past mistake again, /stats as plain numbers
        match use_case:
            case StudyUseCase.PRACTISE:
                return self._quiz
            case StudyUseCase.REVIEW:
                return self._review
            case StudyUseCase.STATS:
                return self._stats
            case _:
                return self._no_study

    def _without_uploads(self, use_case: UploadUseCase) -> Handler:
        match use_case:
            case UploadUseCase.BANK_LIST:
                return self._bank_list
            case UploadUseCase.BANK_USE:
                return self._bank_use
            case _:
                return self._no_study

    async def _start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        text = t(language, "tg.welcome", title=bank_text(language, bank.title), count=len(bank.questions))
        return Reply(WelcomeView(text, language), language)

    async def _help(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        topic = parsed.args.get("command")
        return Reply(self.help_view(caller, language, str(topic) if topic else None), language)

    async def _quiz(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        qtype = parsed.args.get("type")
        tag = parsed.args.get("tag")
        ask = Ask(caller.chat, caller.user, tag=str(tag) if tag else None,
                  qtype=qtype if isinstance(qtype, QuestionType) else None)  # fmt: skip
        return Reply(await self.quiz.ask(ask), language, public=True)

    async def _review(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        """Without the study tools: a past mistake again (with them: the FSRS cards due)."""
        view = await self.quiz.ask(Ask(caller.chat, self._user(caller), review=True))
        return Reply(view, language, public=True)

    async def _no_study(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(TextView(t(language, "study.unavailable")), language)

    async def _leaderboard(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        window = str(parsed.args.get("window", Window.ALL))
        if window == "contest":
            standings = await self.contests.standings(caller.chat)
            if standings is None:
                raise QuizError("contest.not_running")
            return Reply(standings, language, public=True)
        guild_wide = parsed.args.get("scope") == "server"
        show = ShowLeaderboard(caller.chat, caller.user, Window(window), guild_wide=guild_wide)
        return Reply(await self.quiz.leaderboard(show), language, public=True)

    async def _stats(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        other = parsed.args.get("user")
        who = other if isinstance(other, UserRef) else self._user(caller)
        return Reply(await self.quiz.stats(ShowStats(caller.chat, who)), language)

    async def _streak(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        stats = await self.quiz.stats(ShowStats(caller.chat, self._user(caller)))
        return Reply(
            TextView(t(language, "streak.body", count=stats.streak, best=stats.best_streak)), language
        )

    async def _tags(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        bank = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        # Each by its display name (either it or the slug can be typed after /quiz).
        tags = tag_list(language, bank, bank.tags)
        return Reply(TextView(t(language, "help.tags", tags=tags)), language)

    async def _language(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        wanted = str(parsed.args["language"])
        if caller.chat.guild_key is not None:
            chat = await self.quiz.set_guild_language(caller.chat, wanted)
            key = "lang.set_guild"
        else:
            chat = await self.quiz.update_settings(caller.chat, language=wanted)
            key = "lang.set"
        language = chat.settings.language
        return Reply(TextView(t(language, key)), language, public=not caller.private)

    async def _timezone(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        zone = str(parsed.args["timezone"])
        await self.dailies.set_timezone(caller.chat, zone)
        language = await self.language(caller.chat)  # said to the whole chat
        return Reply(TextView(t(language, "tg.tz_set", timezone=zone)), language, public=not caller.private)

    async def _daily_set(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        args = parsed.args
        deadline, tag, zone, mode = (args.get(k) for k in ("deadline", "tag", "timezone", "mode"))
        view = await self.dailies.set_daily(
            caller.chat, str(args["time"]), timezone=str(zone) if zone else None,
            deadline_seconds=int(deadline) if isinstance(deadline, int) else None,
            tag=str(tag) if tag else None, mode=_mode(mode),
        )  # fmt: skip
        return Reply(DailyReply(view, just_set=True), language, public=not caller.private)

    async def _daily_off(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        view = await self.dailies.disable(caller.chat)
        if view is not None:
            language = await self.language(caller.chat)  # said to the whole chat
        return Reply(TextView(t(language, "daily.off" if view is not None else "daily.none")), language,
                     public=view is not None and not caller.private)  # fmt: skip

    async def _daily_show(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(DailyReply(await self.dailies.show(caller.chat)), language)

    async def _contest_start(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        questions, seconds = parsed.args.get("questions"), parsed.args.get("seconds")
        tag = parsed.args.get("tag")
        # Posts its own announcement and first question through the chat port.
        status = await self.contests.start(
            caller.chat, int(questions) if isinstance(questions, int) else None,
            int(seconds) if isinstance(seconds, int) else None, tag=str(tag) if tag else None,
        )  # fmt: skip
        return Reply(status, language)

    async def _contest_stop(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if not await self.contests.stop(caller.chat):
            raise QuizError("contest.not_running")
        return Reply(await self.contests.status(caller.chat), language)

    async def _contest_status(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        return Reply(await self.contests.status(caller.chat), language)

    async def _web(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        if self.web is None:
            return Reply(TextView(t(language, "web.off")), language)
        link = await self.web.issue_link(caller.chat, self._user(caller))
        return Reply(TextView(t(language, "web.link", url=link)), language)

    async def _bank_list(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        current = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        lines = [t(language, "bank.using", title=current.title, count=len(current.questions)), ""]
        lines += [t(language, "bank.list_row", id=b.id, title=b.title, count=len(b.questions))
                  for b in sorted(self.quiz.banks.values(), key=lambda b: b.id)]  # fmt: skip
        return Reply(TextView("\n".join(lines)), language)

    async def _bank_use(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        chat = await self.quiz.update_settings(caller.chat, bank_id=str(parsed.args["bank"]))
        current = self.quiz.bank_for(chat)
        language = chat.settings.language
        text = t(language, "bank.using", title=current.title, count=len(current.questions))
        return Reply(TextView(text), language, public=not caller.private)


def _mode(value: object) -> AnswerMode | None:
    return AnswerMode(str(value)) if value else None

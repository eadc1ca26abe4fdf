"""The slash command tree: /quiz, /leaderboard, /stats, /streak, /bank, /lang (the admin groups
/daily and /contest are in admin_commands), localized through the catalog, errors told politely."""

import logging
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice

from adapters.discord.render import MD, fit, leaderboard_embed, question_embed, standings_embed, stats_embed
from adapters.discord.replies import Reply, chat_ref, is_admin, respond, send, user_language, user_ref
from adapters.discord.translator import text
from adapters.discord.views import question_buttons
from bot.i18n import LANGUAGES, bank_text, t
from bot.messages import Ask, ShowLeaderboard, ShowStats
from bot.model import QuestionType
from bot.quiz import QuizError
from bot.windows import Window

log = logging.getLogger("studybot.discord")


class StudyTree(app_commands.CommandTree):
    """Answers any failure of a command ephemerally (never a stack trace) and logs the unexpected."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        adapter: Any = getattr(self.client, "adapter", None)
        lang = user_language(interaction) or (adapter.app.quiz.settings.language if adapter else "zh-CN")
        if isinstance(error, app_commands.CheckFailure):
            message = t(lang, "error.not_admin")
        elif isinstance(error, app_commands.TransformerError):
            message = t(lang, "error.bad_args", detail=fit(str(error.value), 200))
        else:
            name = interaction.command.qualified_name if interaction.command else "?"
            log.error("command /%s failed", name, exc_info=error)
            message = t(lang, "error.internal")
        try:
            await send(interaction, Reply(message))
        except discord.HTTPException as exc:
            log.warning("could not report a failed command: %s", exc)


async def run(adapter: Any, interaction: discord.Interaction, work: Any, *, public: bool = False,
              admin: bool = False, after: Any = None) -> None:
    """Run `work(language) -> Reply` for a command: admins only if `admin`, refusals from the core
    (QuizError) told in the user's language; then `after(message_id)` once the reply is sent.
    `work` gets the chat's language for a `public` command, else (its reply is ephemeral) the
    language of the user's Discord client when the catalog has it."""

    async def guarded() -> Reply:
        chat_language = (await adapter.app.quiz.chat(chat_ref(interaction))).settings.language
        own = user_language(interaction) or chat_language
        if admin and not is_admin(interaction):
            return Reply(t(own, "error.not_admin"))
        try:
            return await work(chat_language if public else own)
        except QuizError as exc:
            return Reply(exc.render(own))

    async with adapter.inflight.busy() as running:
        if running:
            message_id = await respond(interaction, guarded(), public=public)
            if after is not None and message_id is not None:
                await after(message_id)


def _choices(keys: dict[str, str]) -> list[Choice[str]]:
    return [Choice(name=text(key), value=value) for value, key in keys.items()]


QUESTION_TYPES = {str(q): f"type.{q}" for q in QuestionType}
WINDOWS = {"all": "cmd.choice.all", "week": "cmd.choice.week", "month": "cmd.choice.month",
           "contest": "cmd.choice.contest"}  # fmt: skip
SCOPES = {"channel": "cmd.choice.channel", "server": "cmd.choice.server"}


def install(tree: app_commands.CommandTree, adapter: Any) -> None:
    quiz = adapter.app.quiz

    @tree.command(name=text("cmd.quiz.name"), description=text("cmd.quiz.desc"))
    @app_commands.rename(tag=text("cmd.opt.tag.name"), qtype=text("cmd.opt.type.name"))
    @app_commands.describe(tag=text("cmd.opt.tag.desc"), qtype=text("cmd.opt.type.desc"))
    @app_commands.choices(qtype=_choices(QUESTION_TYPES))
    async def quiz_command(interaction: discord.Interaction, tag: str | None = None,
                           qtype: Choice[str] | None = None) -> None:
        asked: list[int] = []

        async def work(lang: str) -> Reply:
            ask = Ask(chat_ref(interaction), user_ref(interaction.user), tag=(tag or "").strip() or None,
                      qtype=QuestionType(qtype.value) if qtype else None)  # fmt: skip
            view = await quiz.ask(ask)
            adapter.counts.remember(view)
            asked.append(view.round_id)
            return Reply(embed=question_embed(view), view=question_buttons(view), ephemeral=False)

        async def remember(message_id: int) -> None:
            if asked:  # a question was posted, not a refusal
                await quiz.set_message_ref(asked[0], f"{interaction.channel_id}:{message_id}")

        await run(adapter, interaction, work, public=True, after=remember)

    @tree.command(name=text("cmd.leaderboard.name"), description=text("cmd.leaderboard.desc"))
    @app_commands.rename(window=text("cmd.opt.window.name"), scope=text("cmd.opt.scope.name"))
    @app_commands.describe(window=text("cmd.opt.window.desc"), scope=text("cmd.opt.scope.desc"))
    @app_commands.choices(window=_choices(WINDOWS), scope=_choices(SCOPES))
    async def leaderboard_command(interaction: discord.Interaction, window: Choice[str] | None = None,
                                  scope: Choice[str] | None = None) -> None:
        async def work(lang: str) -> Reply:
            ref = chat_ref(interaction)
            if window is not None and window.value == "contest":
                standings = await adapter.app.contests.standings(ref)
                if standings is None:
                    return Reply(t(lang, "contest.not_running"))
                return Reply(embed=standings_embed(standings), ephemeral=False)
            show = ShowLeaderboard(ref, user_ref(interaction.user), Window(window.value if window else "all"),
                                   guild_wide=scope is not None and scope.value == "server")  # fmt: skip
            return Reply(embed=leaderboard_embed(await quiz.leaderboard(show)), ephemeral=False)

        await run(adapter, interaction, work, public=True)

    @tree.command(name=text("cmd.stats.name"), description=text("cmd.stats.desc"))
    @app_commands.rename(user=text("cmd.opt.user.name"))
    @app_commands.describe(user=text("cmd.opt.user.desc"))
    async def stats_command(interaction: discord.Interaction, user: discord.User | None = None) -> None:
        async def work(lang: str) -> Reply:
            who = user_ref(user or interaction.user)
            return Reply(embed=stats_embed(await quiz.stats(ShowStats(chat_ref(interaction), who))))

        await run(adapter, interaction, work)

    @tree.command(name=text("cmd.streak.name"), description=text("cmd.streak.desc"))
    async def streak_command(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            stats = await quiz.stats(ShowStats(chat_ref(interaction), user_ref(interaction.user)))
            return Reply(t(lang, "streak.body", count=stats.streak, best=stats.best_streak))

        await run(adapter, interaction, work)

    bank = app_commands.Group(name=text("cmd.bank.name"), description=text("cmd.bank.desc"))

    @bank.command(name=text("cmd.bank.list.name"), description=text("cmd.bank.list.desc"))
    async def bank_list(interaction: discord.Interaction) -> None:
        async def work(lang: str) -> Reply:
            current = quiz.bank_for(await quiz.chat(chat_ref(interaction)))
            title = bank_text(lang, current.title)
            lines = [t(lang, "bank.using", title=title, count=len(current.questions)), ""]
            lines += [t(lang, "bank.list_row", id=b.id, title=bank_text(lang, b.title),
                        count=len(b.questions)) for b in quiz.banks.values()]  # fmt: skip
            return Reply(fit(MD.escape("\n".join(lines)), 2000))

        await run(adapter, interaction, work)

    @bank.command(name=text("cmd.bank.use.name"), description=text("cmd.bank.use.desc"))
    @app_commands.rename(bank_id=text("cmd.opt.bank.name"))
    @app_commands.describe(bank_id=text("cmd.opt.bank.desc"))
    async def bank_use(interaction: discord.Interaction, bank_id: str) -> None:
        async def work(lang: str) -> Reply:
            chat = await quiz.update_settings(chat_ref(interaction), bank_id=bank_id.strip())
            current = quiz.bank_for(chat)
            lang = chat.settings.language
            title = t(lang, "bank.using", title=bank_text(lang, current.title), count=len(current.questions))
            return Reply(MD.escape(title), ephemeral=False)

        await run(adapter, interaction, work, public=True, admin=True)

    tree.add_command(bank)

    @tree.command(name=text("cmd.lang.name"), description=text("cmd.lang.desc"))
    @app_commands.rename(language=text("cmd.opt.language.name"))
    @app_commands.describe(language=text("cmd.opt.language.desc"))
    @app_commands.choices(language=[Choice(name=t(lang, "tg.lang_name"), value=lang) for lang in LANGUAGES])
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def lang_command(interaction: discord.Interaction, language: Choice[str]) -> None:
        async def work(lang: str) -> Reply:
            chat = await quiz.set_guild_language(chat_ref(interaction), language.value)
            return Reply(t(chat.settings.language, "lang.set_guild"), ephemeral=False)

        await run(adapter, interaction, work, public=True, admin=True)

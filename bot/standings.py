"""Standings: leaderboards (per chat or guild, per window) and a user's stats, read from the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.kinds import ChatKind, Platform
from bot.messages import LeaderboardView, LeaderRow, ShowLeaderboard, ShowStats, StatsView
from bot.records import ScoreRow
from bot.windows import ALL_TIME_KEY, window_key

if TYPE_CHECKING:
    from bot.quiz import Quiz


def chat_scope(chat_id: int) -> str:
    return f"c:{chat_id}"


def guild_scope(platform: Platform | str, guild_key: str) -> str:
    return f"g:{platform}:{guild_key}"


def leader_row(row: ScoreRow) -> LeaderRow:
    return LeaderRow(row.rank, row.display_name, row.points, row.answers, row.correct)


async def leaderboard(quiz: Quiz, cmd: ShowLeaderboard) -> LeaderboardView:
    """Top rows of a chat's (or a guild's) board in a window, plus the asking user's own rank."""
    chat = await quiz.chat(cmd.chat)
    scope = chat_scope(chat.id)
    if cmd.guild_wide and cmd.chat.guild_key:
        scope = guild_scope(cmd.chat.platform, cmd.chat.guild_key)
    key = window_key(cmd.window, quiz.clock.now(), chat.settings.timezone)
    rows = await quiz.store.top_scores(scope, key, cmd.limit)
    own = None
    if cmd.user is not None:
        user_id = await quiz.store.find_user(cmd.user)
        if user_id is not None:
            mine = await quiz.store.score_of(scope, key, user_id)
            if mine is not None:
                own = leader_row(mine)
    return LeaderboardView(
        window=cmd.window,
        guild_wide=scope.startswith("g:"),
        rows=tuple(leader_row(r) for r in rows),
        own=own,
        language=chat.settings.language,
    )

async def stats(quiz: Quiz, cmd: ShowStats) -> StatsView:
    chat = await quiz.chat(cmd.chat)
    user_id = await quiz.store.find_user(cmd.user)  # asking about someone must not register them
    if user_id is None:
        return StatsView(cmd.user.display_name, 0, 0, 0.0, None, 0, 0, chat.settings.language)
    totals = await quiz.store.totals(chat.id, user_id)
    mine = await quiz.store.score_of(chat_scope(chat.id), ALL_TIME_KEY, user_id)
    streak = await quiz.store.streak(chat.id, user_id)
    return StatsView(
        name=cmd.user.display_name,
        answers=totals.answers,
        correct=totals.correct,
        points=totals.points,
        # A private chat's board has one person on it: no rank to tell there.
        rank=mine.rank if mine and cmd.chat.kind is not ChatKind.PRIVATE else None,
        streak=streak.current,
        best_streak=streak.best,
        language=chat.settings.language,
    )


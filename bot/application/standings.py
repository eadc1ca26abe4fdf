"""Standings: leaderboards (per chat or guild, per window) and a user's stats, read from the store."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from bot.application.requests import ShowLeaderboard, ShowStats
from bot.domain.kinds import ChatKind, Platform
from bot.domain.records import Chat, ScoreRow
from bot.domain.windows import ALL_TIME_KEY, window_key
from bot.ports.storage import ChatUserStore, LeaderboardStore
from bot.views.quiz import LeaderboardView, LeaderRow, StatsView


class LeaderboardReads(ChatUserStore, LeaderboardStore, Protocol):
    """What the boards read: users by reference, and the leaderboard read model."""


def chat_scope(chat_id: int) -> str:
    return f"c:{chat_id}"


def guild_scope(platform: Platform | str, guild_key: str) -> str:
    return f"g:{platform}:{guild_key}"


def leader_row(row: ScoreRow) -> LeaderRow:
    return LeaderRow(row.rank, row.display_name, row.points, row.answers, row.correct)


async def leaderboard(
    store: LeaderboardReads, chat: Chat, now: datetime, cmd: ShowLeaderboard
) -> LeaderboardView:
    """Top rows of a chat's (or a guild's) board in a window, plus the asking user's own rank."""
    scope = chat_scope(chat.id)
    if cmd.guild_wide and cmd.chat.guild_key:
        scope = guild_scope(cmd.chat.platform, cmd.chat.guild_key)
    key = window_key(cmd.window, now, chat.settings.timezone)
    rows = await store.top_scores(scope, key, cmd.limit)
    own = None
    if cmd.user is not None:
        user_id = await store.find_user(cmd.user)
        if user_id is not None:
            mine = await store.score_of(scope, key, user_id)
            if mine is not None:
                own = leader_row(mine)
    return LeaderboardView(
        window=cmd.window,
        guild_wide=scope.startswith("g:"),
        rows=tuple(leader_row(r) for r in rows),
        own=own,
        language=chat.settings.language,
    )

async def stats(store: LeaderboardReads, chat: Chat, cmd: ShowStats) -> StatsView:
    user_id = await store.find_user(cmd.user)  # asking about someone must not register them
    if user_id is None:
        return StatsView(cmd.user.display_name, 0, 0, 0.0, None, 0, 0, chat.settings.language)
    totals = await store.totals(chat.id, user_id)
    mine = await store.score_of(chat_scope(chat.id), ALL_TIME_KEY, user_id)
    streak = await store.streak(chat.id, user_id)
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


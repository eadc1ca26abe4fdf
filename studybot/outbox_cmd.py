"""The `studybot outbox` command: what the bot still owes chats, by chat and age (for operators).

Reads the database the bot uses (it may be running: SQLite readers do not block it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TextIO

from adapters.storage.backends import open_storage
from bot.ports.storage import PendingPost
from studybot.config import ConfigError, load_config


def add_outbox_parser(commands: argparse._SubParsersAction, language: str = "en") -> argparse.ArgumentParser:
    from studybot.cli_language import add_command

    parser = add_command(
        commands,
        language,
        "outbox",
        help="list the posts the bot still owes chats, by chat and age",
        description="List the posts (dailies, reveals, contest steps, notices) still waiting to be "
        "delivered, one line per chat: how many, the oldest's age, attempts and the last error.",
    )
    parser.set_defaults(func=run_outbox)
    return parser


def age_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def report(posts: Sequence[PendingPost], keys: dict[int, str], now: datetime, out: TextIO) -> None:
    if not posts:
        print("outbox: nothing owed", file=out)
        return
    by_chat: dict[int, list[PendingPost]] = {}
    for post in posts:
        by_chat.setdefault(post.chat_id, []).append(post)
    print(f"outbox: {len(posts)} posts owed to {len(by_chat)} chats", file=out)
    print(f"{'chat':<32} {'posts':>5} {'oldest':>8} {'attempts':>8}  next / last error", file=out)
    rows = sorted(by_chat.items(), key=lambda item: min(p.created_at for p in item[1]))
    for chat_id, owed in rows:
        head = owed[0]
        age = (now - min(p.created_at for p in owed)).total_seconds()
        error = f" / {head.last_error}" if head.last_error else ""
        print(f"{keys.get(chat_id, str(chat_id)):<32} {len(owed):>5} {age_text(age):>8} "
              f"{head.attempts:>8}  {head.what}{error}", file=out)  # fmt: skip


async def _list(args: argparse.Namespace, out: TextIO) -> int:
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError as exc:
        print(f"studybot: {exc}", file=sys.stderr)
        return 2
    url = config.database_url.get_secret_value() if config.database_url is not None else None
    storage = await open_storage(url, config.database_path)
    try:
        posts = await storage.outbox.pending_posts()
        keys = {}
        for chat_id in {p.chat_id for p in posts}:
            chat = await storage.store.get_chat(chat_id)
            if chat is not None:
                keys[chat_id] = f"{chat.ref.platform}:{chat.ref.chat_key}"
        report(posts, keys, datetime.now(UTC), out)
    finally:
        await storage.close()
    return 0


def run_outbox(args: argparse.Namespace) -> int:
    return asyncio.run(_list(args, sys.stdout))

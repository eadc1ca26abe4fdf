"""A data directory where 300 simulated learners answered a 30-item bank (tests/item_simulation.py)
whose item 17 has a deliberately swapped key, through the real SQLite store: each answer in a
daily, a contest or a practice round (one round per item and kind, in three chats), the
later answers (after the reveal) in a review round, and an open error report on item 17.

Run as a program it prints what `studybot bank stats` shows for it (docs/bank-stats.md):

    python -m tests.item_stats_session zh-CN     # or en, zh-TW
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from adapters.storage.backends import SqliteStorage
from bot.domain.kinds import (
    AnswerPolicy,
    ChatKind,
    ChatRef,
    Platform,
    RevealPolicy,
    RoundKind,
    UserRef,
)
from bot.domain.questions import Bank
from bot.domain.records import ChatSettings, NewAnswer, NewRound
from bot.domain.study_records import Report
from tests.item_simulation import simulate, simulated_bank, swap_key

SWAPPED = 17
BANK_ID = "sim"
T0 = datetime(2026, 10, 1, tzinfo=UTC)
REPORT = "第17题答案应该是另一个选项，解析也对不上"


def bank_file(bank: Bank, path: Path) -> Path:
    """The bank as a YAML bank file (docs/bank-format.md)."""
    questions = [
        {"id": q.id, "number": q.number, "type": str(q.type), "stem": q.stem,
         "options": dict(q.options), "answer": q.answer[0]}
        for q in bank.questions
    ]  # fmt: skip
    data = {
        "id": bank.id,
        "title": "模拟题库（示例）",
        "language": "zh-CN",
        "source": "simulated",
        "questions": questions,
    }
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def config_file(folder: Path, bank_path: Path, language: str = "zh-CN") -> Path:
    path = folder / "studybot.yaml"
    path.write_text(f"language: {language}\ndefault_bank: {BANK_ID}\nbank_paths: [{bank_path}]\n")
    return path


async def seed(database: Path, bank_id: str = BANK_ID) -> tuple[Bank, str]:
    """The answers and the report, stored; the bank as the bot has it and the true key."""
    truth = simulated_bank(30, bank_id=bank_id)
    bank, _ = swap_key(truth, SWAPPED)
    answers = simulate(truth, 300, shown=bank)
    storage = await SqliteStorage.open(database)
    try:
        store = storage.store
        settings = ChatSettings(bank_id=bank_id, timezone="Asia/Shanghai", language="zh-CN")
        chats = {}
        for kind in ("daily", "contest", "practice", "review"):
            ref = ChatRef(Platform.TELEGRAM, f"-100{len(chats) + 1}", ChatKind.GROUP, None, f"学习群 {kind}")
            chats[kind] = (await store.ensure_chat(ref, settings)).id
        users = await store.ensure_users(
            [UserRef(Platform.TELEGRAM, str(1000 + u), f"学员{u}") for u in range(301)]
        )
        rounds: dict[tuple[str, str], int] = {}
        seen: set[tuple[int, str]] = set()
        batch = []
        for answer in answers:
            first = (answer.user_id, answer.question_id) not in seen
            seen.add((answer.user_id, answer.question_id))
            kind = ("practice" if answer.source == "mock" else answer.source) if first else "review"
            key = (kind, answer.question_id)
            if key not in rounds:
                round_kind = RoundKind.PRACTICE if kind in ("practice", "review") else RoundKind(kind)
                opened = await store.open_round(NewRound(
                    chats[kind], bank_id, answer.question_id, round_kind, T0, T0 + timedelta(days=90),
                    RevealPolicy.ROUND, AnswerPolicy.FIRST, False,
                ))  # fmt: skip
                rounds[key] = opened.id
            batch.append(NewAnswer(
                rounds[key], users[answer.user_id], answer.response, answer.answered_at, answer.verdict,
                answer.fraction, answer.fraction, "2026-W45", "2026-11",
            ))  # fmt: skip
        for start in range(0, len(batch), 500):
            await store.record_answers(batch[start : start + 500])
        await storage.reports.add_report(Report(
            0, users[42], chats["practice"], bank_id, "v1", f"q{SWAPPED}", REPORT, T0 + timedelta(days=20),
        ))  # fmt: skip
    finally:
        await storage.close()
    return bank, truth.question(f"q{SWAPPED}").answer[0]


def prepare(folder: Path, language: str = "zh-CN") -> tuple[Path, Bank, str]:
    """A data directory under `folder` with the answers, and its config file."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    bank, true_key = asyncio.run(seed(folder / "data" / "studybot.db"))
    config = config_file(folder, bank_file(bank, folder / "sim.yaml"), language)
    return config, bank, true_key


def main() -> None:
    import os

    from studybot.bank_stats import run_stats

    language = sys.argv[1] if len(sys.argv) > 1 else "zh-CN"
    with tempfile.TemporaryDirectory() as tmp:
        config, _, _ = prepare(Path(tmp), language)
        os.environ["STUDYBOT_DATA_DIR"] = str(Path(tmp) / "data")
        run_stats(BANK_ID, None, str(config), language)


if __name__ == "__main__":
    main()

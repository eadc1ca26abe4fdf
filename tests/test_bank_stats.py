"""Question statistics end to end, on a data directory where 300 simulated learners answered a
30-item bank whose item 17 has a deliberately swapped key (tests/item_stats_session.py):
`studybot bank stats` as a process (its table in Chinese and English, 80 columns wide, and the
CSV file), and `/bank stats` in chat — on Telegram (the real python-telegram-bot against the
fake Bot API) for the bank's operator, refused to anyone else — and on the console. Item 17
comes first everywhere, beside its open error report."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wcwidth import wcswidth

from bot.domain.questions import Bank
from bot.locales.i18n import t
from studybot.bank_stats import wrap
from tests.fakes.telegram_fixtures import telegram_server  # noqa: F401
from tests.fakes.telegram_model import FakeUser
from tests.item_simulation import simulated_bank, swap_key
from tests.item_stats_session import REPORT, SWAPPED, prepare, seed
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    embed_text,
    fake_discord,
    harness_fixture,
    study_world,
)
from tests.test_telegram_harness import BOB, BOSS, GROUP, TelegramHarness, buttons, tg_fixture  # noqa: F401

ZH = "zh-CN"
UPLOADS = Path(__file__).parent / "banks" / "upload"
ITEM = {"zh-CN": f"第 {SWAPPED} 题 ·", "zh-TW": f"第 {SWAPPED} 題 ·", "en": f"Question {SWAPPED} ·"}
LI = FakeUser(21, "小李", "xiaoli", "zh-hans")


def studybot(
    folder: Path, *args: str, stdin: str | None = None, lang: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "LANG", "LC_ALL")
    }
    env["STUDYBOT_DATA_DIR"] = str(folder / "data")
    if lang:
        env["LANG"] = lang
    command = [sys.executable, "-m", "studybot", *args]
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=120, env=env, cwd=folder
    )


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Bank, str]:
    folder = tmp_path_factory.mktemp("stats")
    config, bank, true_key = prepare(folder)
    return folder, config, bank, true_key


def _first_item_lines(out: str, item_word: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(item_word)]


@pytest.mark.parametrize(("lang", "language"), [("", ZH), ("en_US.UTF-8", "en"), ("zh_TW.UTF-8", "zh-TW")])
def test_the_cli_lists_the_swapped_key_first_in_a_table_80_columns_wide(
    seeded, lang: str, language: str
) -> None:
    folder, config, bank, true_key = seeded
    target = folder / f"stats-{language}.csv"
    result = studybot(
        folder, "bank", "stats", "sim", "--config", str(config), "--csv", str(target), lang=lang
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    lines = out.splitlines()
    assert all(wcswidth(line) <= 80 for line in lines), [line for line in lines if wcswidth(line) > 80]
    assert lines[0] == t(
        language, "itemstats.title", bank="模拟题库（示例）" if language != "zh-TW" else "模擬題庫（示例）"
    )
    assert t(language, "itemstats.flagged", count=1) in lines
    # The flagged block: item 17 with why (the true key is what the strong learners pick) and its report.
    heading = next(i for i, line in enumerate(lines) if line.startswith(ITEM[language]))
    block = "\n".join(lines[heading : heading + 6])
    swapped = bank.question(f"q{SWAPPED}").answer[0]
    assert f" {true_key}" in block.split("\n", 2)[2] and swapped in block
    assert REPORT in block and "#1" in block
    # The table: item 17's row first, marked; the rest in bank order.
    table = lines[lines.index(t(language, "cli.stats.heading")) + 2 :]
    numbers = [int(line.split()[0]) for line in table if line[:4].strip().isdigit()]
    assert numbers == [SWAPPED] + [n for n in range(1, 31) if n != SWAPPED]
    assert table[0].endswith(t(language, "itemstats.mark.key"))
    assert not any(t(language, "itemstats.mark.key") in line for line in table[1:])
    # The CSV file: every item, item 17 first, with its reason and its report.
    assert result.stderr.strip() == t(language, "cli.stats.wrote", target=target, count=30)
    rows = list(csv.reader(io.StringIO(target.read_bytes().decode("utf-8-sig"))))
    assert rows[0][0] == t(language, "itemstats.col.number") and len(rows) == 31
    assert (
        rows[1][0] == str(SWAPPED)
        and rows[1][11] == t(language, "itemstats.mark.key")
        and REPORT in rows[1][13]
    )
    assert all(row[11] == "" for row in rows[2:])


def test_the_cli_names_the_banks_it_knows_when_the_bank_is_unknown(seeded) -> None:
    folder, config, _, _ = seeded
    result = studybot(folder, "bank", "stats", "nosuch", "--config", str(config), lang="en_US.UTF-8")
    assert result.returncode == 1
    assert result.stderr.startswith("no bank “nosuch” (known: ") and "sim" in result.stderr


def test_the_cli_on_a_bank_nobody_answered_says_so(tmp_path: Path) -> None:
    result = studybot(tmp_path, "bank", "stats", "ai-trainer-2025", lang="en_US.UTF-8")
    assert result.returncode == 0, result.stderr
    assert t("en", "itemstats.no_answers") in result.stdout
    assert not (tmp_path / "data" / "studybot.db").exists()  # nothing made for a read


def test_bank_stats_on_the_console_shows_the_swapped_key_first(seeded) -> None:
    folder, config, _, true_key = seeded
    result = studybot(folder, "run", "--console", "--config", str(config), stdin="/bank stats\n/quit\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    flagged = out.index(t(ZH, "itemstats.flagged", count=1))
    item = out.index(f"第 {SWAPPED} 题 · 单选题", flagged)
    assert out.index(t(ZH, "itemstats.others", count=29)) > item
    assert REPORT in out[item:] and f"选 {true_key}" in out[item:]
    assert "第 1 题 ·" not in out  # the others only in short


# ---------------------------------------------------------------- Telegram


@pytest.fixture
def bank() -> Bank:
    """The harness's bank: the simulated one with its swapped key, as "sample" (its default)."""
    from tests.item_simulation import simulated_bank, swap_key

    return swap_key(simulated_bank(30, bank_id="sample"), SWAPPED)[0]


async def _document(tg: TelegramHarness, chat_id: int) -> dict[str, Any]:
    return await tg.server.wait_for_request(
        "sendDocument", lambda p: str(p["chat_id"]) == str(chat_id), timeout=30
    )


async def test_bank_stats_on_telegram_for_the_operator_and_refused_to_others(tg: TelegramHarness) -> None:
    await seed(tg.data_dir / "studybot.db", "sample")
    await tg.start(language=ZH, admins={"telegram": [BOSS.id]})
    reply = await tg.say(BOSS.id, BOSS, "/bank stats", timeout=30)
    text = reply["text"]
    assert t("en", "itemstats.flagged", count=1) in text
    first = text.index(f"Question {SWAPPED} ·")
    assert text.index(t("en", "itemstats.others", count=29)) > first
    assert REPORT in text
    document = await _document(tg, BOSS.id)
    assert document["caption"] == t("en", "itemstats.file_caption", bank="模拟题库")

    # A learner in her own private chat is its admin, not the bank's owner.
    refused = await tg.say(LI.id, LI, "/bank stats", timeout=30)
    assert refused["text"] == t(ZH, "itemstats.not_owner")


# ---------------------------------------------------------------- Discord


async def test_bank_stats_on_discord_for_the_operator_in_chinese_and_refused_to_others(
    harness: Harness,
) -> None:
    """The operator, in a DM with a Chinese client: the swapped key first with its report, and the
    CSV attached. A server's admin (Discord offers /bank only to those) is not the owner of a
    configured bank: refused, in their client's language."""
    from tests.test_study_e2e_discord import Seat

    h = harness
    h.bank = swap_key(simulated_bank(30, bank_id="sample"), SWAPPED)[0]
    await seed(h.data_dir / "studybot.db", "sample")
    operator = h.server.add_user("olga")
    await h.start(admins={"discord": [str(operator.id)]})
    dm_channel, dm_member = h.server.dm(operator)
    reply = await Seat(h, dm_channel, dm_member).reply("bank", sub="stats", locale="zh-CN")
    text = embed_text(reply)
    assert t(ZH, "itemstats.flagged", count=1) in text, text
    first = text.index(ITEM[ZH])
    assert text.index(t(ZH, "itemstats.others", count=29)) > first
    assert REPORT in text[first:]
    assert [a["filename"] for a in reply.data["attachments"]] == ["sample-stats.csv"]
    refused = await h.command(h.world.admin, "bank", sub="stats", locale="zh-TW")
    assert refused is not None and refused.flags & EPHEMERAL
    assert embed_text(refused) == t("zh-TW", "itemstats.not_owner")


# ---------------------------------------------------------------- the table's wrapping

WORDS = st.sampled_from(
    ["题目", "统计，", "正确率", "；", "discrimination", "rest", "score", "(fewer:", "27%", "。"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, max_size=60), st.booleans(), st.integers(20, 80))
def test_wrapping_keeps_every_word_whole_and_within_the_width(
    words: list[str], spaced: bool, limit: int
) -> None:
    # English words stand apart by a space; Chinese ones with or without (no token is wider
    # than the narrowest width, so every line can fit)
    text = ""
    for word in words:
        apart = spaced or (text[-1:].isascii() and text[-1:].isalnum()) or word[0].isascii()
        text += (" " if text and apart else "") + word
    lines = wrap(text, limit)
    assert all(wcswidth(line) <= limit for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    # an English word is never cut: every line's ASCII runs are whole words of the text
    for line in lines:
        for run in re.findall(r"[A-Za-z]+", line):
            assert run in {"discrimination", "rest", "score", "fewer"}


@pytest.mark.parametrize(("lang", "language"), [("", ZH), ("en_US.UTF-8", "en")])
def test_the_documented_example_is_what_the_command_prints(seeded, lang: str, language: str) -> None:
    folder, config, _, _ = seeded
    doc = (Path(__file__).resolve().parent.parent / "docs" / "bank-stats.md").read_text(encoding="utf-8")
    marker = "zh" if language == ZH else "en"
    block = doc.split(f"<!-- bank-stats-{marker} -->\n```text\n")[1].split("\n```")[0].splitlines()
    shown = block[:-1]  # the last line is the ellipsis
    out = studybot(folder, "bank", "stats", "sim", "--config", str(config), lang=lang).stdout.splitlines()
    assert out[: len(shown)] == shown


def test_the_chat_text_of_a_big_bank_fits_a_message_and_points_to_the_file() -> None:
    from bot.domain.item_statistics import compute
    from bot.views.item_statistics_text import chat_text
    from tests.item_simulation import simulate, simulated_bank

    big = simulated_bank(200)
    stats = compute(big, simulate(big, 40))
    for language in (ZH, "zh-TW", "en"):
        text = chat_text(stats, [], language)
        assert len(text) < 2000  # Discord's limit for a message; Telegram splits at 4096
        shown = sum(1 for line in text.splitlines() if line[:1].isdigit())
        assert t(language, "itemstats.more", count=200 - shown) in text
        assert text.endswith(t(language, "itemstats.file_note"))


async def test_an_uploaded_banks_stats_are_for_the_admins_of_its_chat(tg: TelegramHarness) -> None:
    """In the group that uploaded a bank its admins see its statistics (by its name too, and the
    uploader in private); a member is refused as for any admin command, and to the operator, who
    looks after the configured banks only, the group's bank is not one she can name."""
    ada = FakeUser(30, "Ada", "ada", "en")
    tg.server.set_member_status(GROUP.id, BOSS, "administrator")
    await tg.start(language="en", admins={"telegram": [ada.id]})
    await tg.say(BOSS.id, BOSS, "/start")
    tg.server.user_document(
        GROUP, BOSS, "physics.csv", (UPLOADS / "physics.csv").read_bytes(), "/bank import"
    )
    await tg.server.wait_for_request(
        "sendMessage", lambda p: p["chat_id"] == GROUP.id and "physics.csv" in p["text"]
    )
    assert "physics" in (await tg.say(GROUP, BOSS, "/bank confirm"))["text"]
    tg.server.user_message(GROUP, BOB, "/quiz 1")
    question = await tg.question(GROUP.id)
    await tg.click(GROUP, BOB, question.message_id, buttons(question)["A"])

    shown = await tg.say(GROUP, BOSS, "/bank stats", timeout=30)
    assert t("en", "itemstats.none_flagged") in shown["text"]
    assert t("en", "itemstats.mark.too_few") in shown["text"]  # one learner: marked, not flagged
    by_name = await tg.say(BOSS.id, BOSS, "/bank stats physics", timeout=30)
    assert t("en", "itemstats.none_flagged") in by_name["text"]
    refused = await tg.say(GROUP, BOB, "/bank stats")
    assert "/bank stats" not in refused["text"] and t("en", "itemstats.none_flagged") not in refused["text"]
    assert (await tg.say(ada.id, ada, "/bank stats physics"))["text"].startswith("Unknown bank")
    # Her own chat's bank is the configured one, which she does look after: nobody answered it.
    assert (await tg.say(ada.id, ada, "/bank stats"))["text"].endswith(t("en", "itemstats.no_answers"))


def test_a_report_cannot_drive_the_teachers_terminal() -> None:
    """A report's text and its reporter's name are a learner's: escape sequences, line breaks
    and right-to-left overrides are shown harmless, and the lines keep to 80 columns."""
    from datetime import UTC, datetime

    from bot.domain.item_statistics import compute
    from bot.domain.study_records import Report
    from studybot.bank_stats import table_lines
    from tests.item_simulation import simulate, simulated_bank, swap_key

    truth = simulated_bank(30)
    bank, _ = swap_key(truth, SWAPPED)
    stats = compute(bank, simulate(truth, 300, shown=bank))
    nasty = "\x1b[2J\x1b[31m答案\n错了\u202e" + "很长" * 60 + "\x07"
    report = Report(1, 5, 1, bank.id, "v1", f"q{SWAPPED}", nasty, datetime(2026, 12, 1, tzinfo=UTC),
                    reporter="\x1b]0;title\x07坏人")  # fmt: skip
    lines = table_lines(stats, [report], "zh-CN")
    assert not any(ch in line for line in lines for ch in "\x1b\x07\n\u202e")
    assert all(wcswidth(line) <= 80 for line in lines)
    assert any("答案 错了很长很长" in line for line in lines)

"""The catalogs: one gettext file per language that agree key for key, plural forms by each
language's CLDR rule, no English left in the Chinese ones, and language tags read leniently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bank.loader import load_bank
from bot.locales import check, i18n
from bot.locales.i18n import (
    LANGUAGES,
    bank_text,
    catalog,
    match_language,
    normalize_language,
    simplified,
    t,
)

ROOT = Path(__file__).resolve().parent.parent


def test_every_catalog_has_every_key_with_the_same_placeholders_and_plural_forms():
    assert check.problems() == []
    keys = set(catalog("zh-CN").messages)
    assert len(keys) > 150
    for language in LANGUAGES:
        assert set(catalog(language).messages) == keys


def test_the_check_runs_as_a_module_for_maintainers():
    command = [sys.executable, "-m", "bot.locales.check"]
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout
    assert "catalogs agree" in out.stdout


def test_the_check_sees_english_in_a_chinese_sentence_but_not_commands():
    assert check.english_runs("无法识别的答案：Can't read '2' as option letters") == [
        "Can't read", "as option letters"]  # fmt: skip
    assert check.english_runs("用 /daily set HH:MM [截止] 设置 · /bank use <id> · {name} 的统计") == []
    assert check.placeholders("{rank}. {name} — {points}分") == {"rank", "name", "points"}


def test_the_catalogs_are_po_files_and_no_compiled_mo_is_kept():
    locales = ROOT / "bot" / "locales"
    found = sorted(p.relative_to(locales).as_posix() for p in locales.rglob("*.po"))
    assert found == [f"{locale}/LC_MESSAGES/studybot.po" for locale in ("en", "zh_CN", "zh_TW")]
    assert not list(locales.rglob("*.mo"))


@pytest.mark.parametrize(("n", "questions"), [(1, "1 question,"), (0, "0 questions,"), (3, "3 questions,")])
def test_plural_forms_follow_the_language(n, questions):
    def started(language: str) -> str:
        return t(language, "contest.started", count=n, seconds=20)

    assert started("en").startswith(f"Contest started: {questions} 20 s")
    assert started("zh-CN").startswith(f"竞赛开始：共 {n} 题，每题 20 秒")
    assert started("zh-TW").startswith(f"競賽開始：共 {n} 題，每題 20 秒")


def test_every_count_sentence_reads_right_in_english():
    assert t("en", "question.timer", count=1) == "1 second"
    assert t("en", "streak.body", count=1, best=4) == "🔥 Daily streak: 1 day, best 4"
    assert t("en", "bank.using", title="T", count=1) == "Bank: T (1 question)"
    assert t("en", "standings.stopped", position=1, count=1).endswith("(1 of 1 question)")
    status = t("en", "contest.status", position=1, total=2, seconds=5, count=1)
    assert status.endswith("5 s each, 1 player.")
    done = t("en", "contest.status_done", questions=t("en", "count.questions", count=1), count=1)
    assert done == "The last contest is over: 1 question, 1 player."


def test_a_plural_sentence_without_a_count_is_a_programming_error():
    with pytest.raises(TypeError, match="count"):
        t("en", "contest.started", seconds=20)
    with pytest.raises(KeyError):
        t("en", "no.such.key")


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("zh", "zh-CN"), ("zh-CN", "zh-CN"), ("zh-hans", "zh-CN"), ("zh_Hans_SG", "zh-CN"),
        ("zh-TW", "zh-TW"), ("zh_TW", "zh-TW"), ("zh-Hant", "zh-TW"), ("zh-hant-hk", "zh-TW"),
        ("zh-HK", "zh-TW"), ("zh-MO", "zh-TW"), ("en", "en"), ("en-US", "en"), ("en_GB", "en"),
        ("fr", None), ("", None), (None, None),
    ],
)  # fmt: skip
def test_language_tags_are_matched_leniently(tag, language):
    assert match_language(tag) == language
    assert normalize_language(tag) == (language or i18n.DEFAULT_LANGUAGE)


def test_bank_text_is_traditional_only_for_zh_tw_and_answers_fold_back():
    assert bank_text("zh-TW", "以下属于常用优化器的有") == "以下屬於常用最佳化器的有"
    assert bank_text("zh-CN", "属于") == "属于" and bank_text("en", "属于") == "属于"
    # item 3 of the shipped bank in a zh-TW chat read "優先嚐試" (OpenCC's phrase 先尝)
    assert bank_text("zh-TW", "优先尝试的补救手段是") == "優先嘗試的補救手段是"
    assert simplified("屬於") == "属于" and simplified("B") == "B"


def test_folding_to_simplified_leaves_every_shipped_answer_as_it_is():
    """Grading folds every typed answer with t2s, so no bank answer may change under it."""
    for path in (ROOT / "bank").glob("*.yaml"):
        bank = load_bank(path)
        for question in bank.questions:  # letters and true/false as much as typed answers
            assert [simplified(a) for a in question.answer] == list(question.answer), question.id


def test_each_catalog_is_read_once_and_kept():
    catalog.cache_clear()
    for language in LANGUAGES:
        assert catalog(language).messages
    assert catalog("en") is catalog("en")

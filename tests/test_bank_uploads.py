"""Uploaded banks' identity: question ids from their content, so an edited re-upload keeps the
ids of unchanged items; a version that follows any change; the stored form reads back the same."""

from __future__ import annotations

import re
from pathlib import Path

from bank.uploads import UploadCodec
from bot.application.bank_uploads import bank_id, bank_name

PHYSICS = (Path(__file__).parent / "banks" / "upload" / "physics.csv").read_bytes()


def test_an_edited_reupload_keeps_the_ids_of_unchanged_questions() -> None:
    codec = UploadCodec()
    first = codec.read(PHYSICS, "physics.csv", "up-x-physics", "en")
    edited = PHYSICS.replace(b"Light travels faster than sound.", b"Sound travels faster than light.")
    edited = edited.replace(b"newton,joule", b"newton,erg")  # an option changed, the stem kept
    second = codec.read(edited, "physics.csv", "up-x-physics", "en")
    assert first.bank is not None and second.bank is not None
    assert first.bank.questions[0].id == second.bank.questions[0].id
    assert first.bank.questions[1].id != second.bank.questions[1].id
    assert first.version != second.version
    assert codec.read(PHYSICS, "physics.csv", "up-x-physics", "en").version == first.version
    assert codec.decode(codec.encode(first.bank)) == first.bank


def test_bank_ids_are_per_group_and_file_name() -> None:
    group, other = ("telegram", "chat:-1"), ("telegram", "chat:-2")
    assert bank_name("Physics Mock 2025.xlsx") == "physics-mock-2025"
    # Chinese file names: two names, two banks (both were `bank`, the second replacing the first)
    assert bank_name("题库.xlsx") != bank_name("试卷.xlsx")
    assert re.fullmatch(r"bank-[0-9a-f]{6}", bank_name("题库.xlsx"))
    assert re.fullmatch(r"ai-[0-9a-f]{6}", bank_name("AI模拟卷.docx"))
    assert bank_id(group, "physics") == bank_id(group, "physics") != bank_id(other, "physics")

"""Every file reader fails as a refusal: a damaged, cut or oversized file of any format is refused
with its problem (a catalog sentence naming the place, in the chat's language) and changes
nothing stored; CR-only line endings (Excel for Mac's "CSV (Macintosh)") and CSV cells over
128 KiB read as they should. The fuzz test feeds each reader truncated, bit-flipped and
oversized versions of its own fixtures, through the upload use case the chat adapters use
(bot/application/bank_uploads.py) and the YAML loader `studybot bank check` uses."""

from __future__ import annotations

import io
import random
import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.console.files import open_file
from bank.exporters import export_bank
from bank.loader import check_data, load_bank, load_bank_text_report
from bank.uploads import UploadCodec
from bank.yaml_io import bank_to_dict
from bot.application.attachments import Attachment
from bot.application.reply_text import render_reply
from bot.application.requests import Caller
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef

HERE = Path(__file__).parent
IMPORT = HERE / "banks" / "import"
UPLOAD = HERE / "banks" / "upload"
SAMPLE = HERE / "banks" / "sample.yaml"
PRIVATE = ChatRef(Platform.CONSOLE, "10", ChatKind.PRIVATE, title="Ann")
ME = Caller(PRIVATE, UserRef(Platform.CONSOLE, "10", "Ann"))
LATIN = re.compile(r"[A-Za-z]{3,}")


def _damaged_apkg() -> bytes:
    """An Anki deck whose collection member fails its CRC (one byte of its data changed)."""
    data = bytearray(export_bank(load_bank(SAMPLE), "anki"))
    member = next(i for i in zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()
                  if i.filename.startswith("collection"))  # fmt: skip
    start = member.header_offset + 30 + len(member.filename) + len(member.extra)
    data[start + member.compress_size // 2] ^= 0xFF
    return bytes(data)


def _cr_only(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


# ---------------------------------------------------------------- reproductions (issue 20)


def test_a_csv_with_mac_line_endings_reads_like_the_same_csv_with_newlines() -> None:
    codec = UploadCodec()
    lf = (IMPORT / "zh.csv").read_bytes()
    unix = codec.read(lf, "zh.csv", "up-x-zh", "zh-CN")
    mac = codec.read(_cr_only(lf), "zh.csv", "up-x-zh", "zh-CN")
    assert unix.bank is not None and mac.bank is not None, mac.problems
    assert mac.bank.questions == unix.bank.questions
    assert [w.where for w in mac.warnings] == [w.where for w in unix.warnings]


def test_a_mac_paper_is_read_line_by_line() -> None:
    codec = UploadCodec()
    paper = (IMPORT / "paper_key.txt").read_bytes()
    unix = codec.read(paper, "paper.txt", "up-x-p", "zh-CN")
    mac = codec.read(_cr_only(paper), "paper.txt", "up-x-p", "zh-CN")
    assert unix.bank is not None and mac.bank is not None
    assert mac.bank.questions == unix.bank.questions


def test_a_csv_cell_over_128_kib_is_read_whole() -> None:
    long = "很长的解析。" * 30_000  # 540 KiB in UTF-8
    data = f"题干,选项A,选项B,答案,解析\n哪个对,甲,乙,A,{long}\n".encode()
    imported = UploadCodec().read(data, "long.csv", "up-x-long", "zh-CN")
    assert imported.bank is not None, imported.problems
    assert imported.bank.questions[0].explanation == long


@pytest.mark.parametrize("language, expected", [
    ("zh-CN", "压缩文件里的 collection.anki2 已损坏"),
    ("zh-TW", "壓縮檔案裡的 collection.anki2 已損壞"),
    ("en", "the archive's member collection.anki2 is damaged"),
])  # fmt: skip
def test_an_anki_deck_failing_its_crc_is_refused_in_every_language(language: str, expected: str) -> None:
    imported = UploadCodec().read(_damaged_apkg(), "deck.apkg", "up-x-deck", "zh-CN")
    assert imported.bank is None
    assert expected in imported.problems[0].line(language)


# ---------------------------------------------------------------- in the chat's language (issue 19)


@pytest.fixture
async def chinese(make_app):
    return await make_app(language="zh-CN")


async def _upload(app, filename: str, data: bytes) -> str:
    reply = await app.application.run_text("/bank import", ME, attachment=Attachment.of_bytes(filename, data))
    return render_reply(reply)


async def test_importer_problems_reach_a_chinese_chat_in_chinese(chinese) -> None:
    cut = (
        "一、单选题\n1. 以下哪个是优化器（ ）\nA. Adam  B. ReLU\n答案：A\n"
        "2. 以下哪个是激活函数（ ）\nA. SGD  B. ReLU\n"
    )
    text = await _upload(chinese, "cut.txt", cut.encode())
    assert "试卷在这道题中间结束了（没有答案）" in text, text
    assert "truncated" not in text and "the paper" not in text
    broken = await _upload(chinese, "broken.gift", (UPLOAD / "broken.gift").read_bytes())
    assert broken.startswith("broken.gift 未导入，未做任何更改。")
    assert "花括号" in broken and "第 3 行第" in broken, broken
    assert "unclosed" not in broken and "[gift]" not in broken


async def test_a_damaged_deck_in_a_chinese_chat_is_refused_in_chinese(chinese) -> None:
    text = await _upload(chinese, "deck.apkg", _damaged_apkg())
    assert "已损坏" in text and "CRC" not in text and "Bad" not in text, text


async def test_the_console_import_of_a_missing_file_says_why_in_chinese(chinese, tmp_path: Path) -> None:
    line = f"/bank import {tmp_path / 'nope.csv'}"
    reply = await chinese.application.run_text(line, ME, open_file=open_file)
    text = render_reply(reply)
    assert "文件或目录不存在" in text, text
    assert "No such file" not in text


async def test_the_console_import_of_a_directory_says_why_in_chinese(chinese, tmp_path: Path) -> None:
    reply = await chinese.application.run_text(f"/bank import {tmp_path}", ME, open_file=open_file)
    assert "这是一个目录，不是文件" in render_reply(reply)


async def test_an_english_chat_keeps_the_english_lines(make_app) -> None:
    app = await make_app(language="en")
    text = await _upload(app, "broken.gift", (UPLOAD / "broken.gift").read_bytes())
    assert "• 3:39 item 1: [gift] a second answer block" in text, text


# ---------------------------------------------------------------- fuzz


def _fixtures() -> list[tuple[str, bytes]]:
    """Each reader's own files: the import and upload fixtures, papers, and the sample bank
    exported in every format (so the Anki and Excel readers get their own kind of file)."""
    files = [(p.name, p.read_bytes()) for d in (IMPORT, UPLOAD) for p in sorted(d.iterdir())
             if p.suffix in (".txt", ".csv", ".gift", ".xlsx", ".docx")]  # fmt: skip
    files += [(p.name, p.read_bytes()) for p in sorted((HERE / "papers").glob("*.txt"))[:3]]
    files += [(p.name, p.read_bytes()) for p in sorted((HERE / "papers").glob("*.pdf"))]  # PDFium's
    sample = load_bank(SAMPLE)
    for fmt, ext in (("csv", ".csv"), ("gift", ".gift"), ("xlsx", ".xlsx"), ("anki", ".apkg")):
        files.append((f"sample{ext}", export_bank(sample, fmt)))
    return files


def _mutations(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    """Truncated, bit-flipped, oversized and line-ending variants of one file."""
    out = []
    for _ in range(3):
        out.append(("cut", data[: rng.randrange(0, len(data))]))
    for _ in range(4):
        flipped = bytearray(data)
        for _ in range(rng.choice((1, 2, 8, 64))):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        out.append(("flip", bytes(flipped)))
    start = rng.randrange(len(data))
    out.append(("repeat", data + data[start : start + 4096] * 40))  # grown, records cut mid-way
    out.append(("big-cell", data[:start] + b"x" * 200_000 + data[start:]))
    out.append(("cr", _cr_only(data)))
    out.append(("junk", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 600)))))
    return out


def _assert_valid(imported, label: str) -> None:
    """A refusal with problems that render in every language, or a bank that passes the checker."""
    for problem in (*imported.problems, *imported.warnings, *imported.notes):
        for language in ("zh-CN", "zh-TW", "en"):
            assert problem.line(language), label
    if imported.bank is None:
        assert imported.problems, label
        return
    assert imported.bank.questions, label
    _, errors, _ = check_data(bank_to_dict(imported.bank), "<fuzz>")
    assert errors == [], (label, errors[:3])


def test_every_reader_survives_its_own_files_damaged() -> None:
    """Seeded and bounded (about 900 files, a few seconds): a refusal or a valid bank each time."""
    rng = random.Random(20)
    codec = UploadCodec()
    for round_ in range(3):
        for name, data in _fixtures():
            for how, mutated in _mutations(data, rng):
                label = f"{name} {how} (round {round_})"
                try:
                    imported = codec.read(mutated, name, "up-x-fuzz", "zh-CN")
                except Exception as exc:  # the bug this test exists for
                    pytest.fail(f"{label}: {type(exc).__name__}: {exc}")
                _assert_valid(imported, label)


def test_the_bank_loader_survives_a_damaged_bank_file() -> None:
    """`studybot bank check` and `export` read YAML: a damaged bank is problems, never an exception."""
    rng = random.Random(19)
    data = SAMPLE.read_bytes()
    for how, mutated in _mutations(data, rng):
        text = mutated.decode("utf-8", errors="replace")
        try:
            bank, errors, _ = load_bank_text_report(text, "sample.yaml")
        except Exception as exc:
            pytest.fail(f"{how}: {type(exc).__name__}: {exc}")
        assert bank is not None or errors, how


async def test_a_refused_upload_changes_nothing_stored(make_app) -> None:
    """Through the upload use case the chat adapters call: for damaged files of each format,
    the stored banks, the chat's bank and the banks on offer stay as they were, and there is
    nothing waiting for /bank confirm."""
    app = await make_app(language="zh-CN")
    rng = random.Random(2020)
    before = (await app.storage.banks.stored_banks(), sorted(app.quiz.banks),
              (await app.quiz.chat(PRIVATE)).settings.bank_id)  # fmt: skip
    refused = 0
    for name, data in _fixtures()[::2]:
        for _how, mutated in _mutations(data, rng)[:6]:
            imported = UploadCodec().read(mutated, name, "up-x-check", "zh-CN")
            if imported.bank is not None:
                continue  # a damage the reader can live with: its bank was checked above
            refused += 1
            text = await _upload(app, name, mutated)
            assert text.startswith(f"{name} 未导入，未做任何更改。"), text
            confirm = render_reply(await app.application.run_text("/bank confirm", ME))
            assert confirm.startswith("这里没有等待确认的题库"), confirm
            after = (await app.storage.banks.stored_banks(), sorted(app.quiz.banks),
                     (await app.quiz.chat(PRIVATE)).settings.bank_id)  # fmt: skip
            assert after == before, name
    assert refused >= 10


# Any bytes under any of the names a chat might send: a refusal or a valid bank, never a raise.
_NAMES = st.sampled_from(["q.csv", "q.tsv", "q.txt", "q.gift", "q.aiken", "q.xlsx", "q.docx", "q.apkg",
                          "q.pdf", "q"])
_TEXT_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "题干,答案",
                "stem,answer,A,B",
                "1. 题目（ ）",
                "A. 甲  B. 乙",
                "答案：A",
                "ANSWER: B",
                "::t:: q {=a ~b}",
                "{",
                "}",
                "参考答案",
                "一、单选题（每题1分，共2分）",
                '"',
                "\r",
            ]
        ),
        st.text(max_size=40),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=_NAMES,
    data=st.one_of(
        st.binary(max_size=2000), _TEXT_LINES.map(lambda lines: "\n".join(lines).encode("utf-8", "replace"))
    ),
)
def test_any_bytes_are_a_refusal_or_a_valid_bank(name: str, data: bytes) -> None:
    imported = UploadCodec().read(data, name, "up-x-any", "zh-CN")
    _assert_valid(imported, name)


async def test_a_file_over_the_limit_is_refused_unread_and_changes_nothing(make_app) -> None:
    app = await make_app(language="zh-CN", upload_max_mb=0.01)
    before = await app.storage.banks.stored_banks()
    big = (IMPORT / "zh.csv").read_bytes() * 200
    text = await _upload(app, "big.csv", big)
    assert text.startswith("big.csv 有") and "超过上传题库 0.01 MB 的上限。未做任何更改。" in text, text
    assert await app.storage.banks.stored_banks() == before

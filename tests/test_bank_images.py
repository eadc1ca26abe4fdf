"""A bank's pictures (`images:`, the files in `<bank>.images/` beside it, docs/bank-format.md):
the loader reads them with the bank, on the compiled-cache path too; a missing file, one that
is not a picture, or a bad name is a bank-check problem naming the item; a bank uploaded in a
chat keeps its pictures in its stored form."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bank.compiled import load_bank_report_cached
from bank.loader import load_bank_report
from bank.uploads import UploadCodec, bank_version
from bank.yaml_io import dump_bank

BANK = """id: pics
title: Pictures
language: en
source: test
questions:
  - id: pics-001
    number: 1
    type: single
    stem: Which network is drawn?
    options: {A: convolutional, B: recurrent}
    answer: A
    images: [net.png, net-2.png]
  - id: pics-002
    number: 2
    type: judge
    stem: No picture here.
    answer: true
"""


def _png(colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 6), colour).save(out, format="PNG")
    return out.getvalue()


def _bank(tmp_path: Path, files: dict[str, bytes], text: str = BANK) -> Path:
    path = tmp_path / "pics.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "pics.images").mkdir(exist_ok=True)
    for name, data in files.items():
        (tmp_path / "pics.images" / name).write_bytes(data)
    return path


@pytest.mark.parametrize("cached", [False, True])
def test_the_pictures_load_with_the_bank(tmp_path: Path, cached: bool) -> None:
    path = _bank(tmp_path, {"net.png": _png((1, 2, 3)), "net-2.png": _png((4, 5, 6))})
    for _ in range(2):  # the second load is the compiled cache's, which reads the folder again
        report = load_bank_report_cached(path, tmp_path / "cache") if cached else load_bank_report(path)
        assert report.errors == []
        assert report.bank is not None
        assert report.bank.questions[0].images == ("net.png", "net-2.png")
        assert report.bank.image("net-2.png") == _png((4, 5, 6))
    assert dump_bank(report.bank).count("images: [net.png, net-2.png]") == 1


@pytest.mark.parametrize("cached", [False, True])
def test_a_missing_picture_is_a_bank_problem(tmp_path: Path, cached: bool) -> None:
    path = _bank(tmp_path, {"net.png": _png((1, 2, 3))})
    if cached:  # a cached bank whose picture went missing since
        (tmp_path / "pics.images" / "net-2.png").write_bytes(_png((4, 5, 6)))
        assert load_bank_report_cached(path, tmp_path / "cache").bank is not None
        (tmp_path / "pics.images" / "net-2.png").unlink()
    report = load_bank_report_cached(path, tmp_path / "cache") if cached else load_bank_report(path)
    assert report.bank is None
    assert [str(p) for p in report.errors] == [
        f"{path}: [pics-001] picture pics.images/net-2.png is missing (the item names it in images)"
    ]


def test_a_file_that_is_not_a_picture_is_a_bank_problem(tmp_path: Path) -> None:
    path = _bank(tmp_path, {"net.png": _png((1, 2, 3)), "net-2.png": b"not a picture"})
    report = load_bank_report(path)
    assert report.bank is None
    assert [p.message for p in report.errors] == [
        "pics.images/net-2.png is not a PNG, JPEG, GIF or WebP picture"
    ]


@pytest.mark.parametrize(
    "images, fragment",
    [
        ("[../secret.png]", "images"),  # no way out of the folder
        ("[net.svg]", "images"),
        ("[net.png, net.png]", "images"),
        ("[]", "images"),
    ],
)
def test_a_bad_picture_name_is_a_bank_problem(tmp_path: Path, images: str, fragment: str) -> None:
    path = _bank(tmp_path, {"net.png": _png((1, 2, 3))}, BANK.replace("[net.png, net-2.png]", images))
    report = load_bank_report(path)
    assert report.bank is None
    assert report.errors and all(p.question_id == "pics-001" and p.line == 12 for p in report.errors), (
        report.errors
    )
    assert fragment in str(report.errors[0])


def test_an_uploaded_bank_keeps_its_pictures_in_its_stored_form() -> None:
    """A Word paper with a picture, uploaded: the stored text holds the bytes (base64), and the
    decoded bank gives them back; the version changes with a picture's bytes."""
    from tests.test_importer_pdf import picture_docx

    codec = UploadCodec()
    upload = codec.read(picture_docx(), "picture.docx", "up", "zh-CN")
    assert upload.bank is not None
    [question] = [q for q in upload.bank.questions if q.images]
    [name] = question.images
    stored = codec.encode(upload.bank)
    back = codec.decode(stored)
    assert back == upload.bank
    assert back.image(name) == upload.bank.image(name)
    assert upload.version == bank_version(back)
    from dataclasses import replace

    from bot.domain.questions import BankImage

    other = replace(back, images=(BankImage(name, _png((9, 9, 9))),))
    assert bank_version(other) != bank_version(back)


def test_a_bank_stored_before_pictures_still_decodes() -> None:
    """Banks uploaded before pictures were kept (compiled format 4, rows of 15) read as before."""
    import json

    codec = UploadCodec()
    payload = json.loads(codec.encode(load_bank_report_cached_text()))
    payload["format"] = 4
    payload["questions"] = [row[:15] for row in payload["questions"]]
    bank = codec.decode(json.dumps(payload))
    assert [q.images for q in bank.questions] == [(), ()]


def load_bank_report_cached_text():
    from bank.loader import load_bank_text

    return load_bank_text(BANK.replace("    images: [net.png, net-2.png]\n", ""))


async def test_an_upload_whose_pictures_exceed_the_limit_is_refused(tmp_path: Path) -> None:
    """The stored bank keeps the pictures: taken out of the file, they may come to more than it
    (a JPEG 2000 made a PNG): over the chat's upload limit, the upload is refused, nothing held."""
    from dataclasses import replace

    from bot.application.attachments import Attachment
    from bot.application.commands.catalog import command
    from bot.application.commands.parsing import Parsed
    from bot.application.quiz_settings import QuizError
    from bot.application.requests import Caller
    from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
    from bot.domain.questions import BankImage
    from studybot.bootstrap import bootstrap
    from studybot.config import Config
    from tests.fakes.ports import ManualScheduler
    from tests.test_importer_pdf import picture_docx

    config = Config(data_dir=tmp_path, sqlite_synchronous="NORMAL", upload_max_mb=0.1)
    app = await bootstrap(config, scheduler=ManualScheduler(None))
    try:
        uploads = app.application.uploads
        assert uploads is not None
        real = uploads.codec.read

        def swollen(*args):
            read = real(*args)
            assert read.bank is not None
            [image] = read.bank.images
            return replace(read, bank=replace(read.bank, images=(BankImage(image.name, image.data * 2000),)))

        uploads.codec.read = swollen
        chat = ChatRef(Platform.TELEGRAM, "-100", ChatKind.GROUP)
        caller = Caller(chat, UserRef(Platform.TELEGRAM, "1", "A"))
        parsed = Parsed(command("bank import"), {"file": Attachment.of_bytes("net.docx", picture_docx())})
        with pytest.raises(QuizError) as refused:
            await uploads.bank_import(parsed, caller, "zh-CN")
        assert refused.value.render("zh-CN").startswith("net.docx：取出的 1 张图片共 0.")
        assert "超过上传题库 0.1 MB 的上限" in refused.value.render("zh-CN")
        assert await uploads.store.take_upload(("telegram", "-100"), app.application.quiz.clock.now()) is None
    finally:
        await app.close()


@pytest.mark.parametrize(
    "broken, zh",
    [
        ("not a picture", "pics.images/net-2.png 不是 PNG、JPEG、GIF 或 WebP 图片"),
        ("missing", "缺少图片 pics.images/net-2.png（题目在 images 里列出了它）"),
    ],
)
def test_the_picture_problems_are_said_in_the_cli_s_language(tmp_path: Path, broken: str, zh: str) -> None:
    from bank.check_text import check_line

    files = {"net.png": _png((1, 2, 3))}
    if broken == "not a picture":
        files["net-2.png"] = b"not a picture"
    report = load_bank_report(_bank(tmp_path, files))
    assert [check_line("zh-CN", p) for p in report.errors] == [f"{tmp_path / 'pics.yaml'}：[pics-001] {zh}"]


def test_a_picture_over_the_limit_is_a_bank_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bank.images
    from bank.check_text import check_line

    monkeypatch.setattr(bank.images, "MAX_IMAGE_BYTES", 60)
    path = _bank(tmp_path, {"net.png": _png((1, 2, 3)), "net-2.png": _png((4, 5, 6))})
    report = load_bank_report(path)
    size = len(_png((1, 2, 3)))
    assert [check_line("zh-CN", p) for p in report.errors] == [
        f"{path}：[pics-001] 图片 pics.images/net.png 有 {size} 字节，最多只能 60 字节",
        f"{path}：[pics-001] 图片 pics.images/net-2.png 有 {len(_png((4, 5, 6)))} 字节，最多只能 60 字节",
    ]


def test_an_export_says_the_pictures_stay_behind(tmp_path: Path) -> None:
    """CSV, Excel, GIFT and Anki hold text: the export says so and where the pictures stay."""
    from bank.export_cmd import run_export

    path = _bank(tmp_path, {"net.png": _png((1, 2, 3)), "net-2.png": _png((4, 5, 6))})
    out, err = io.StringIO(), io.StringIO()
    assert run_export(str(path), "csv", out=out, err=err, language="zh-CN") == 0
    assert "Which network is drawn?" in out.getvalue()
    assert (
        err.getvalue().strip()
        == f"题库的 2 张图片不在导出的文件里（这些格式只保存文字），仍在 {tmp_path / 'pics.images'}"
    )

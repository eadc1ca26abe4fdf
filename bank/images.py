"""A bank's pictures: the files its questions name (`images:`) in the folder beside the bank
file, `<name>.images/` for `<name>.yaml` (docs/bank-format.md, Pictures). A named file that is
missing, unreadable, too large or not a picture is a bank error naming the item."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bank.checks import BankProblem
from bot.domain.questions import Bank, BankImage

__all__ = ["MAX_IMAGE_BYTES", "attach_images", "image_dir", "picture_kind", "write_images"]

# Telegram takes photos up to 10 MB and Discord attachments up to 10 MB on an unboosted server;
# a question's picture is a diagram, far smaller.
MAX_IMAGE_BYTES = 5 * 1024 * 1024

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)


def picture_kind(data: bytes) -> str | None:
    """png, jpeg, gif or webp by the file's first bytes; None for anything else."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def image_dir(bank_path: str | Path) -> Path:
    """The folder holding the pictures of the bank file at `bank_path`."""
    path = Path(bank_path)
    return path.with_name(path.stem + ".images")


def attach_images(bank: Bank, bank_path: str | Path) -> tuple[Bank | None, list[BankProblem]]:
    """`bank` with the bytes of every picture its questions name, read from its folder; or None
    and one problem per file that cannot be used."""
    folder = image_dir(bank_path)
    problems: list[BankProblem] = []
    images: dict[str, BankImage] = {}
    for question in bank.questions:
        for name in question.images:
            if name in images:
                continue
            file = folder / name
            shown = f"{folder.name}/{name}"
            try:
                size = file.stat().st_size
                if size > MAX_IMAGE_BYTES:
                    message = f"picture {shown} is {size} bytes; at most {MAX_IMAGE_BYTES} are allowed"
                    problems.append(BankProblem(str(bank_path), None, question.id, message))
                    continue
                data = file.read_bytes()
            except FileNotFoundError:
                message = f"picture {shown} is missing (the item names it in images)"
                problems.append(BankProblem(str(bank_path), None, question.id, message))
                continue
            except OSError as exc:
                message = f"cannot read picture {shown}: {exc}"
                problems.append(BankProblem(str(bank_path), None, question.id, message))
                continue
            if picture_kind(data) is None:
                message = f"{shown} is not a PNG, JPEG, GIF or WebP picture"
                problems.append(BankProblem(str(bank_path), None, question.id, message))
                continue
            images[name] = BankImage(name, data)
    if problems:
        return None, problems
    return replace(bank, images=tuple(images.values())), []


def write_images(images: tuple[BankImage, ...], bank_path: str | Path) -> Path | None:
    """Write `images` into the folder beside the bank file at `bank_path` (None: there are none)."""
    if not images:
        return None
    folder = image_dir(bank_path)
    folder.mkdir(parents=True, exist_ok=True)
    for image in images:
        (folder / image.name).write_bytes(image.data)
    return folder

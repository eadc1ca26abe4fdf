"""Pictures a reader found in a paper: each one goes with the item it belongs to (the item
whose text comes before it) and is kept in the bank (`images:`, the files in `<bank>.images/`,
docs/bank-format.md). A picture before the first item, or one whose bytes the reader could not
take (an embedded object, a picture linked from outside the file), is a warning naming its
place, never a silent loss."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bank.images import MAX_IMAGE_BYTES

from .base import Draft, PaperDraft
from .report import Report

__all__ = ["Picture", "as_web_picture", "keep", "keep_images"]

log = logging.getLogger(__name__)

# Pictures of more pixels than this are not decoded (as in pdf.py).
_MAX_PIXELS = 40_000_000
# What a chat shows as it is; any other picture format (BMP, TIFF, EMF...) is made a PNG.
_KEPT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True, slots=True)
class Picture:
    """One picture of the source: the 1-based line of the text it follows (0: before the first
    line), and its bytes with their extension (None: the reader could not take them)."""

    line: int
    data: bytes | None = None
    ext: str = "png"


def as_web_picture(data: bytes, content_type: str = "") -> tuple[bytes, str] | None:
    """The bytes and extension of a picture every chat shows: PNG, JPEG, GIF and WebP as they
    are, anything Pillow reads made a PNG; None for what it cannot read (a vector EMF)."""
    if content_type in _KEPT:
        return data, _KEPT[content_type]
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > _MAX_PIXELS:  # a decompression bomb, or a poster
                return None
            out = io.BytesIO()
            image.save(out, format="PNG")
            return out.getvalue(), "png"
    except Exception as exc:  # Pillow raises many kinds for what it cannot read
        log.info("a picture Pillow cannot read (%s): %r", content_type or "?", exc)
        return None


def _line(where: str) -> int:
    head = where.split(":", 1)[0]
    return int(head) if head.isdigit() else 0


def keep_images(
    paper: PaperDraft, pictures: list[Picture], report: Report, place: Callable[[int], str]
) -> None:
    """Each picture added to its item's draft (Draft.pictures); a warning for one that goes with
    no item or has no bytes. `place(line)` is how a line's place is written."""
    starts = sorted(((_line(draft.where), index) for index, draft in enumerate(paper.drafts)))
    for picture in pictures:
        owner: Draft | None = None
        for start, index in starts:
            if start > max(picture.line, 1):
                break
            owner = paper.drafts[index]
        keep(owner, picture, report, place(max(picture.line, 1)))


def keep(owner: Draft | None, picture: Picture, report: Report, where: str) -> None:
    """The picture added to `owner`'s pictures; a warning at `where` when it has no item, no
    bytes, or too many of them."""
    if owner is not None and picture.data is not None and len(picture.data) > MAX_IMAGE_BYTES:
        report.warn("image", "import.image_too_big", where, owner.number,
                    size=f"{len(picture.data) / 2**20:.1f}", limit=f"{MAX_IMAGE_BYTES / 2**20:.0f}")
    elif owner is not None and picture.data is not None:
        owner.pictures.append((picture.data, picture.ext))
    else:
        report.warn("image", "import.image_dropped", where, None if owner is None else owner.number)

"""The fonts PDFium measures a PDF's text with: the CJK font the install brings, not the machine's.

A PDF may name a font it does not embed: Adobe's STSong-Light, as reportlab and many Chinese PDF
writers set Chinese, is the common case. PDFium then asks its "system font info" for a
substitute and takes every character's box from that font's glyph. Its own font info on Linux
scans the font folders (/usr/share/fonts, /usr/share/X11/fonts, /usr/local/share/fonts; it does
not use fontconfig, so FONTCONFIG_FILE changes nothing for it). On a machine without a CJK font
(a fresh server, a slim Docker image) it finds none, falls back to its built-in Latin fonts, and
every Chinese character gets a box of height 0 on the baseline: the advances (the PDF's own
widths) stay right, but the rows, spacing and columns the reader (pdf.py) builds from the boxes
come out wrong.

So studybot gives PDFium its own font info (FPDF_SetSystemFontInfo) holding one font: the Noto
Sans CJK collection of the `noto-cjk-sans-otc` package, a dependency every install has. A font
asked for in a CJK character set gets the collection's face for it (simplified Chinese, traditional
Chinese, Japanese, Korean); anything else gets PDFium's built-in fonts, as on a machine with no
fonts (Helvetica, Times, Courier and the other standard fonts are built in anyway). Reading a PDF
then gives the same text on every machine, whatever fonts it has, and PDFium opens none of the
machine's font folders. The font file is read from disk when PDFium asks for it (once for each
document that needs it, about 3 ms: PDFium frees it with the document), never kept by Python.

`install` must be called with PDFium's lock held (pdf.py's), before a document is read.
"""

from __future__ import annotations

import ctypes
import struct
from functools import cache
from pathlib import Path
from typing import Any

import noto_cjk_sans_otc

__all__ = ["CJK_FILE", "install"]

CJK_FILE = Path(str(noto_cjk_sans_otc.FONT_PATH))
_TTCF = int.from_bytes(b"ttcf", "big")  # the table tag PDFium asks a collection's whole file by
# PDFium's character sets (FX_Charset) -> the face of the collection for it
_FACES = {
    134: "Noto Sans CJK SC",  # GB2312: simplified Chinese (Adobe-GB1, STSong-Light)
    136: "Noto Sans CJK TC",  # Big5: traditional Chinese (Adobe-CNS1, MSung-Light)
    128: "Noto Sans CJK JP",  # Shift-JIS (Adobe-Japan1)
    129: "Noto Sans CJK KR",  # Hangul (Adobe-Korea1)
}
_NAMES = [name.encode() for name in _FACES.values()]
# What stays alive while PDFium holds pointers into it: the struct and its callbacks.
_INSTALLED: list[Any] = []


@cache
def _offsets() -> tuple[int, dict[bytes, int]]:
    """The collection's size and the offset of each face's table directory, by family name."""
    with CJK_FILE.open("rb") as file:
        head = file.read(12)
        count = struct.unpack(">I", head[8:12])[0]
        offsets = struct.unpack(f">{count}I", file.read(4 * count))
        names: dict[bytes, int] = {}
        for offset in offsets:
            name = _family(file, offset)
            names.setdefault(name, offset)  # the Mono faces come after the proportional ones
        size = file.seek(0, 2)
    return size, names


def _family(file: Any, offset: int) -> bytes:
    """The family name (name ID 1, Windows Unicode) of the face whose directory is at `offset`."""
    file.seek(offset + 4)
    tables = struct.unpack(">H", file.read(2))[0]
    file.seek(offset + 12)
    for _ in range(tables):
        tag, _checksum, start, _length = struct.unpack(">4sIII", file.read(16))
        if tag == b"name":
            file.seek(start)
            _format, records, strings = struct.unpack(">HHH", file.read(6))
            for _ in range(records):
                platform, _encoding, _language, name_id, length, at = struct.unpack(">6H", file.read(12))
                if platform == 3 and name_id == 1:
                    file.seek(start + strings + at)
                    return file.read(length).decode("utf-16-be").encode()
    return b""


def _fill(buffer: Any, size: int, start: int) -> None:
    """Read up to `size` bytes of the font file from `start` into PDFium's buffer."""
    if not buffer or not size:
        return
    target = (ctypes.c_ubyte * size).from_address(ctypes.addressof(buffer.contents))
    with CJK_FILE.open("rb") as file:
        file.seek(start)
        file.readinto(memoryview(target).cast("B"))


def install(pdfium_c: Any) -> None:
    """Make PDFium substitute the packaged CJK faces for the CJK fonts a PDF does not embed (once a
    process; PDFium must be initialised, which importing pypdfium2 does)."""
    if _INSTALLED:
        return
    info = pdfium_c.FPDF_SYSFONTINFO()
    info.version = 1  # version 1 has EnumFonts: the list of fonts PDFium may choose from

    # Handles are 1 + the face's index in _NAMES (PDFium treats a null handle as "no font").
    # A callback must not raise (ctypes would print the error and return 0), so every one checks
    # the handle it is given.
    def handle_of(name: bytes) -> int | None:
        return _NAMES.index(name) + 1 if name in _NAMES else None

    def face_of(handle: int | None) -> bytes | None:
        return _NAMES[handle - 1] if handle and 0 < handle <= len(_NAMES) else None

    def release(_info: Any) -> None:
        pass  # nothing to free: the struct lives as long as the process

    def enum_fonts(_info: Any, mapper: Any) -> None:
        for charset, name in _FACES.items():
            pdfium_c.FPDF_AddInstalledFont(mapper, name.encode(), charset)

    def map_font(_info: Any, _weight: int, _italic: int, charset: int, _pitch: int, _face: Any,
                 _exact: Any) -> int | None:  # fmt: skip
        name = _FACES.get(charset)
        return handle_of(name.encode()) if name else None  # None: PDFium's built-in fonts

    def get_font(_info: Any, face: Any) -> int | None:
        return handle_of(ctypes.string_at(face)) if face else None

    def get_font_data(_info: Any, handle: Any, table: int, buffer: Any, size: int) -> int:
        # A face of a collection, as PDFium reads one: "ttcf" is the whole file, table 0 the file
        # from the face's table directory on (PDFium finds the face's index from that size).
        face = face_of(handle)
        if face is None:
            return 0
        try:
            total, offsets = _offsets()
            start = offsets[face]
            if table == _TTCF:
                _fill(buffer, min(size, total), 0)
                return total
            if table == 0:
                return total - start  # PDFium reads the collection through "ttcf"
            return 0  # single tables are never asked for a collection
        except (OSError, KeyError, ValueError, struct.error):
            return 0  # no font: PDFium falls back to its built-in ones

    def get_face_name(_info: Any, handle: Any, buffer: Any, size: int) -> int:
        face = face_of(handle)
        if face is None:
            return 0
        name = face + b"\0"
        if buffer and size >= len(name):
            ctypes.memmove(buffer, name, len(name))
        return len(name)

    def get_font_charset(_info: Any, handle: Any) -> int:
        return list(_FACES)[_NAMES.index(face)] if (face := face_of(handle)) else 0

    def delete_font(_info: Any, _handle: Any) -> None:
        pass  # handles are indices, nothing was allocated

    callbacks = {
        "Release": release, "EnumFonts": enum_fonts, "MapFont": map_font, "GetFont": get_font,
        "GetFontData": get_font_data, "GetFaceName": get_face_name,
        "GetFontCharset": get_font_charset, "DeleteFont": delete_font,
    }  # fmt: skip
    for name, callback in callbacks.items():
        c_callback = type(getattr(info, name))(callback)
        setattr(info, name, c_callback)
        _INSTALLED.append(c_callback)
    _INSTALLED.append(info)
    pdfium_c.FPDF_SetSystemFontInfo(ctypes.byref(info))

"""Problems found in a person's file (an uploaded bank, a source for `studybot bank import`), kept
as a catalog key with its parameters and its place, so that each chat and the CLI read them in
their own language; and the system's reasons for a file that cannot be opened (`OSError`), as
catalog sentences instead of the C library's English.

A place (`where`) is kept as the importer writes it — `12:3` (line:column), `cell C3`,
`paragraph 4, col 2`, `table 1 row 2 cell 3`, `note 5`, `table 2`, `page 2 line 7, col 3`, `page 3` — and
translated when shown.
A parameter that is itself a sentence of ours (a question type's name, a list of the formats) is
a `Term`, translated with the rest.
"""

from __future__ import annotations

import errno as errno_codes
import re
from dataclasses import dataclass

from bot.locales.i18n import t

__all__ = ["FileProblem", "Term", "os_error_text", "place_text"]


@dataclass(frozen=True, slots=True)
class Term:
    """A parameter that is a catalog sentence too (`Term("type.single")`)."""

    key: str
    params: tuple[tuple[str, object], ...] = ()

    def text(self, language: str) -> str:
        return t(language, self.key, **_filled(language, self.params))


def _filled(language: str, params: tuple[tuple[str, object], ...]) -> dict[str, object]:
    return {name: value.text(language) if isinstance(value, Term) else value for name, value in params}


@dataclass(frozen=True, slots=True)
class FileProblem:
    """One thing found in a file: `kind` a short code (truncated, no-answer, csv, zip…), `key`
    the catalog sentence with `params`, `where` its place, `number` the item concerned."""

    kind: str
    key: str
    params: tuple[tuple[str, object], ...] = ()
    where: str = ""
    number: int | None = None

    def text(self, language: str) -> str:
        """The sentence alone, in `language`."""
        return t(language, self.key, **_filled(language, self.params))

    @property
    def message(self) -> str:
        """The sentence in English (for logs and tests)."""
        return self.text("en")

    def line(self, language: str) -> str:
        """Place, item and sentence as one line; English lines also carry the kind code."""
        head = []
        if self.where:
            head.append(place_text(language, self.where))
        if self.number is not None:
            head.append(t(language, "file.item", number=self.number))
        tag = f"[{self.kind}] " if language == "en" and self.kind else ""
        body = tag + self.text(language)
        return t(language, "file.at", place=" ".join(head), text=body) if head else body

    def __str__(self) -> str:
        return self.line("en")


_PLACES = (
    (re.compile(r"(\d+):(\d+)"), "file.place.line", ("line", "col")),
    (re.compile(r"(\d+)"), "file.place.line_only", ("line",)),
    (re.compile(r"cell ([A-Z]+\d+)"), "file.place.cell", ("cell",)),
    (re.compile(r"row (\d+)"), "file.place.row", ("row",)),
    (re.compile(r"note (\d+)"), "file.place.note", ("note",)),
    (re.compile(r"paragraph (\d+)"), "file.place.paragraph", ("paragraph",)),
    (re.compile(r"table (\d+)"), "file.place.table", ("table",)),
    (re.compile(r"table (\d+) row (\d+) cell (\d+)"), "file.place.table_cell", ("table", "row", "cell")),
    (re.compile(r"table (\d+) row (\d+)"), "file.place.table_row", ("table", "row")),
    (re.compile(r"page (\d+) line (\d+)"), "file.place.page_line", ("page", "line")),
    (re.compile(r"page (\d+)"), "file.place.page", ("page",)),
)
_COLUMN = re.compile(r"(.*), col (\d+)")


def place_text(language: str, where: str) -> str:
    """A place as the importer writes it, in `language`; a place of another shape as it is."""
    column = _COLUMN.fullmatch(where)
    if column is not None:
        return t(language, "file.place.with_col", place=place_text(language, column.group(1)),
                 col=column.group(2))  # fmt: skip
    for pattern, key, names in _PLACES:
        match = pattern.fullmatch(where)
        if match is not None:
            return t(language, key, **dict(zip(names, match.groups(), strict=True)))
    return where


# errno → catalog key; any other reason is told as "the system refused (errno NAME)".
_OS_ERRORS = {
    errno_codes.ENOENT: "oserror.not_found",
    errno_codes.EACCES: "oserror.denied",
    errno_codes.EPERM: "oserror.denied",
    errno_codes.EISDIR: "oserror.is_directory",
    errno_codes.ENOTDIR: "oserror.not_directory",
    errno_codes.ENAMETOOLONG: "oserror.name_too_long",
    errno_codes.ELOOP: "oserror.loop",
    errno_codes.ENOSPC: "oserror.no_space",
    errno_codes.EROFS: "oserror.read_only",
    errno_codes.EIO: "oserror.io",
    errno_codes.EMFILE: "oserror.too_many_open",
    errno_codes.ENFILE: "oserror.too_many_open",
    errno_codes.EFBIG: "oserror.too_big",
    errno_codes.EINVAL: "oserror.invalid",
    errno_codes.EEXIST: "oserror.exists",
    errno_codes.ENOTEMPTY: "oserror.not_empty",
    errno_codes.EBUSY: "oserror.busy",
}


def os_error_text(language: str, exc: BaseException) -> str:
    """Why the system could not open, read or write a file, as a sentence in `language`."""
    code = getattr(exc, "errno", None)
    key = _OS_ERRORS.get(code) if isinstance(code, int) else None
    if key is not None:
        return t(language, key)
    if isinstance(exc, TimeoutError):
        return t(language, "oserror.timeout")
    if isinstance(code, int):
        return t(language, "oserror.other", code=code)
    # A platform's download failing is an OSError without errno: `HTTP 404` (adapters/discord)
    status = _HTTP_STATUS.fullmatch(str(exc))
    if status is not None:
        return t(language, "oserror.download", status=status.group(1))
    return t(language, "oserror.unknown")


_HTTP_STATUS = re.compile(r"HTTP (\d{3})")

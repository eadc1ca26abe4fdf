"""Files a reply carries (a chart, an export), written where the console's person can open them:
the data directory, under the file's own name: an export never over an earlier file, the /stats
chart (a `latest` file) over the last one, so one `progress.png` always shows how things stand;
and files a command names (`/bank import PATH`), opened from this machine."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from bot.application.attachments import Attachment
from bot.application.replies import FileView


def save_file(directory: Path, attachment: FileView) -> Path:
    """Write the file into `directory` and return its path; a name already taken gets -2, -3…,
    unless the file is the `latest` of its name: then it replaces the one there."""
    directory.mkdir(parents=True, exist_ok=True)
    name = Path(attachment.filename).name or "file"  # no directories from the name
    path = directory / name
    if attachment.latest:
        # Written beside it, then renamed over it: a viewer never opens half a picture.
        part = path.with_name(f".{name}.part")
        part.write_bytes(attachment.data)
        os.replace(part, path)
        return path.resolve()
    number = 1
    while True:
        try:
            with path.open("xb") as out:
                out.write(attachment.data)
            return path.resolve()
        except FileExistsError:
            number += 1
            path = directory / f"{Path(name).stem}-{number}{Path(name).suffix}"


def open_file(word: str) -> Attachment:
    """The file a command's FILE argument names (`~` expanded), read only when the use case asks;
    a missing or unreadable file fails then, with the system's reason."""
    path = Path(word.strip().strip("'\"")).expanduser()
    try:
        size = path.stat().st_size
    except OSError:
        size = 0

    async def fetch() -> bytes:
        return await asyncio.to_thread(path.read_bytes)

    return Attachment(path.name or word, size, fetch)

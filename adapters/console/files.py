"""Files a reply carries (a chart, an export), written where the console's person can open them:
the data directory, under the file's own name, never over an earlier file."""

from __future__ import annotations

from pathlib import Path

from bot.application import FileView


def save_file(directory: Path, attachment: FileView) -> Path:
    """Write the file into `directory` and return its path; a name already taken gets -2, -3…"""
    directory.mkdir(parents=True, exist_ok=True)
    name = Path(attachment.filename).name or "file"  # no directories from the name
    path = directory / name
    number = 1
    while True:
        try:
            with path.open("xb") as out:
                out.write(attachment.data)
            return path.resolve()
        except FileExistsError:
            number += 1
            path = directory / f"{Path(name).stem}-{number}{Path(name).suffix}"

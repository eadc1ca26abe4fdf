"""Files that come with a command (a bank to import): what a platform hands over, read lazily.

Telegram passes a document, Discord an attachment option, the console a path on this machine.
Each becomes an `Attachment` whose size is known before its bytes are fetched, so a file over a
limit, or sent by someone not allowed to run the command, is refused without downloading it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from bot.application.commands.arguments import ArgKind
from bot.application.commands.parsing import Parsed


@dataclass(frozen=True, slots=True)
class Attachment:
    filename: str
    size: int  # bytes, as the platform reports it (checked again once fetched)
    fetch: Callable[[], Awaitable[bytes]] = field(repr=False, compare=False)

    @classmethod
    def of_bytes(cls, filename: str, data: bytes) -> Attachment:
        """An attachment whose bytes are already at hand (Discord's `Attachment.read()`)."""

        async def fetch() -> bytes:
            return data

        return cls(filename, len(data), fetch)


# What a text platform's FILE argument word names (the console: a path), made an Attachment.
OpenFile = Callable[[str], Attachment]


def attach(parsed: Parsed, attachment: Attachment | None, open_file: OpenFile | None = None) -> Parsed:
    """`parsed` with its FILE arguments filled: the platform's attachment, else (on a text
    platform) the word typed for it opened by `open_file`. A word with no way to open it is
    dropped, so the use case says how to send a file."""
    args = dict(parsed.args)
    for arg in parsed.command.args:
        if arg.kind is not ArgKind.FILE:
            continue
        value = args.get(arg.name)
        if attachment is not None:
            args[arg.name] = attachment
            attachment = None
        elif isinstance(value, str):
            if open_file is not None:
                args[arg.name] = open_file(value)
            else:
                del args[arg.name]
    return replace(parsed, args=args)

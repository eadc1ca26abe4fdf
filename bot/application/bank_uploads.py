"""Banks uploaded in a chat: `/bank import` with a file reads it into a pending bank and shows
what was found; `/bank confirm` makes it a bank of the group (Telegram) or server (Discord),
kept in the database and chosen for the chat at once. Also `/bank list` and `/bank use`, which
see the configured banks plus the uploaded banks of the caller's group or server only.

An uploaded bank's id is `up-<owner hash>-<name>`, the name made from the file name, so a
re-upload of the same file name to the same group replaces that bank and keeps its id; its
questions' ids come from their content (bank/uploads.py), so progress and reports on unchanged
questions survive an edit. A refused file changes nothing; a pending upload expires. The upload
waiting for `/bank confirm` is kept in the database (one per chat, compiled), not in this
process's memory: it survives a restart, and a confirm that reaches another process finds it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol

from bot.application.app import Handler, no_handler
from bot.application.attachments import Attachment
from bot.application.commands.catalog import UploadUseCase
from bot.application.quiz_settings import QuizError
from bot.application.replies import Reply, TextView
from bot.application.requests import Caller
from bot.domain.file_problems import FileProblem, os_error_text
from bot.domain.kinds import ChatRef
from bot.domain.questions import Bank
from bot.domain.records import StoredBank
from bot.locales.i18n import bank_text, t
from bot.ports.broadcast import RESYNC, Broadcast
from bot.ports.storage import UploadedBankStore

if TYPE_CHECKING:
    from bot.application.commands.parsing import Parsed
    from bot.application.quiz import Quiz

log = logging.getLogger("studybot.uploads")

DEFAULT_MAX_BYTES = 5 * 1024 * 1024
PENDING_MINUTES = 15
PROBLEMS_SHOWN = 5
_NAME_RE = re.compile(r"[^a-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class ImportedUpload:
    """What the importer made of a file: the bank (None when refused) and its problems, each a
    catalog sentence with its place in the file, shown in the chat's language."""

    bank: Bank | None
    problems: tuple[FileProblem, ...] = ()  # why it was refused
    warnings: tuple[FileProblem, ...] = ()
    notes: tuple[FileProblem, ...] = ()
    format: str = ""  # the reader used: one of the importer's formats (import.format.<name>)
    version: str = ""


class UploadCodec(Protocol):
    """The bank readers (bank/uploads.py), as the core needs them."""

    def read(self, data: bytes, filename: str, bank_id: str, language: str) -> ImportedUpload: ...
    def encode(self, bank: Bank) -> str: ...
    def decode(self, data: str) -> Bank: ...


def owner_of(chat: ChatRef) -> tuple[str, str]:
    """Whose bank an upload becomes: the Discord server, else the chat itself."""
    return str(chat.platform), f"guild:{chat.guild_key}" if chat.guild_key else f"chat:{chat.chat_key}"


def bank_name(filename: str) -> str:
    """The short name of an uploaded bank (what /bank use takes): its file name without the
    extension, lower case, `[a-z0-9_-]`. A name in other letters keeps its ASCII part and adds
    a hash of the whole name, so that `题库.xlsx` and `试卷.xlsx` are two banks, not both `bank`."""
    stem = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    name = _NAME_RE.sub("-", stem.lower()).strip("-_")[:40]
    if stem.isascii():
        return name or "bank"
    digest = hashlib.sha256(stem.strip().encode()).hexdigest()[:6]
    return f"{name[:33] or 'bank'}-{digest}"


def bank_id(owner: tuple[str, str], name: str) -> str:
    digest = hashlib.sha256(":".join(owner).encode()).hexdigest()[:8]
    return f"up-{digest}-{name}"


class BankUploads:
    def __init__(
        self, quiz: Quiz, store: UploadedBankStore, codec: UploadCodec, *,
        max_bytes: int = DEFAULT_MAX_BYTES, pending_minutes: float = PENDING_MINUTES,
    ) -> None:  # fmt: skip
        self.quiz = quiz
        self.store = store
        self.codec = codec
        self.max_bytes = max_bytes
        self.pending_for = timedelta(minutes=pending_minutes)
        self._owners: dict[str, tuple[str, str]] = {}  # uploaded bank id → its owner
        self._names: dict[str, str] = {}  # uploaded bank id → its short name
        self.uploaded: dict[str, StoredBank] = {}  # uploaded bank id → its record (without its data)
        self.broadcast: Broadcast | None = None

    def share(self, broadcast: Broadcast) -> None:
        """Load the banks other processes on the database confirm, as they confirm them."""
        self.broadcast = broadcast
        broadcast.subscribe("bank", self._reload)
        broadcast.subscribe(RESYNC, self._reload)

    async def _reload(self, _key: str) -> None:
        await self.load()

    async def load(self) -> int:
        """Put the stored uploaded banks beside the configured ones (at start-up); a stored bank
        that cannot be read any more is logged and left out. Returns how many were loaded."""
        loaded = 0
        for stored in await self.store.stored_banks():
            try:
                bank = await asyncio.to_thread(self.codec.decode, stored.data)
            except Exception:  # an older compiled format: the group uploads it again
                log.exception("uploaded bank %s could not be read; left out", stored.id)
                continue
            self._add(stored, bank)
            loaded += 1
        return loaded

    def _add(self, stored: StoredBank, bank: Bank) -> None:
        self.quiz.banks[stored.id] = bank
        self._owners[stored.id] = (stored.platform, stored.owner_key)
        self._names[stored.id] = stored.name
        self.uploaded[stored.id] = replace(stored, data="")  # who uploaded it, where (bank_owners.py)

    def visible(self, chat: ChatRef) -> list[tuple[str, Bank]]:
        """(name, bank) of the banks the chat may use: configured ones, then its own uploads."""
        owner = owner_of(chat)
        configured = [(b.id, b) for b in self.quiz.banks.values() if b.id not in self._owners]
        own = [(self._names[b.id], b) for b in self.quiz.banks.values() if self._owners.get(b.id) == owner]
        return sorted(configured, key=lambda p: p[0]) + sorted(own, key=lambda p: p[0])

    # ------------------------------------------------------------ use cases

    def handler(self, use_case: UploadUseCase, /) -> Handler:
        """The method that carries out `use_case` (every member has its case: mypy checks)."""
        match use_case:
            case UploadUseCase.BANK_LIST:
                return self.bank_list
            case UploadUseCase.BANK_USE:
                return self.bank_use
            case UploadUseCase.BANK_IMPORT:
                return self.bank_import
            case UploadUseCase.BANK_CONFIRM:
                return self.bank_confirm
            case _:
                no_handler(use_case)

    async def bank_import(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        attachment = parsed.args.get("file")
        if not isinstance(attachment, Attachment):
            raise QuizError("upload.no_file")
        limit_mb = _mb(self.max_bytes)
        if attachment.size > self.max_bytes:
            raise QuizError("upload.too_big", filename=attachment.filename,
                            size=_mb(attachment.size), limit=limit_mb)  # fmt: skip
        try:
            data = await attachment.fetch()
        except OSError as exc:  # the system's reason, in the chat's language (not strerror's English)
            detail = os_error_text(language, exc)
            raise QuizError("upload.unreadable", filename=attachment.filename, detail=detail) from None
        if len(data) > self.max_bytes:
            raise QuizError("upload.too_big", filename=attachment.filename,
                            size=_mb(len(data)), limit=limit_mb)  # fmt: skip
        owner = owner_of(caller.chat)
        name = bank_name(attachment.filename)
        new_id = bank_id(owner, name)
        filename, default_language = attachment.filename, self.quiz.settings.language
        imported = await asyncio.to_thread(self.codec.read, data, filename, new_id, default_language)
        if imported.bank is None:
            lines = [t(language, "upload.refused", filename=attachment.filename)]
            lines += _first(language, imported.problems)
            return Reply(TextView("\n".join(lines)), language)
        bank = imported.bank
        pictures = sum(len(image.data) for image in bank.images)
        if pictures > self.max_bytes:  # the stored bank keeps them: bounded as the file was
            raise QuizError("upload.pictures_too_big", filename=attachment.filename, count=len(bank.images),
                            size=_mb(pictures), limit=limit_mb)  # fmt: skip
        user_id = await self.quiz.user_id(caller.user) if caller.user is not None else None
        stored = StoredBank(
            id=new_id, platform=owner[0], owner_key=owner[1], name=name, title=bank.title,
            version=imported.version, questions=len(bank.questions),
            data=await asyncio.to_thread(self.codec.encode, bank),
            uploaded_at=self.quiz.clock.now(), uploaded_by=user_id, uploaded_in=caller.chat.chat_key,
            uploader_key=caller.user.user_key if caller.user is not None else None,
        )  # fmt: skip
        expires = self.quiz.clock.now() + self.pending_for
        await self.store.hold_upload((str(caller.chat.platform), caller.chat.chat_key), stored, expires)
        lines = [t(language, "upload.read", count=len(bank.questions), filename=attachment.filename,
                   format=_format_name(language, imported.format),
                   title=bank_text(language, bank.title))]  # fmt: skip
        if bank.images:
            lines.append(t(language, "upload.pictures", count=len(bank.images)))
        if new_id in self.quiz.banks:
            lines.append(t(language, "upload.replaces", name=name))
        if imported.warnings:
            lines.append(t(language, "upload.warnings", count=len(imported.warnings)))
            lines += _first(language, imported.warnings)
        lines.append(t(language, "upload.confirm_hint", minutes=round(self.pending_for.total_seconds() / 60)))
        return Reply(TextView("\n".join(lines)), language)

    async def bank_confirm(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        key = (str(caller.chat.platform), caller.chat.chat_key)
        async with self.quiz.store.unit_of_work():  # taken and saved together, or still waiting
            stored = await self.store.take_upload(key, self.quiz.clock.now())
            if stored is None:
                minutes = round(self.pending_for.total_seconds() / 60)
                raise QuizError("upload.nothing_pending", minutes=minutes)
            bank = await asyncio.to_thread(self.codec.decode, stored.data)
            await self.store.save_bank(stored)
        self._add(stored, bank)
        if self.broadcast is not None:
            await self.broadcast.publish("bank", stored.id)
        chat = await self.quiz.update_settings(caller.chat, bank_id=stored.id)
        language = chat.settings.language
        text = t(language, "upload.confirmed", count=stored.questions, name=stored.name,
                 title=bank_text(language, stored.title), version=stored.version)  # fmt: skip
        return Reply(TextView(text), language, public=not caller.private)

    async def bank_list(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        current = self.quiz.bank_for(await self.quiz.chat(caller.chat))
        lines = [_using(language, current), ""]
        lines += [t(language, "bank.list_row", id=name, title=bank_text(language, b.title),
                    count=len(b.questions)) for name, b in self.visible(caller.chat)]  # fmt: skip
        return Reply(TextView("\n".join(lines)), language)

    async def bank_use(self, parsed: Parsed, caller: Caller, language: str) -> Reply:
        wanted = str(parsed.args["bank"])
        visible = self.visible(caller.chat)
        chosen = next((b.id for name, b in visible if name == wanted and b.id in self._owners), None)
        chosen = chosen or next((b.id for name, b in visible if name == wanted), None)
        if chosen is None:
            raise QuizError("error.unknown_bank", bank=wanted, banks=", ".join(name for name, _ in visible))
        chat = await self.quiz.update_settings(caller.chat, bank_id=chosen)
        current = self.quiz.bank_for(chat)
        language = chat.settings.language
        return Reply(TextView(_using(language, current)), language, public=not caller.private)


def _using(language: str, bank: Bank) -> str:
    return t(language, "bank.using", title=bank_text(language, bank.title), count=len(bank.questions))


def _mb(size: int) -> str:
    return f"{size / 2**20:.2g}"


def _format_name(language: str, name: str) -> str:
    try:
        return t(language, f"import.format.{name}")
    except KeyError:  # a reader this catalog does not name yet
        return name


def _first(language: str, problems: tuple[FileProblem, ...]) -> list[str]:
    lines = [f"• {p.line(language)}" for p in problems[:PROBLEMS_SHOWN]]
    if len(problems) > PROBLEMS_SHOWN:
        lines.append(t(language, "upload.more", count=len(problems) - PROBLEMS_SHOWN))
    return lines

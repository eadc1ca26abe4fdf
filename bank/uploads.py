"""Banks uploaded in a chat: the importer's readers behind the core's `UploadCodec` port
(bot/application/bank_uploads.py), stable question ids, a content version, and the stored form.

A question's id is derived from its content — a hash of its type and its normalized stem
(NFKC, whitespace removed, case folded) — so an edited re-upload keeps the id of every item
whose stem and type did not change, and answers, the mistake notebook, review cards and reports
made against it stay attached. A second item with the same stem and type gets `-2`, `-3`…
in file order. The bank's version is a hash of its whole content (every question's fields).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import unicodedata
from dataclasses import replace

from bank.compiled import _from_payload, _to_payload
from bank.importer.sources import ImportRefused, import_source
from bot.application.bank_uploads import ImportedUpload
from bot.domain.file_problems import FileProblem
from bot.domain.questions import Bank, BankImage, Question

__all__ = ["UploadCodec", "bank_version", "stable_ids"]

def _stem_key(question: Question) -> str:
    stem = re.sub(r"\s+", "", unicodedata.normalize("NFKC", question.stem)).casefold()
    return f"{question.type.value}\0{stem}"


def stable_ids(bank: Bank) -> Bank:
    """`bank` with every question's id derived from its type and normalized stem."""
    counts: dict[str, int] = {}
    questions = []
    for question in bank.questions:
        digest = hashlib.sha256(_stem_key(question).encode()).hexdigest()[:10]
        counts[digest] = counts.get(digest, 0) + 1
        qid = f"q{digest}" if counts[digest] == 1 else f"q{digest}-{counts[digest]}"
        questions.append(replace(question, id=qid))
    return replace(bank, questions=tuple(questions))


def bank_version(bank: Bank) -> str:
    """A hash of the bank's content: changes with any question's text, answer or order."""
    payload = _to_payload(replace(bank, id="", source=""), [])
    payload["images"] = [[image.name, hashlib.sha256(image.data).hexdigest()] for image in bank.images]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:12]


class UploadCodec:
    """Reads an uploaded file with the same readers as `studybot bank import`, and turns banks
    into the text the database keeps and back."""

    def read(self, data: bytes, filename: str, bank_id: str, language: str) -> ImportedUpload:
        """The bank in the file, or its refusal with the problems (catalog sentences with their
        places, bot/domain/file_problems.py); a damaged file of any format is a refusal, never an
        exception (import_source turns the csv, zip, sqlite, openpyxl and python-docx layers'
        errors into its ImportRefused)."""
        try:
            result = import_source(data, filename, bank_id=bank_id, fallback_language=language,
                                   max_bytes=max(len(data), 1))  # the use case enforced the chat's limit
        except ImportRefused as exc:
            return ImportedUpload(None, problems=(exc.problem,))
        except ValueError:  # a file name that makes no bank id (the use case makes valid ones)
            return ImportedUpload(None, problems=(FileProblem("refused", "import.refused.unreadable"),))
        if not result.ok:
            return ImportedUpload(None, problems=result.errors + result.warnings,
                                  notes=result.notes, format=result.format)
        bank = stable_ids(result.bank)
        if bank.title == bank_id:  # the file gave no title: its name reads better than the id
            bank = replace(bank, title=filename.rsplit("/", 1)[-1].rsplit(".", 1)[0] or bank_id)
        return ImportedUpload(bank, warnings=result.warnings, notes=result.notes, format=result.format,
                              version=bank_version(bank))

    def encode(self, bank: Bank) -> str:
        """The stored form: the compiled bank's JSON, its pictures in it as base64 (the chat's
        upload limit bounds them, as it bounds the file they came in)."""
        payload = _to_payload(bank, [])
        if bank.images:
            payload["images"] = {
                image.name: base64.b64encode(image.data).decode("ascii") for image in bank.images
            }
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))

    def decode(self, data: str) -> Bank:
        payload = json.loads(data)
        bank = _from_payload(payload, "")[0]
        stored = payload.get("images", {})
        images = tuple(BankImage(name, base64.b64decode(text)) for name, text in stored.items())
        return replace(bank, images=images) if images else bank

"""Compiled banks: a bank that passed every check is kept as compact JSON in the data directory,
keyed by the hash of the file's bytes and of the checking code, so a start-up or a `bank check`
with unchanged banks reads that instead of parsing and validating YAML again.

Nothing is trusted but the key: a changed file, a changed schema or checker, a damaged or
missing cache file all mean a full load (whose result is then cached). Without a cache
directory every load is a full one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from bank.checks import BankProblem
from bank.loader import BankError, BankReport, bank_files, build_paper, load_bank_text_report, with_images
from bot.domain.questions import Bank, Erratum, KeyPointMark, Question, QuestionType

__all__ = ["CACHE_DIR_NAME", "default_cache_dir", "load_bank_report_cached", "load_banks"]

log = logging.getLogger(__name__)

CACHE_DIR_NAME = "bank-cache"
_FORMAT = 5
# The code whose verdict is cached: a change to any of these invalidates every entry.
_CHECKER_FILES = ("schema.json", "schema.py", "checks.py", "answers.py", "loader.py", "fast_load.py",
                  "yaml_io.py", "compiled.py")
# The question types' rules (answer forms, keys, schema parts) decide validity too.
_TYPE_DIR = Path(__file__).parent.parent / "bot" / "domain" / "question_types"


@cache
def _checker_digest() -> bytes:
    here = Path(__file__).parent
    digest = hashlib.sha256(str(_FORMAT).encode())
    for name in _CHECKER_FILES:
        digest.update((here / name).read_bytes())
    for path in sorted(_TYPE_DIR.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.digest()


def default_cache_dir() -> Path | None:
    """`<data dir>/bank-cache` as the bot's configuration gives it (STUDYBOT_DATA_DIR...)."""
    try:
        from studybot.config import load_config

        return load_config().data_dir / CACHE_DIR_NAME
    except Exception:  # no usable configuration: no cache, every load a full one
        return None


def _entry(cache_dir: Path, path: Path, data: bytes) -> tuple[Path, str]:
    """The cache file for these bytes at this path, and the prefix all of this path's use."""
    where = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    key = hashlib.sha256(_checker_digest() + data).hexdigest()[:32]
    return cache_dir / f"{where}-{key}.json", f"{where}-"


def _to_payload(bank: Bank, warnings: list[BankProblem]) -> dict[str, Any]:
    payload = {
        "format": _FORMAT,
        "bank": [bank.id, bank.title, bank.language, bank.source],
        "questions": [
            [q.id, q.number, q.type.value, q.stem, list(q.answer), q.points,
             [list(o) for o in q.options], q.explanation, list(q.tags), list(q.key_points),
             [[e.field, e.was, e.now, e.why] for e in q.errata], q.completed_by_editor,
             q.tolerance, q.doubt, [[list(m.words), m.share] for m in q.key_point_marks],
             list(q.images)]
            for q in bank.questions
        ],
        "warnings": [[w.line, w.question_id, w.message] for w in warnings],
        "paper": None if bank.paper is None else {
            "sections": [{"type": s.type.value, "count": s.count, "points": s.points}
                         for s in bank.paper.sections],
            "minutes": bank.paper.minutes, "pass_mark": bank.paper.pass_mark,
        },
    }
    if bank.tag_names:  # only then: a bank without names keeps its version hash (bank/uploads.py)
        payload["tag_names"] = [list(pair) for pair in bank.tag_names]
    return payload


def _from_payload(payload: dict[str, Any], filename: str) -> tuple[Bank, list[BankProblem]]:
    # Format 4 (before pictures) is still read: banks uploaded in a chat are kept in this form.
    if payload.get("format") not in (4, _FORMAT):
        raise ValueError("another cache format")
    questions = tuple(
        Question(id=qid, number=number, type=QuestionType(kind), stem=stem,
                 answer=tuple(answer), points=points,
                 options=tuple((letter, text) for letter, text in options),
                 explanation=explanation, tags=tuple(tags), key_points=tuple(key_points),
                 errata=tuple(Erratum(*e) for e in errata), completed_by_editor=completed,
                 tolerance=tolerance, doubt=doubt,
                 key_point_marks=tuple(KeyPointMark(tuple(w), share) for w, share in marks),
                 images=tuple(images))
        for (qid, number, kind, stem, answer, points, options, explanation, tags, key_points,
             errata, completed, tolerance, doubt, marks, images) in map(_rows_of_5, payload["questions"])
    )
    bank_id, title, language, source = payload["bank"]
    bank = Bank(bank_id, title, language, source, questions, build_paper(payload.get("paper")),
                tag_names=tuple((slug, name) for slug, name in payload.get("tag_names", ())))
    warnings = [BankProblem(filename, line, qid, message)
                for line, qid, message in payload["warnings"]]
    return bank, warnings


def _rows_of_5(row: list[Any]) -> list[Any]:
    """A question's row in format 5: a format-4 row gains its empty images."""
    return row if len(row) == 16 else [*row, []]


def _write(entry: Path, prefix: str, payload: dict[str, Any]) -> None:
    """Atomically (a reader sees the old entry or the new one, never half), then drop this
    path's older entries."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(payload, out, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, entry)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    for old in entry.parent.glob(f"{prefix}*.json"):
        if old != entry:
            old.unlink(missing_ok=True)


def load_bank_report_cached(path: str | Path, cache_dir: Path | None):
    """`load_bank_report(path)`, from the compiled cache in `cache_dir` when the same bytes were
    loaded before by the same checking code; a full load is cached for next time."""
    path = Path(path)
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return BankReport(None, [BankProblem(str(path), None, None, f"cannot read: {exc}")], [])
    if cache_dir is None:
        return with_images(load_bank_text_report(text, str(path)), path)
    entry, prefix = _entry(cache_dir, path, data)
    try:
        bank, warnings = _from_payload(json.loads(entry.read_bytes()), str(path))
        # The pictures are read every time: the key is the bank file's bytes, not the folder's.
        return with_images(BankReport(bank, [], warnings), path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("compiled bank %s unusable (%s); loading %s in full", entry, exc, path)
    report = load_bank_text_report(text, str(path))
    if report.bank is not None:
        try:
            _write(entry, prefix, _to_payload(report.bank, report.warnings))
        except OSError as exc:
            log.warning("cannot cache compiled bank in %s: %s", cache_dir, exc)
    return with_images(report, path)


def load_banks(dir_or_paths: str | Path | Iterable[str | Path],
               cache_dir: Path | None = None) -> list[Bank]:
    """Every bank named (see bank_files); raises BankError listing the errors of all files,
    including two files with the same bank id. With `cache_dir`, unchanged banks are read
    from their compiled form there (bank/compiled.py)."""
    banks: list[Bank] = []
    problems: list[BankProblem] = []
    first_file: dict[str, str] = {}
    for path in bank_files(dir_or_paths):
        bank, errors, _ = load_bank_report_cached(path, cache_dir)
        problems.extend(errors)
        if bank is not None and bank.id in first_file:
            message = f"bank id {bank.id!r} is also used by {first_file[bank.id]}"
            problems.append(BankProblem(str(path), None, None, message))
        elif bank is not None:
            first_file[bank.id] = str(path)
            banks.append(bank)
    if problems:
        raise BankError(problems)
    return banks

"""Turning a reader's drafts into bank questions, with the checks every format shares:
duplicate options, lost characters, signs of lost minus signs, empty fields.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.domain.question_types import TYPES
from bot.domain.questions import BankImage, KeyPointMark, Question, QuestionType

from .answers import parse_judge, settle
from .base import Draft, PaperDraft
from .clean import CleanText
from .key_points import listed_points
from .report import Report, field_term

__all__ = ["build_questions", "question_id"]

# A `?` that does not end a sentence marks a lost character (docs/bank-format.md, Warnings).
_LOST_RE = re.compile(r"[?？\ufffd]+")
_OK_AFTER_QUESTION = ")）]】」』”’\"'（"
_EXPONENT_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e\d+(?![\w.])")


_TAG_RE = re.compile(r"[a-z0-9-]+")  # as the bank schema has it


def question_id(bank_id: str, number: int) -> str:
    return f"{bank_id}-{number:03d}"


def _field_texts(draft: Draft) -> dict[str, str]:
    texts = {"stem": draft.stem, "answer": draft.answer or "", "explanation": draft.explanation}
    texts.update({f"options.{letter}": text for letter, text in draft.options})
    return texts


def _scan(draft: Draft, doc: CleanText, report: Report) -> None:
    """Lost characters and unsigned exponents, each reported where it stands in the source."""
    texts = _field_texts(draft)
    for name in texts:
        span = draft.spans.get(name)
        raw, base = (doc.text[span[0]:span[1]], span[0]) if span else (texts[name], None)
        for match in _LOST_RE.finditer(raw):
            run = match.group(0)
            after = raw[match.end():match.end() + 1]
            if "\ufffd" not in run and len(run) == 1 and (
                    not after or after.isspace() or after in _OK_AFTER_QUESTION):
                continue
            context = raw[max(match.start() - 8, 0):match.end() + 8].replace("\n", " ").strip()
            where = doc.where(base + match.start()) if base is not None else draft.where
            report.warn("lost-char", "import.build.lost_char", where, draft.number, run=repr(run),
                        field=field_term(name), context=context)
        for match in _EXPONENT_RE.finditer(raw):
            where = doc.where(base + match.start()) if base is not None else draft.where
            report.warn("lost-sign", "import.build.lost_sign", where, draft.number,
                        text=repr(match.group(0)), field=field_term(name))


def _duplicates(draft: Draft, report: Report) -> None:
    seen: dict[str, str] = {}
    for letter, text in draft.options:
        key = re.sub(r"\s+", "", text).casefold()
        if key in seen:
            report.warn("duplicate-option", "import.build.duplicate_option", draft.where, draft.number,
                        first=seen[key], second=letter, text=repr(text))
        else:
            seen[key] = letter


def _judge_pair(draft: Draft) -> bool:
    """Options that are just 正确/错误: a judge item written as a choice."""
    return all(parse_judge(text, loose=False) is not None for _, text in draft.options)


_QID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _picture_names(
    qid: str, pictures: list[tuple[bytes, str]], images: list[BankImage] | None
) -> tuple[str, ...]:
    """The file names of a draft's pictures, `<id>-<n>.<ext>`, each new one's bytes appended to
    `images`; a picture the paper repeats (one logo on every page, one figure for two items)
    keeps the name it was first given, so the bank holds it once."""
    names = []
    for n, (data, ext) in enumerate(pictures, 1):
        known = next((image.name for image in images or () if image.data == data), None)
        if known is None:
            known = f"{qid}-{n}.{ext}"
            if images is not None:
                images.append(BankImage(known, data))
        if known not in names:
            names.append(known)
    return tuple(names)


def _identity(draft: Draft, bank_id: str, used: set[str], report: Report) -> str:
    """The source's own id if it gives a usable one, else `<bank>-<NNN>`."""
    if draft.qid and _QID_RE.fullmatch(draft.qid) and draft.qid not in used:
        return draft.qid
    if draft.qid:
        key = "import.build.id_twice" if draft.qid in used else "import.build.id_bad"
        report.warn("id", key, draft.where, draft.number, id=repr(draft.qid))
    return question_id(bank_id, draft.number)


def _same_item_key(question: Question) -> tuple:
    return (re.sub(r"\s+", "", question.stem).casefold(),
            tuple(re.sub(r"\s+", "", text).casefold() for _, text in question.options))


def build_questions(
    paper: PaperDraft, doc: CleanText, bank_id: str, report: Report,
    duplicates: bool = False, images: list[BankImage] | None = None,
) -> list[Question]:
    """Questions for every usable draft; each unusable one is reported, never dropped silently.
    With `duplicates`, items with the same stem and options as an earlier one are reported.
    A draft's pictures become the question's `images` (`<id>-<n>.<ext>`), their bytes appended
    to `images`. Progress goes to `report.tick` now and then."""
    questions: list[Question] = []
    used: set[str] = set()
    numbers: set[int] = set()
    seen: dict[tuple, Question] = {}
    total = len(paper.drafts)
    for done, draft in enumerate(paper.drafts):
        if done % 500 == 0:
            report.tick("building", done, total)
        _scan(draft, doc, report)
        _duplicates(draft, report)
        settled = ((QuestionType.FILL, draft.alternatives)
                   if draft.alternatives and draft.type_hint is QuestionType.FILL
                   # an answer from a key is judged where the key gives it
                   else settle(replace(draft, where=draft.answer_where) if draft.answer_where else draft,
                               report))
        if settled is None:
            continue
        kind, answer = settled
        if not draft.stem.strip():
            report.warn("empty", "import.build.empty_stem", draft.where, draft.number)
            continue
        options = draft.options if TYPES[kind].takes_options else ()
        stem = draft.stem
        if draft.options and not options and draft.whole_stem and not _judge_pair(draft):
            stem = draft.whole_stem
        letters = [letter for letter, _ in options]
        if letters != [chr(ord("A") + i) for i in range(len(letters))]:
            # An option lost or misread (Aiken's `B.` first): the answer's letters would point
            # at other options than the source meant, so the item is left out.
            report.warn("unplaced", "import.build.option_order", draft.where, draft.number,
                        letters=", ".join(letters))  # fmt: skip
            continue
        empty = [letter for letter, text in options if not text.strip()]
        if empty:
            report.warn("empty", "import.build.empty_options", draft.where, draft.number,
                        letters=", ".join(empty))
            continue
        if not answer or not all(answer):
            report.warn("empty", "import.build.empty_answer", draft.where, draft.number)
            continue
        if draft.number in numbers or draft.number < 1:
            # Two items under one number (a repeated CSV row, a `number` column typed twice)
            # would make `/quiz N` and the ids ambiguous: the later one takes the next free number.
            new = max(numbers, default=0) + 1
            report.warn("number", "import.build.number_twice", draft.where, draft.number, new=new)
            draft.number = new
        numbers.add(draft.number)
        if bad_tags := [tag for tag in draft.tags if not _TAG_RE.fullmatch(tag)]:
            # A tag the checker would refuse (a GIFT comment's `tags=` typed by hand): left out.
            report.warn("tags", "import.table.bad_tags", draft.where, draft.number,
                        tags=", ".join(map(repr, bad_tags)))  # fmt: skip
            draft.tags = tuple(tag for tag in draft.tags if tag not in bad_tags)
        draft.tags = tuple(dict.fromkeys(draft.tags))  # each tag once, as the schema wants
        qid = _identity(draft, bank_id, used, report)
        used.add(qid)
        points: tuple[str, ...] = ()
        marks: tuple[KeyPointMark, ...] = ()
        if "key_points" in TYPES[kind].own_keys and len(answer) == 1:  # 得分点 the paper lists
            reference, points, marks = listed_points(answer[0], draft.explanation)
            answer = (reference,)
        question = Question(
            id=qid, number=draft.number, type=kind,
            stem=stem.strip(), answer=answer, points=draft.points, options=options,
            explanation=draft.explanation.strip(), tags=draft.tags,
            tolerance=draft.tolerance if "tolerance" in TYPES[kind].own_keys else None,
            doubt=draft.doubt.strip(),
            key_points=points, key_point_marks=marks,
            images=_picture_names(qid, draft.pictures, images),
        )
        if duplicates:
            first = seen.setdefault(_same_item_key(question), question)
            if first is not question:
                report.warn("duplicate", "import.build.duplicate", draft.where, draft.number,
                            first=first.number)
        questions.append(question)
    report.tick("building", total, total)
    return questions

"""Reader for Moodle's GIFT format: `::title::` question text `{answers}`, `//` comments,
escapes `\\~ \\= \\# \\{ \\} \\:`. Single choice `{=a ~b}`, weighted multiple answers
`{~%50%a ~%-100%b}`, true/false `{T}` `{FALSE}`, short answer `{=a =b}` (a fill-in with
alternatives), numeric `{#3.5}` `{#3.5:0.1}` `{#1..2}` (a fill-in graded by value, with a
tolerance), general feedback `####…` (the explanation). Essays `{}` carry no answer and are
reported; matching questions likewise.
"""

from __future__ import annotations

import re

from bot.domain.questions import QuestionType

from .base import Draft, PaperDraft
from .clean import CleanText
from .fields import join_lines
from .numbers import finite_number, whole_number
from .report import Report
from .tag_names import TagNames

__all__ = ["GiftReader", "category_title", "escape", "escape_comment", "looks_like_gift"]

_T = QuestionType
_ESCAPABLE = "~=#{}:"
_FILL = "\ue0ff"  # takes the backslash's place, so offsets stay those of the source
_LETTERS = "ABCDEFGH"
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


def looks_like_gift(text: str) -> bool:
    """An answer block opening with one of GIFT's answer marks."""
    return bool(re.search(r"\{[ \t\n]*(?:[=~#]|(?:T|F|TRUE|FALSE)[ \t\n]*[}#])", text))


def escape(text: str) -> str:
    """Text written into GIFT: the special characters escaped."""
    return re.sub(r"([~=#{}:\\])", r"\\\1", text)


def _protect(text: str) -> str:
    """`\\X` -> a private-use stand-in for X plus a filler, same length (`\\n` stands for a
    line break inside a question)."""
    return re.sub(r"\\([~=#{}:\\n])",
                  lambda m: chr(0xE000 + (10 if m.group(1) == "n" else ord(m.group(1)))) + _FILL,
                  text)


def _restore(text: str) -> str:
    out = text.replace(_FILL, "")
    return re.sub("[\ue000-\ue0fe]", lambda m: chr(ord(m.group(0)) - 0xE000), out)


def _uncomment(text: str) -> str:
    """`//` comment lines blanked (same length)."""
    return re.sub(r"(?m)^[ \t]*//.*$", lambda m: " " * len(m.group(0)), text)


# What `bank export --format gift` records that GIFT has no place for; Moodle ignores comments:
# a question's number, type, points and tags, its doubt note, the bank's id, language and tag names.
_META_RE = re.compile(r"(?m)^[ \t]*//[ \t]*studybot:[ \t]*(?!bank\b|tag-name\b)(.*)$")
# A tag's display name, one comment line each: `// studybot: tag-name distributed-training=分布式训练`.
_TAG_NAME_RE = re.compile(r"(?m)^[ \t]*//[ \t]*studybot:[ \t]*tag-name\b[ \t]*(.*)$")
_BANK_RE = re.compile(r"(?m)^[ \t]*//[ \t]*studybot:[ \t]*bank\b(.*)$")
# Moodle writes a category as a path from a context (`$course$/top/Physics`); the bank's title
# is the category's own name.
_CONTEXT_RE = re.compile(r"^(?:\$(?:course|system|module|coursecategory)\$/)?(?:top/)?")


def escape_comment(text: str) -> str:
    """Text kept on one comment line: `\\` and `\n` for a backslash and a line break."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _unescape_comment(text: str) -> str:
    """What `escape_comment` wrote, back."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def category_title(line: str) -> str:
    """The title a `$CATEGORY:` line gives (its last context prefix left out)."""
    return _CONTEXT_RE.sub("", line.split(":", 1)[1].strip(), count=1).strip()


def _apply_meta(draft: Draft, text: str, report: Report) -> None:
    # `doubt=` comes last and takes the rest of the line (escape_comment; `text` is _protect-ed)
    text, _, doubt = text.partition(" doubt=")
    draft.doubt = _restore(doubt).strip()
    meta = dict(part.split("=", 1) for part in text.split() if "=" in part)
    number = whole_number(meta["number"]) if "number" in meta else draft.number
    points = finite_number(meta["points"]) if "points" in meta else draft.points
    if number is None or points is None or points <= 0:
        report.warn("unplaced", "import.gift.bad_comment", draft.where, draft.number, text=repr(text))
    else:
        draft.number, draft.points = number, points
        draft.points_given = "points" in meta
    if meta.get("tags"):
        draft.tags = tuple(meta["tags"].split(","))
    if meta.get("type") == "short" and draft.alternatives:
        draft.type_hint, draft.answer = _T.SHORT, draft.alternatives[0]
        draft.alternatives = None


class GiftReader:
    name = "gift"

    def read(self, doc: CleanText, report: Report) -> PaperDraft:
        raw = _protect(doc.text)
        work = _uncomment(raw)
        drafts: list[Draft] = []
        start = 0
        paper = PaperDraft(drafts)
        if bank := _BANK_RE.search(doc.original):
            recorded = dict(part.split("=", 1) for part in bank.group(1).split() if "=" in part)
            paper.bank_id, paper.language = recorded.get("id", ""), recorded.get("language", "")
        names = TagNames()
        for line in _TAG_NAME_RE.finditer(doc.original):
            where = f"{doc.original.count(chr(10), 0, line.start()) + 1}:1"
            names.add_line(_unescape_comment(line.group(1).strip()), report, where)
        paper.tag_names = names.pairs()
        for blank in [*_BLANK_LINE.finditer(work), None]:
            end = blank.start() if blank else len(work)
            block = work[start:end]
            at = start + len(block) - len(block.lstrip())
            if block.strip() and block.lstrip().startswith("$CATEGORY:"):
                self._category(doc, at, paper, report)
                stop = work.find("\n", at, end)  # a question right under the line is read
                at = end if stop < 0 else stop + len(work[stop:end]) - len(work[stop:end].lstrip())
            if at < end:
                draft = self._question(doc, work, at, end, len(drafts) + 1, report)
                meta = _META_RE.search(raw, start, end)
                if draft is not None and meta:
                    _apply_meta(draft, meta.group(1), report)
                if draft is not None:
                    drafts.append(draft)
            start = blank.end() - 1 if blank else end
        return paper

    def _category(self, doc: CleanText, start: int, paper: PaperDraft, report: Report) -> None:
        """The first `$CATEGORY:` names the bank (its title, as written: the source's own
        characters); a later one is reported, as questions are not sorted into categories."""
        at = doc.source_offset(start)
        line = doc.original[at:].split("\n", 1)[0]
        if paper.title:
            report.warn("unplaced", "import.gift.category", doc.where(start), text=repr(line.strip()[:40]))
        else:
            paper.title = category_title(line)

    def _question(self, doc, work, start, end, number, report) -> Draft | None:
        where = doc.where(start)
        text = work[start:end]
        qid = None
        title = re.match(r"::(.*?)::", text, re.S)
        body_at = start
        if title:
            qid = _restore(title.group(1)).strip() or None
            body_at = start + title.end()
        fmt = re.match(r"\s*\[(?:html|moodle|plain|markdown)\]", work[body_at:end])
        if fmt:
            body_at += fmt.end()
        opening = work.find("{", body_at, end)
        if opening < 0:
            report.warn("no-answer", "import.gift.no_block", where, number, block="{…}")
            return None
        closing = work.find("}", opening + 1, end)
        inner_open = work.find("{", opening + 1, closing if closing >= 0 else end)
        if closing < 0 or inner_open >= 0:
            report.fail("gift", "import.gift.unclosed", doc.where(opening), number, open="{", close="}")
            return None
        after = work[closing + 1:end]
        if "{" in after or "}" in after:
            at = closing + 1 + min(i for i in (after.find("{"), after.find("}")) if i >= 0)
            report.fail("gift", "import.gift.stray_brace", doc.where(at), number, open="{", close="}")
            return None
        rest = after.strip()
        stem = _restore(join_lines(work[body_at:opening] + ("____" + rest if rest else "")))
        draft = Draft(number=number, stem=stem, where=where, qid=qid,
                      spans={"stem": (body_at, opening)})
        content = work[opening + 1:closing]
        general = content.find("####")
        if general >= 0:
            draft.explanation = _restore(content[general + 4:]).strip()
            content = content[:general]
        return self._answers(draft, content, doc, opening + 1, report)

    def _answers(self, draft, content, doc, at, report) -> Draft | None:
        where, number = doc.where(at), draft.number
        bare = content.strip()
        if not bare:
            report.warn("essay", "import.gift.essay", where, number)
            return None
        judge = re.fullmatch(r"(TRUE|FALSE|T|F)\s*((?:#[^#]*)*)", bare)
        if judge:
            self._feedback(judge.group(2), where, number, report)
            draft.type_hint, draft.answer = _T.JUDGE, "true" if judge.group(1)[0] == "T" else "false"
            return draft
        if bare.startswith("#"):
            return self._numeric(draft, bare[1:], where, report)
        items = [(m.group(0)[0], m.start()) for m in re.finditer(r"[=~]", content)]
        lead = content[:items[0][1]] if items else content
        if lead.strip():
            report.warn("unplaced", "import.gift.lead", where, number, text=repr(_restore(lead).strip()[:40]))
        parsed = []
        for i, (mark, pos) in enumerate(items):
            stop = items[i + 1][1] if i + 1 < len(items) else len(content)
            raw = content[pos + 1:stop].strip()
            weight = _WEIGHT.match(raw)
            value = float(weight.group(1)) if weight else (100.0 if mark == "=" else 0.0)
            raw = raw[weight.end():] if weight else raw
            feedback = raw.find("#")
            if feedback >= 0:
                self._feedback(raw[feedback:], where, number, report)
                raw = raw[:feedback]
            if "->" in raw:
                report.warn("matching", "import.gift.matching", where, number)
                return None
            parsed.append((mark, value, _restore(raw).strip()))
        if not parsed:
            report.warn("no-answer", "import.gift.unknown_block", where, number,
                        text=repr(_restore(bare)[:30]))
            return None
        if all(mark == "=" for mark, _, _ in parsed):
            kept = [text for _, value, text in parsed if value >= 100]
            if len(kept) < len(parsed):
                report.warn("weight", "import.gift.partial_short", where, number)
            draft.type_hint = _T.FILL
            draft.alternatives = tuple(dict.fromkeys(kept))
            draft.answer = " | ".join(kept)
            return draft
        if len(parsed) > len(_LETTERS):
            report.warn("no-answer", "import.gift.too_many_options", where, number, count=len(parsed))
            return None
        draft.options = tuple((_LETTERS[i], text) for i, (_, _, text) in enumerate(parsed))
        right = [_LETTERS[i] for i, (_, value, _) in enumerate(parsed) if value > 0]
        weighted = any(mark == "~" and value > 0 for mark, value, _ in parsed)
        partial = [v for _, v, _ in parsed if 0 < v < 100]
        if len(right) == 1 and partial:
            report.warn("weight", "import.gift.one_partial", where, number)
        draft.type_hint = _T.MULTI if weighted and len(right) > 1 else _T.SINGLE
        draft.answer = "".join(right) or None
        return draft

    def _numeric(self, draft, body, where, report) -> Draft | None:
        alternatives, tolerances = [], []
        parts = [p for p in re.split(r"=", body) if p.strip()] if body.lstrip().startswith("=") \
            else [body]
        for part in parts:
            part = part.strip()
            weight = _WEIGHT.match(part)
            if weight and float(weight.group(1)) < 100:
                report.warn("weight", "import.gift.numeric_partial", where, draft.number, answer=repr(part))
                continue
            part = part[weight.end():] if weight else part
            feedback = part.find("#")
            if feedback >= 0:
                self._feedback(part[feedback:], where, draft.number, report)
                part = part[:feedback].strip()
            ranged = re.fullmatch(rf"({_NUMBER})\s*\.\.\s*({_NUMBER})", part)
            plain = re.fullmatch(rf"({_NUMBER})(?:\s*:\s*({_NUMBER}))?", part)
            if ranged:
                low, high = float(ranged.group(1)), float(ranged.group(2))
                alternatives.append(f"{(low + high) / 2:g}")
                tolerances.append(abs(high - low) / 2)
            elif plain:
                alternatives.append(plain.group(1))
                tolerances.append(abs(float(plain.group(2))) if plain.group(2) else 0.0)
            else:
                report.warn("no-answer", "import.gift.numeric_bad", where, draft.number,
                            answer=repr(_restore(part)))
        if not alternatives:
            return None
        if len(set(tolerances)) > 1:
            report.warn("weight", "import.gift.tolerances", where, draft.number,
                        tolerances=", ".join(f"{x:g}" for x in tolerances), largest=f"{max(tolerances):g}")
        draft.type_hint = _T.FILL
        draft.alternatives = tuple(alternatives)
        draft.answer = " | ".join(alternatives)
        draft.tolerance = max(tolerances) or None
        return draft

    def _feedback(self, text, where, number, report) -> None:
        parts = [_restore(p).strip() for p in text.split("#") if p.strip()]
        if parts:
            report.warn("feedback", "import.gift.feedback", where, number, text=repr(parts[0][:30]))

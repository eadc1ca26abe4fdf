"""The application layer's replies as the web client's JSON: a mock exam's views as structured
values (the client draws the item, the answer sheet, the report), everything else as the same
text the chat shows (bot/application/reply_text.py) with its pictures inline.

Every sentence comes from the catalogs in the chat's language; the client adds only the labels
of its own controls (`labels`), also from the catalogs."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from bot.application.answering import (
    AnswerReply,
    FormReply,
    NextReply,
    ReceiptReply,
    SelectionReply,
    TextReply,
)
from bot.application.app import (
    MockConfirmView,
    MockQuestionView,
    MockReportView,
    MockReviewView,
    MockSheetView,
)
from bot.application.replies import Reply, TextView
from bot.application.reply_text import render_reply
from bot.locales.i18n import t
from bot.views.mock_exam_text import provisional_mark
from bot.views.quiz import QuestionView
from bot.views.quiz_text import PLAIN, question_header, render_receipt
from bot.views.study import FavouritesView, MistakesView
from bot.views.study_text import cause_name

LABELS = (
    "title", "tab_mock", "tab_drill", "tab_mistakes", "tab_favorites", "tab_review", "tab_progress",
    "start_mock", "flag", "unflag", "answered", "unanswered", "flagged", "remaining", "hand_in",
    "confirm_all", "confirm", "cancel", "report", "wrong_items", "review_item", "back_to_report",
    "send", "next_question", "answer_placeholder", "error_network", "rate_limited", "sign_in_needed",
    "sign_in_failed", "closed", "drill_random", "drill_sequential", "practise_mistakes",
    "practise_favorites", "review_due", "sheet", "prev", "next", "right_answer", "your_answer", "blank",
    "sign_out", "charts", "back_to_paper", "bad_input", "tab_admin", "resolve", "dismiss",
    "note_placeholder", "all_banks", "orphan_reports", "star", "starred", "export_mistakes",
)  # fmt: skip


# Labels the client fills in itself ({answer}), left as templates.
TEMPLATES = {"your_answer": {"answer": "{answer}"}, "right_answer": {"answer": "{answer}"}}


def labels(language: str) -> dict[str, str]:
    return {key: t(language, f"web.{key}", **TEMPLATES.get(key, {})) for key in LABELS}


def _type_name(language: str, qtype: object) -> str:
    return t(language, f"type.{getattr(qtype, 'value', qtype)}")


def _points(value: float) -> str:
    return f"{value:g}"


def pictures(view: QuestionView | MockQuestionView | MockReviewView) -> list[str]:
    """Where the client fetches the question's pictures (served by the bot: server.py)."""
    return [f"/app/api/picture/{quote(view.bank_id, safe='')}/{quote(name, safe='')}" for name in view.images]


def mock_question(view: MockQuestionView) -> dict[str, Any]:
    lang = view.language
    intro = None
    if view.intro is not None:
        intro = {
            "title": view.intro.title, "minutes": view.intro.minutes, "resumed": view.intro.resumed,
            "total": _points(view.intro.total), "pass_mark": _points(view.intro.pass_mark),
            "sections": [t(lang, "mock.section", qtype=_type_name(lang, q), count=n, points=_points(p))
                         for q, n, p in view.intro.sections],
        }  # fmt: skip
    return {
        "kind": "mock_question", "mock_id": view.mock_id, "number": view.number, "count": view.count,
        "type": _type_name(lang, view.qtype), "input": str(view.input_kind), "points": _points(view.points),
        "stem": view.stem, "options": [list(o) for o in view.options],
        "buttons": [list(b) for b in view.buttons], "chosen": list(view.chosen),
        "response": view.response, "flagged": view.flagged, "remaining": view.remaining, "intro": intro,
        "saved": view.saved, "pictures": pictures(view),
    }  # fmt: skip


def mock_sheet(view: MockSheetView) -> dict[str, Any]:
    lang = view.language
    return {
        "kind": "mock_sheet", "mock_id": view.mock_id, "answered": view.answered, "count": view.count,
        "remaining": view.remaining, "position": view.position,
        "rows": [{"type": _type_name(lang, row.qtype),
                  "items": [{"number": n, "answered": a, "flagged": f} for n, a, f in row.items]}
                 for row in view.rows],
    }  # fmt: skip


def mock_confirm(view: MockConfirmView) -> dict[str, Any]:
    return {
        "kind": "mock_confirm", "mock_id": view.mock_id, "unanswered": list(view.unanswered),
        "count": view.count, "remaining": view.remaining, "position": view.position,
        "text": "\n".join((
            t(view.language, "mock.confirm_title", count=len(view.unanswered), total=view.count),
            t(view.language, "mock.sheet_blank", numbers=", ".join(str(n) for n in view.unanswered)),
        )),
    }  # fmt: skip


def mock_report(view: MockReportView) -> dict[str, Any]:
    lang = view.language
    return {
        "kind": "mock_report", "mock_id": view.mock_id, "score": _points(view.score),
        "total": _points(view.total), "passed": view.passed, "timed_out": view.timed_out,
        "headline": t(lang, "mock.score", score=_points(view.score), total=_points(view.total)),
        "verdict": _verdict(view),
        "sections": [{"type": _type_name(lang, q), "score": _points(s), "total": _points(f),
                      "mark": provisional_mark(view, q)} for q, s, f in view.sections],
        "wrong": [{"number": w.number, "stem": w.stem, "given": w.given, "right": w.right,
                   "explanation": w.explanation} for w in view.wrong],
        "pending": [{"number": p.number, "stem": p.stem, "response": p.response, "reference": p.reference,
                     "key_points": list(p.key_points)} for p in view.pending],
        "pending_text": t(lang, "mock.awaiting_grade", count=len(view.pending)) if view.pending else "",
        "grades": [[k, t(lang, f"button.self_{k}")] for k in ("full", "half", "zero")],
    }  # fmt: skip


def _verdict(view: MockReportView) -> str:
    if view.passed is None:  # short answers wait for a self-grade
        return ""
    key = "mock.passed" if view.passed else "mock.failed"
    return t(view.language, key, pass_mark=_points(view.pass_mark))


def mock_review(view: MockReviewView) -> dict[str, Any]:
    return {
        "kind": "mock_review", "mock_id": view.mock_id, "number": view.number, "count": view.count,
        "stem": view.stem, "options": [list(o) for o in view.options],
        "right_tokens": list(view.right_tokens),
        "given": view.given, "right": view.right, "explanation": view.explanation, "verdict": view.verdict,
        "wrong": list(view.wrong), "pictures": pictures(view), "question": view.question_id,
    }  # fmt: skip


def question(view: QuestionView) -> dict[str, Any]:
    return {
        "kind": "question", "round_id": view.round_id, "input": str(view.input_kind),
        "header": question_header(view), "stem": view.stem,
        "options": [[o.token, o.label, o.text] for o in view.options], "pictures": pictures(view),
        "question": view.question_id, "lead": view.lead,
    }  # fmt: skip


def mistakes(view: MistakesView, starred: frozenset[str]) -> dict[str, Any]:
    """The notebook as the chat lists it (bot/views/study_text.py), each row with its ☆ and
    the web app's own last line instead of the chat's commands."""
    lang = view.language
    if not view.size:
        return {"kind": "mistakes", "header": t(lang, "mistakes.none"), "causes": "", "groups": [], "how": ""}
    causes = ""
    if any(cause for cause, _ in view.causes):
        parts = [t(lang, "mistakes.cause_count", cause=cause_name(lang, c), count=n) for c, n in view.causes]
        causes = t(lang, "mistakes.by_cause", causes=" · ".join(parts))
    groups = []
    for tag, qtype, rows in view.groups:
        items = []
        for row in rows:
            cause = f"[{cause_name(lang, row.cause)}] " if row.cause else ""
            misses = t(lang, "mistakes.misses", count=row.misses)
            items.append({"question": row.question_id, "number": row.number,
                          "starred": row.question_id in starred,
                          "text": f"{row.number}. {cause}{row.stem} {misses}"})  # fmt: skip
        groups.append({"title": f"{tag} · {t(lang, f'type.{qtype}')}", "rows": items})
    return {
        "kind": "mistakes", "causes": causes, "groups": groups, "how": t(lang, "web.mistakes_how"),
        "header": t(lang, "mistakes.header", count=view.size, graduate=view.graduate_after),
    }  # fmt: skip


def favourites(view: FavouritesView, starred: frozenset[str]) -> dict[str, Any]:
    """The favourites, each with its ★ (tapped: ☆, and the row stays to be starred again)."""
    lang = view.language
    if not view.rows:
        return {"kind": "favorites", "header": t(lang, "web.favorites_none"), "rows": []}
    rows = [
        {"question": qid, "number": number, "starred": qid in starred,
         "text": f"{number}. [{t(lang, f'type.{qtype}')}] {stem}"}
        for qid, (number, qtype, stem) in zip(view.ids, view.rows, strict=True)
    ]  # fmt: skip
    return {"kind": "favorites", "header": t(lang, "favorites.header", count=len(view.rows)), "rows": rows}


def reply(reply: Reply) -> dict[str, Any]:
    """Any command's reply: by its view's kind."""
    view = reply.view
    if isinstance(view, MockQuestionView):
        out = mock_question(view)
    elif isinstance(view, MockSheetView):
        out = mock_sheet(view)
    elif isinstance(view, MockConfirmView):
        out = mock_confirm(view)
    elif isinstance(view, MockReportView):
        out = mock_report(view)
    elif isinstance(view, MockReviewView):
        out = mock_review(view)
    elif isinstance(view, QuestionView):
        out = question(view)
    elif isinstance(view, TextView):
        out = {"kind": "text", "text": view.text}
    else:
        out = {"kind": "text", "text": render_reply(reply, PLAIN)}
    images = [
        f"data:image/png;base64,{base64.b64encode(f.data).decode('ascii')}" for f in reply.files if f.image
    ]
    if images:
        out["images"] = images
    return out


def answer(result: AnswerReply) -> dict[str, Any]:
    """A typed answer to a practice question, as the chat would show it."""
    if isinstance(result, NextReply):
        return reply(result.reply)
    if isinstance(result, ReceiptReply):
        lang = result.language
        grades = (
            [[k, t(lang, f"button.self_{k}")] for k in ("full", "half", "zero")]
            if result.awaits_self_grade
            else []
        )
        return {"kind": "receipt", "text": render_receipt(result.receipt, PLAIN), "next": result.offers_next,
                "self_grade": grades}  # fmt: skip
    if isinstance(result, TextReply):
        if isinstance(result.view, MockQuestionView):
            return mock_question(result.view)
        if isinstance(result.view, MockSheetView):
            return mock_sheet(result.view)
        return {"kind": "text", "text": result.text}
    if isinstance(result, SelectionReply | FormReply):
        return {"kind": "text", "text": ""}
    return {"kind": "text", "text": ""}

"""The outbox's payloads as JSON: each post's view, written by kind and read back the same type."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from bot.ports.storage import PostView, post_kind
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView

_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "question": TypeAdapter(QuestionView),
    "reveal": TypeAdapter(RevealView),
    "standings": TypeAdapter(StandingsView),
    "notice": TypeAdapter(Notice),
}


def encode(view: PostView) -> tuple[str, str]:
    """(kind, JSON text) of a view."""
    what = post_kind(view)
    return what, _ADAPTERS[what].dump_json(view).decode()


def decode(what: str, payload: str) -> PostView:
    view: PostView = _ADAPTERS[what].validate_json(payload)
    return view

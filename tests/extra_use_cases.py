"""A use case a test adds beside the catalog's, as a new command would: its own key (a member of
an enum of the test's) and its handler, which `Application.handler` then resolves as it resolves
the catalog's (and, like theirs, when the application is built)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import Enum, auto
from functools import partial

import pytest

from bot.application.app import Application
from bot.application.commands.parsing import Parsed
from bot.application.replies import Reply
from bot.application.requests import Caller


class ExtraUseCase(Enum):
    PING = auto()
    MOCK_EXAM = auto()


def add_handler(
    monkeypatch: pytest.MonkeyPatch,
    use_case: ExtraUseCase,
    handler: Callable[[Application, Parsed, Caller, str], Awaitable[Reply]],
) -> None:
    resolve = Application.handler

    def handler_of(self: Application, key: object) -> object:
        return partial(handler, self) if key is use_case else resolve(self, key)

    monkeypatch.setattr(Application, "handler", handler_of)

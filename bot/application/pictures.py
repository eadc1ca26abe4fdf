"""The pictures a question shows with its stem (Question.images): a question view names them
(its bank and their file names, so that the outbox keeps references, not bytes), and each chat
adapter asks here for the files to send with the question."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.application.replies import FileView
from bot.domain.questions import Bank

__all__ = ["question_pictures"]

log = logging.getLogger(__name__)


def question_pictures(
    banks: Mapping[str, Bank], bank_id: str, names: tuple[str, ...]
) -> tuple[FileView, ...]:
    """The pictures `names` of bank `bank_id`, as image files in order; one the bank no longer
    has (replaced by an upload since the question was owed) is left out, the question still
    shown."""
    if not names:
        return ()
    bank = banks.get(bank_id)
    files = []
    for name in names:
        try:
            data = bank.image(name) if bank is not None else None
        except KeyError:
            data = None
        if data is None:
            log.warning("picture %s of bank %s is gone: the question is shown without it", name, bank_id)
            continue
        files.append(FileView(name, data, image=True))
    return tuple(files)

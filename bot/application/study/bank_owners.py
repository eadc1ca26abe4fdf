"""Who looks after a bank, and so hears of its error reports (纠错) and may close them.

- A configured bank (shipped with studybot, or read from `bank_paths`) is looked after by the
  operators the config names under `admins:` (platform → user ids). They see its reports, from
  every chat, with /reports in their private chat with the bot, and each gets a private notice
  when one is filed.
- A bank uploaded in a chat (/bank import) is looked after by that chat's admins (on Discord,
  the server's: uploads belong to the server): /reports there lists its reports from every chat.
  The admin who uploaded it also sees them in their private chat and gets the private notice
  (the platforms do not list a chat's admins to a bot that is not asked, so the uploader is the
  admin a notice can name).

On the console the person at the terminal runs the bot, and is its operator.

A reporter is never the owner of a bank by reporting in their own private chat (where every
person is that chat's admin): only the owners above see and close reports from other chats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.application.requests import Caller

if TYPE_CHECKING:
    from bot.application.bank_uploads import BankUploads
    from bot.application.quiz import Quiz


@dataclass(frozen=True, slots=True)
class Person:
    """Someone on a platform, by the platform's user id."""

    platform: str
    user_key: str


class BankOwners:
    def __init__(
        self,
        quiz: Quiz,
        operators: tuple[tuple[str, str], ...] = (),
        uploads: BankUploads | None = None,
        *,
        local: frozenset[str] = frozenset(),
    ) -> None:
        self.quiz = quiz
        self.operators = frozenset(Person(p, k) for p, k in operators)
        self.uploads = uploads
        # Platforms whose one user is whoever runs the bot (the console): an operator there.
        self.local = local

    def notified(self, bank_id: str) -> tuple[Person, ...]:
        """Who gets a private notice of a report on the bank: its uploader, or the operators."""
        uploaded = self.uploads.uploaded.get(bank_id) if self.uploads is not None else None
        if uploaded is not None:
            return (Person(uploaded.platform, uploaded.uploader_key),) if uploaded.uploader_key else ()
        return tuple(sorted(self.operators, key=lambda p: (p.platform, p.user_key)))

    def banks_of(self, caller: Caller) -> list[str]:
        """The ids of the banks whose reports the caller looks after from this chat: in their
        private chat, the configured banks (an operator) and the banks they uploaded; as an admin
        of a chat, the banks uploaded there (or in its server)."""
        from bot.application.bank_uploads import owner_of

        uploaded = self.uploads.uploaded if self.uploads is not None else {}
        banks: set[str] = set()
        person = Person(str(caller.user.platform), caller.user.user_key) if caller.user is not None else None
        if caller.private and person is not None:
            if person in self.operators or person.platform in self.local:
                banks |= {bank_id for bank_id in self.quiz.banks if bank_id not in uploaded}
            banks |= {b.id for b in uploaded.values() if Person(b.platform, b.uploader_key or "") == person}
        if caller.admin or caller.private:
            here = owner_of(caller.chat)
            banks |= {b.id for b in uploaded.values() if (b.platform, b.owner_key) == here}
        return sorted(banks)

"""Due work done once, however many processes fire it: each process keeps its own in-memory
timers (APScheduler), and the database decides who does the work.

Every firing has an idempotency key naming what fires and when (`daily:<chat>:<date>`,
`contest:<id>:ask:<position>`, …). `once(key)` claims it inside the unit of work that does the
work, so the claim and the work commit together: the one process whose claim commits does it,
the others skip it, and a process that dies before its commit leaves it to the next.
"""

from __future__ import annotations

from bot.domain.clock import Clock
from bot.ports.storage import FiringStore


class AlreadyFired(Exception):
    """Another process did (or is doing) this firing: roll the unit of work back and skip it."""


class Firings:
    def __init__(
        self, store: FiringStore | None = None, owner: str = "solo", clock: Clock | None = None
    ) -> None:
        self.store = store
        self.owner = owner
        self.clock = clock

    async def once(self, key: str) -> bool:
        """Claim the firing (call inside the unit of work doing it); False: someone else did."""
        if self.store is None or self.clock is None:  # no database to share: alone
            return True
        return await self.store.claim_firing(key, self.owner, self.clock.now())

    async def claim(self, key: str) -> None:
        """As `once`, but raise AlreadyFired instead of returning False."""
        if not await self.once(key):
            raise AlreadyFired(key)

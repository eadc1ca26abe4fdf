"""Group commit: answers arriving together are written in one transaction.

While one batch is being committed, new submissions queue up; when the commit returns, all of
them go out as the next batch. A lone answer is written at once (no timer), a burst becomes a
few large transactions instead of a queue of fsyncs. Each caller is woken only after the
transaction that holds its answer has committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class GroupCommitter(Generic[T, R]):
    def __init__(
        self,
        write: Callable[[Sequence[T]], Awaitable[Sequence[R]]],
        *,
        max_batch: int = 4096,
    ) -> None:
        self._write = write
        self._max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self.batches = 0  # committed transactions, for benchmarks and tests

    @property
    def waiting(self) -> int:
        """Items submitted and not yet written (the batch being committed is not counted)."""
        return len(self._pending)

    async def submit(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._pending:
            batch = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            try:
                results = await self._write([item for item, _ in batch])
            except BaseException as exc:  # every waiter of this batch must learn it failed
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            self.batches += 1
            for (_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    async def flush(self) -> None:
        """Wait until everything submitted so far is committed."""
        while self._drainer is not None and not self._drainer.done():
            await asyncio.shield(self._drainer)

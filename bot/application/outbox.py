"""Posting into chats on the core's own initiative (dailies, reveals, contests): durable, paced, retried.

Every post the bot owes a chat is first written to the database (the outbox table), in the
same unit of work as the state change that causes it, and delivered from there, oldest first
per chat, so the reveal of question 3 always precedes question 4. A post the platform says to
retry later (429, an outage) stays owed and is retried with backoff, honouring Retry-After, for
as long as it takes, and after a restart (`resume()`). It is dropped only when the platform
says the chat is gone (the chat is then paused) or refuses the post for good; a question whose
round closed before it went out is replaced by its reveal (the closing drops it). A contest
question that goes out late (a 429 storm, its chat's process killed) gets its time from its delivery
(`late_questions`, the contests' hook): its round stays open while it is owed. One that fails
QUESTION_ATTEMPTS times in a row for something other than flood control (the platform keeps
failing on it, or refuses it), or is refused outright, is given up: logged once, and the contest
told (`abandoned_questions`), which says so in the chat and moves on; without that it would
stall the contest at that question for good.

Delivery is at least once, not exactly once. A post is marked delivered (`post_delivered`, with
a question's message ref, in one commit) only after the platform accepted it; a crash between
the two (a window of one commit, under a millisecond to a few: benchmarks/fanout.py prints it)
leaves it owed, so the next start sends it again. (A stop is not a crash: it lets the posts
under way be sent and recorded before the platforms are let go, `quiesce()`.) So does a platform
that accepted a post whose answer was lost (a timeout): the retry sends it again. A reveal that
edits its question message is safe: the same edit again changes nothing (Telegram's "message is
not modified" counts as delivered; a Discord edit is a PATCH). So is a new Discord question,
reveal or standings: the adapter gives it a nonce made of the chat and the post, which Discord
enforces for a few minutes, so the second send returns the message the first created (a notice
has none: two may rightly read alike). A new Telegram message (a question, the reveal of a
question never posted, standings, a notice) or a Discord notice may be shown twice, and a
doubled question's first copy keeps its buttons (its clicks still count for the round): the Bot
API takes no idempotency key and cannot be asked whether a message went out, so there is nothing
to check or delete at start-up; sending again is the choice that never abandons what a chat is
owed.

Several processes may deliver from one outbox (docs/scaling.md). One process at a time delivers
to a chat, under a lease in the database that it renews while it works (`renew()`) and gives back
when the chat is owed nothing more; a process that dies leaves its leases to run out, and the
sweep every process runs (`take_over()`) picks up the chats nobody holds. The platform's overall
rate is per bot, not per process, so each process paces at its share (`share()`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.application.keyed_locks import KeyedLocks
from bot.application.store_faults import log_failure
from bot.domain.kinds import ChatRef, RoundKind
from bot.domain.records import Chat, Round
from bot.ports.chat import ChatGone, ChatMoved, ChatPort, PaceLimits, PostRejected, RetryLater
from bot.ports.metrics import NO_METRICS, Metrics
from bot.ports.storage import OutboxStore, PendingPost, PostView, StoreUnavailable
from bot.views.quiz import Notice, QuestionView, RevealView, StandingsView

log = logging.getLogger("studybot.outbox")
PARK = float("inf")  # no platform to post with: kept for the next start
STOPPING = -1.0  # the process is stopping: kept for whoever delivers next
# Seconds a stop waits for the posts under way to be sent and recorded (a platform answers in
# well under one): a bound for one that hangs, short enough that the whole stop fits in the 10 s
# `docker stop` allows before it kills.
SEND_WAIT = 5.0
RESUMERS = 64  # chats resumed at once after a restart
LEASE_SECONDS = 15.0  # a chat's delivery lease; renewed well within it while its process lives
SWEEP_AGE = 5.0  # a post owed this long that nobody delivers is picked up by the sweep
SWEEP_CHATS = 256  # chats taken over per sweep
# A contest question posted later than this after its round opened gets its time from its delivery.
LATE_QUESTION = timedelta(seconds=2)


class Pacer:
    """Admits posts at most `per_second` overall and `per_chat` per `per_chat_window` per chat.

    Posts are admitted one at a time, evenly spaced, so thousands of waiting posts form a queue
    instead of a thundering herd; and a sliding window over the times posts were actually let
    through caps any one second even after the event loop stalled and every slot came due at
    once. `margin` keeps a little under the limit so that jitter between our clock and the
    platform's never pushes a window over.

    The next slot follows the one just used, not the moment the waiter woke: asyncio wakes a
    sleeper a little late every time (0.5-2 ms on a busy loop), and counting from the wake-up
    lost that much of every 20 ms interval, about 5 % of Discord's rate. A wake-up later than a
    whole interval (a stall) is not made up: the sliding window would let it through, but the
    schedule restarts from now.
    """

    def __init__(
        self,
        limits: PaceLimits,
        *,
        margin: float = 0.97,
        monotonic: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limits = limits
        self._interval = 1.0 / (limits.per_second * margin)
        self._per_window = max(1, int(limits.per_second * margin))
        self._margin = margin
        self._chat_window = limits.per_chat_window / margin
        self._monotonic = monotonic
        self._sleep = sleep
        self._next_slot = 0.0
        self._sent: deque[float] = deque()  # admissions in the last second, overall
        self._global = asyncio.Lock()
        self._recent: dict[str, deque[float]] = {}
        self._chat_locks: dict[str, asyncio.Lock] = {}
        self._admitted = 0

    def share(self, processes: int) -> None:
        """Pace at 1/processes of the platform's overall limit (the limit is per bot)."""
        rate = self.limits.per_second * self._margin / max(1, processes)
        self._interval = 1.0 / rate
        self._per_window = max(1, int(rate))

    def _now(self) -> float:
        return self._monotonic() if self._monotonic else asyncio.get_running_loop().time()

    async def _wait_window(self, times: deque[float], limit: int, window: float) -> None:
        while True:
            now = self._now()
            # A tolerance, so float rounding never leaves a wait too small to move the clock.
            while times and times[0] + window - now <= 1e-6:
                times.popleft()
            if len(times) < limit:
                return
            await self._sleep(times[0] + window - now)

    async def acquire(self, chat_key: str) -> None:
        lock = self._chat_locks.get(chat_key)
        if lock is None:
            lock = self._chat_locks[chat_key] = asyncio.Lock()
        async with lock:
            recent = self._recent.setdefault(chat_key, deque())
            await self._wait_window(recent, self.limits.per_chat, self._chat_window)
            async with self._global:
                now = self._now()
                slot = max(now, self._next_slot)
                if slot > now:
                    await self._sleep(slot - now)
                await self._wait_window(self._sent, self._per_window, 1.0)
                now = self._now()
                self._next_slot = max(slot, now - self._interval) + self._interval
                self._sent.append(now)
            recent.append(now)
        self._admitted += 1
        if self._admitted % 1024 == 0 and len(self._recent) > 1024:
            self._forget_idle(now)

    def _forget_idle(self, now: float) -> None:
        """Drop chats with nothing in their window, so 10,000 chats posted once don't stay."""
        for key in [
            k for k, times in self._recent.items() if not times or now - times[-1] >= self._chat_window
        ]:
            lock = self._chat_locks.get(key)
            if lock is None or not lock.locked():
                self._recent.pop(key, None)
                self._chat_locks.pop(key, None)


class ChatChanges(Protocol):
    """Where the outbox reports what the platform said (the core's Quiz): a chat that moved or is
    gone, a question's message ref."""

    async def move_chat(self, ref: ChatRef, new_chat_key: str) -> None: ...
    async def pause_chat(self, ref: ChatRef) -> None: ...
    async def set_message_ref(self, round_id: int, message_ref: str) -> None: ...


class ChatsAndRounds(Protocol):
    async def get_chat(self, chat_id: int) -> Chat | None: ...
    async def get_round(self, round_id: int) -> Round | None: ...


# The contests' hook for a contest question posted late: the view with its restarted timer, or
# None when its round is over (nothing to post).
LateQuestions = Callable[[QuestionView, datetime], Awaitable[QuestionView | None]]
# The contests' hook for a contest question given up on (its view, why): said, and skipped.
AbandonedQuestions = Callable[[QuestionView, str], Awaitable[None]]
# Failed attempts (not flood control: that is the platform pacing us, and it ends) after which a
# contest question is given up: with the backoff, about a minute (1 + 2 + 4 + 8 + 16 + 32 s).
QUESTION_ATTEMPTS = 6


class Clock(Protocol):
    def now(self) -> datetime: ...


class _WallClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class Outbox:
    def __init__(
        self,
        chats: ChatChanges,
        posts: OutboxStore,
        lookup: ChatsAndRounds,
        *,
        clock: Clock | None = None,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        slow_after: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        owner: str = "solo",
        lease_seconds: float = LEASE_SECONDS,
        pin_while_sending: bool = False,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        self.chats = chats
        self.metrics = metrics
        self.posts = posts
        self.lookup = lookup
        self.clock = clock or _WallClock()
        self.ports: dict[str, ChatPort] = {}
        self.pacers: dict[str, Pacer] = {}
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.slow_after = slow_after
        self._sleep = sleep
        self._locks = KeyedLocks()
        self._waiting: dict[int, asyncio.Task[None]] = {}  # chats with a retry timer running
        self._tasks: set[asyncio.Task[None]] = set()
        # Chats moved to an id the store knew already (so not renamed there): posted at the new id.
        self._moved: dict[int, str] = {}
        self.failures = 0  # posts refused for good (or with no platform to post them)
        self.delivered = 0
        self.owner = owner  # this process, in the delivery leases
        # With several processes, each send runs inside its transaction (a pooled connection is
        # held meanwhile); one SQLite process would hold its only writer, and needs no takeover.
        self.pin_while_sending = pin_while_sending
        self.lease = timedelta(seconds=lease_seconds)
        self._processes = 1
        self._parked: set[int] = set()  # chats on a platform this process does not run
        self.late_questions: LateQuestions | None = None
        self.abandoned_questions: AbandonedQuestions | None = None
        self.question_attempts = QUESTION_ATTEMPTS
        self._stopping = False
        self._sending = 0  # attempts between the platform call and its record
        self._none_sending = asyncio.Event()
        self._none_sending.set()

    def register(self, port: ChatPort, pacer: Pacer | None = None) -> None:
        self.ports[str(port.platform)] = port
        self.pacers[str(port.platform)] = pacer or Pacer(port.limits)
        self.pacers[str(port.platform)].share(self._processes)
        self._parked.clear()

    def share(self, processes: int) -> None:
        """`processes` deliver from this outbox now: pace each platform at this one's share."""
        if processes != self._processes:
            log.info("outbox: %d processes share the posting rate", processes)
            self._processes = processes
            for pacer in self.pacers.values():
                pacer.share(processes)

    # ------------------------------------------------------------ owing

    async def owe(self, chat: Chat, view: PostView, round_id: int | None = None) -> None:
        """Write a post owed to the chat; inside a unit of work it commits with the unit. Call
        `drain(chat.id)` once committed."""
        await self.posts.add_post(chat.id, view, round_id, self.clock.now())

    async def post_question(self, chat: Chat, view: QuestionView) -> None:
        """Owe and deliver a question; its message ref is stored on the round once posted."""
        await self.owe(chat, view, view.round_id)
        await self.drain(chat.id)

    async def post_reveal(self, chat: Chat, view: RevealView) -> None:
        await self.owe(chat, view, view.round_id)
        await self.drain(chat.id)

    async def post_standings(self, chat: Chat, view: StandingsView) -> None:
        await self.owe(chat, view)
        await self.drain(chat.id)

    async def post_notice(self, chat: Chat, notice: Notice) -> None:
        await self.owe(chat, notice)
        await self.drain(chat.id)

    # ------------------------------------------------------------ delivering

    async def drain(self, chat_id: int) -> None:
        """Deliver what the chat is owed, oldest first, until done or told to wait (then a timer
        takes over). Returns at once while the chat waits out a Retry-After."""
        if chat_id in self._waiting or self._stopping:
            return
        async with self._locks.hold(chat_id):
            while chat_id not in self._waiting and not self._stopping:
                now = self.clock.now()
                if not await self.posts.hold_chat(chat_id, self.owner, now, now + self.lease):
                    return  # another process delivers to this chat
                try:
                    emptied = await self._deliver(chat_id)
                finally:
                    if chat_id not in self._waiting:  # a retry timer keeps the lease (renewed)
                        await self._release(chat_id)
                # A post owed by another process while this one held the lease found it taken:
                # look once more now that it is given back.
                if not emptied or await self.posts.next_post(chat_id) is None:
                    return

    async def _deliver(self, chat_id: int) -> bool:
        """Deliver the chat's posts in order (holding its lease); True once it is owed nothing."""
        while True:
            post = await self.posts.next_post(chat_id)
            if post is None:
                return True
            delay = await self._attempt(post)
            if delay == PARK:
                self._parked.add(chat_id)
                return False
            if delay == STOPPING:
                return False
            if delay is not None:
                self._retry_in(chat_id, delay)
                return False

    async def _release(self, chat_id: int) -> None:
        try:
            await self.posts.release_chat(chat_id, self.owner)
        except StoreUnavailable as fault:  # the store warned once; the lease runs out by itself
            log.debug("outbox: lease on chat %s not released (%s)", chat_id, fault)
        except Exception:  # the lease runs out by itself; the sweep delivers anything left
            log.warning("outbox: lease on chat %s not released", chat_id, exc_info=True)

    def _retry_in(self, chat_id: int, delay: float) -> None:
        async def later() -> None:
            try:
                await self._sleep(delay)
            finally:
                self._waiting.pop(chat_id, None)
            await self.drain(chat_id)

        task = asyncio.create_task(later(), name=f"outbox-retry-{chat_id}")
        self._waiting[chat_id] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _attempt(self, post: PendingPost) -> float | None:
        """Try one post: None when it is settled (delivered or dropped), else seconds to wait."""
        chat = await self.lookup.get_chat(post.chat_id)
        if chat is None or chat.paused:
            dropped = await self.posts.drop_posts(post.chat_id)
            log.warning("chat %s is gone or paused: %d owed posts dropped", post.chat_id, dropped)
            return None
        platform = str(chat.ref.platform)
        port = self.ports.get(platform)
        if port is None:
            log.error(
                "no %s adapter running: %s for chat %s kept for later", platform, post.what, chat.ref.chat_key
            )
            return PARK
        view = await self._current(post)
        if chat.id in self._moved:
            chat = replace(chat, ref=replace(chat.ref, chat_key=self._moved[chat.id]))
        await self.pacers[platform].acquire(chat.ref.chat_key)
        if self._stopping:  # not begun: whoever delivers next (another process, the next start) sends it
            return STOPPING
        self.metrics.post_paced(platform)
        self._sending += 1
        self._none_sending.clear()
        try:
            return await self._send_and_record(post, chat, view)
        finally:
            self._sending -= 1
            if not self._sending:
                self._none_sending.set()

    async def _send_and_record(self, post: PendingPost, chat: Chat, view: PostView) -> float | None:
        """Send one post and record what the platform said: a stop waits for this to end."""
        platform = str(chat.ref.platform)
        port = self.ports[platform]
        if isinstance(view, QuestionView) and view.kind is RoundKind.CONTEST and self.late_questions:
            now = self.clock.now()
            if now - view.opened_at > LATE_QUESTION:
                late = await self.late_questions(view, now)
                if late is None:  # its round is over: its closing owes the reveal
                    await self.posts.post_delivered(post.id)
                    return None
                view = late
        try:
            if self.pin_while_sending:
                # The transaction is open before the send, so only its commit separates the
                # platform taking the post from the record of it: a process killed in between
                # leaves a post another process sends again.
                async with self.posts.unit_of_work():
                    result = await _send(port, chat.ref, view)
                    await self._delivered(post, view, result)
            else:
                result = await _send(port, chat.ref, view)
        except ChatMoved as moved:
            log.info("chat %s moved to %s; following it", chat.ref.chat_key, moved.new_chat_key)
            await self.chats.move_chat(chat.ref, moved.new_chat_key)
            self._moved[chat.id] = moved.new_chat_key
            return None  # the same post again, to the new id
        except ChatGone as gone:
            log.warning("chat %s %s: %s; its schedules are paused", platform, chat.ref.chat_key, gone)
            await self.chats.pause_chat(chat.ref)
            await self.posts.drop_posts(chat.id)
            return None
        except PostRejected as rejected:
            self.failures += 1
            log.error("%s to %s chat %s rejected: %s", post.what, platform, chat.ref.chat_key, rejected)
            await self.posts.post_delivered(post.id)
            self._abandoned(view, str(rejected))
            return None
        except RetryLater as later:
            self.metrics.retry_later(platform)
            delay, reason = later.retry_after, str(later)
        except Exception as exc:  # a platform or network failure: retried with backoff
            delay = min(self.base_delay * 2**post.attempts, self.max_delay)
            reason = f"{type(exc).__name__}: {exc}"
            if _contest_question(view) and post.attempts + 1 >= self.question_attempts:
                self.failures += 1
                log.error("%s to %s chat %s given up after %d attempts (%s)",
                          post.what, platform, chat.ref.chat_key, post.attempts + 1, reason)  # fmt: skip
                await self.posts.post_delivered(post.id)
                self._abandoned(view, reason)
                return None
        else:
            if not self.pin_while_sending:
                async with self.posts.unit_of_work():
                    await self._delivered(post, view, result)
            self.delivered += 1
            return None
        await self.posts.post_failed(post.id, reason)
        log.info("%s to %s chat %s failed (%s); attempt %d, retry in %.1fs",
                 post.what, platform, chat.ref.chat_key, reason, post.attempts + 1, delay)  # fmt: skip
        return delay

    def _abandoned(self, view: PostView, reason: str) -> None:
        """Tell the contests a question of theirs was given up, once this chat's drain is over
        (they owe the chat a notice and move on, which drains it again)."""
        if not _contest_question(view) or self.abandoned_questions is None:
            return
        assert isinstance(view, QuestionView)
        task = asyncio.create_task(self._tell_abandoned(self.abandoned_questions, view, reason))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell_abandoned(self, hook: AbandonedQuestions, view: QuestionView, reason: str) -> None:
        try:
            await hook(view, reason)
        except Exception:  # the contest's sweep moves it on at its time anyway
            log_failure(log, "round %s: the contest not told its question was given up", view.round_id)

    async def _delivered(self, post: PendingPost, view: PostView, result: str | None) -> None:
        if isinstance(view, QuestionView) and isinstance(result, str) and result:
            await self.chats.set_message_ref(view.round_id, result)
        await self.posts.post_delivered(post.id)

    async def _current(self, post: PendingPost) -> PostView:
        """A reveal edits the question message, whose ref may have come after the reveal was owed."""
        view = post.view
        if isinstance(view, RevealView) and view.message_ref is None and post.round_id is not None:
            round_ = await self.lookup.get_round(post.round_id)
            if round_ is not None and round_.message_ref:
                view = replace(view, message_ref=round_.message_ref)
        return view

    # ------------------------------------------------------------ start-up, shutdown, watching

    async def resume(self) -> None:
        """Deliver what was owed when the bot stopped (call with ports registered)."""
        chats = await self.posts.pending_chats()
        if chats:
            log.info("outbox: resuming posts owed to %d chats", len(chats))
        pending = iter(chats)

        async def resumer() -> None:
            for chat_id in pending:
                try:
                    await self.drain(chat_id)
                except Exception:
                    log_failure(log, "outbox: chat %s not resumed", chat_id)

        await asyncio.gather(*(resumer() for _ in range(min(RESUMERS, len(chats)))))

    async def renew(self) -> int:
        """Extend this process's delivery leases (call well within the lease, while alive)."""
        return await self.posts.renew_chats(self.owner, self.clock.now() + self.lease)

    async def take_over(self) -> int:
        """Start delivering to chats owed a post nobody delivers (their process died, or a drain
        here failed); returns at once, the deliveries run on. How many chats were taken."""
        now = self.clock.now()
        chats = await self.posts.unheld_chats(
            self.owner, now, now - timedelta(seconds=SWEEP_AGE), SWEEP_CHATS
        )
        taken = [
            c for c in chats if c not in self._waiting and c not in self._parked and not self._locks.busy(c)
        ]
        if taken:
            log.info("outbox: taking over posts owed to %d chats", len(taken))
        for chat_id in taken:
            task = asyncio.create_task(self._drain_logged(chat_id), name=f"outbox-take-{chat_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(taken)

    async def _drain_logged(self, chat_id: int) -> None:
        try:
            await self.drain(chat_id)
        except Exception:  # the sweep takes the chat again
            log_failure(log, "outbox: chat %s not delivered", chat_id)

    async def check_age(self) -> float:
        """Log the oldest pending post's age once it passes `slow_after` seconds; the age."""
        oldest = await self.posts.oldest_pending()
        if oldest is None:
            return 0.0
        age = (self.clock.now() - oldest).total_seconds()
        if age > self.slow_after:
            log.warning("outbox: the oldest post still owed is %.0f s old", age)
        return age

    async def settled(self) -> None:
        """Wait until no retry is waiting (everything owed was delivered, dropped or parked)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def quiesce(self, wait: float = SEND_WAIT) -> None:
        """The first step of a stop, while the platforms can still be reached: no post starts
        any more, and the ones under way are sent and recorded (`wait` seconds at most). A stop
        that cut a send off between the platform taking the post and its record would leave the
        post owed, to be sent again: a question twice, the first copy keeping its buttons."""
        self._stopping = True
        if self._sending:
            log.info("outbox: stopping; %d posts under way to finish", self._sending)
        try:
            async with asyncio.timeout(wait):
                await self._none_sending.wait()
        except TimeoutError:
            log.warning("outbox: %d posts still under way after %.0f s: each may be sent again",
                        self._sending, wait)  # fmt: skip

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._waiting.clear()


def _contest_question(view: PostView) -> bool:
    return isinstance(view, QuestionView) and view.kind is RoundKind.CONTEST


async def _send(port: ChatPort, ref: ChatRef, view: PostView) -> str | None:
    if isinstance(view, QuestionView):
        return await port.post_question(ref, view)
    if isinstance(view, RevealView):
        await port.post_reveal(ref, view)
    elif isinstance(view, StandingsView):
        await port.post_standings(ref, view)
    else:
        await port.post_notice(ref, view)
    return None

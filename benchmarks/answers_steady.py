"""Section 2 of the answers benchmark: latency at a steady open-loop offered load, measured from
each answer's scheduled send time.
"""

from __future__ import annotations

import asyncio
import gc
import random
import time
from pathlib import Path

from benchmarks._common import (
    Meter,
    Report,
    fmt_ms,
    fmt_rate,
    latency_summary_ms,
    percentile,
    pinned,
    stderr,
)
from benchmarks.answers_fixtures import (
    TARGET_STEADY_P99_MS,
    Sizes,
    make_work,
    ms,
    open_ingest,
    pct,
)
from bot.application.requests import SubmitAnswer
from bot.domain.kinds import AnswerStatus


async def steady_section(report: Report, base: Path, sync: str, sizes: Sizes, cpus: int | None) -> None:
    total = int(sizes.steady_rate * sizes.steady_seconds)
    per_tick = round(sizes.steady_rate * sizes.steady_tick)
    ticks = total // per_tick
    report.section(
        f"[2] steady open-loop load, synchronous={sync}: {per_tick} answers every "
        f"{sizes.steady_tick * 1e3:.0f} ms for {sizes.steady_seconds:g} s"
    )
    stderr(f"[2/{sync}] steady load: {total:,} answers over {sizes.steady_seconds:g} s ...")
    with pinned(cpus):
        n_users = max(total // 10, 1)
        ing = await open_ingest(base / f"steady-{sync}.db", sync, n_users, sizes.rounds, sizes.chats)
        work = make_work(ing.round_ids, n_users, ticks * per_tick, random.Random(7))
        loop = asyncio.get_running_loop()
        n = len(work)
        from_schedule = [0.0] * n
        from_call = [0.0] * n
        lags: list[float] = []
        # Finished tasks are dropped at once, as a bot's handlers are: keeping 50,000 done tasks
        # alive would make every full garbage collection slower and show up as latency.
        in_flight: set[asyncio.Task] = set()
        finished: asyncio.Future[None] = loop.create_future()
        statuses: dict[str, int] = {}
        acked = [0]

        async def one(i: int, intended: float) -> None:
            round_id, user, letter = work[i]
            cmd = SubmitAnswer(round_id, ing.users[user], letter)
            t0 = time.perf_counter()
            try:
                receipt = await ing.quiz.submit(cmd)
            except BaseException as exc:
                if not finished.done():
                    finished.set_exception(exc)
                raise
            t1 = time.perf_counter()
            from_schedule[i] = t1 - intended
            from_call[i] = t1 - t0
            statuses[str(receipt.status)] = statuses.get(str(receipt.status), 0) + 1
            acked[0] += 1
            if acked[0] == n and not finished.done():
                finished.set_result(None)

        def fire(k: int, intended: float) -> None:
            lags.append(time.perf_counter() - intended)
            for i in range(k * per_tick, (k + 1) * per_tick):
                task = loop.create_task(one(i, intended))
                in_flight.add(task)
                task.add_done_callback(in_flight.discard)

        gc.collect()
        batches_before = ing.quiz.commit_batches
        ing.transactions.clear()
        with Meter() as meter:
            loop_start = loop.time() + 0.05
            perf_start = time.perf_counter() + (loop_start - loop.time())
            for k in range(ticks):
                loop.call_at(loop_start + k * sizes.steady_tick, fire, k, perf_start + k * sizes.steady_tick)
            await finished
        elapsed = time.perf_counter() - perf_start
        batches = ing.quiz.commit_batches - batches_before
        tx = latency_summary_ms(ing.transactions)
        tx_slow = sum(1 for t in ing.transactions if t * 1e3 > TARGET_STEADY_P99_MS)
        await ing.quiz.flush()
        await ing.store.close()
    if statuses != {str(AnswerStatus.ACCEPTED): n}:
        raise RuntimeError(f"steady load: expected every answer accepted, got {statuses}")
    lat = latency_summary_ms(from_schedule)
    report.results.setdefault("steady", {})[sync] = {
        "offered_per_s": sizes.steady_rate,
        "answers": n,
        "seconds": elapsed,
        "achieved_per_s": n / elapsed,
        "usage": meter.usage.as_dict(),
        "batches": batches,
        "scheduled_to_ack": lat,
        "call_to_ack": latency_summary_ms(from_call),
        "timer_lag": latency_summary_ms(lags),
        "transaction": tx,
        "cpus": cpus,
    }
    report.line(
        f"answers acknowledged (offered {sizes.steady_rate:,}/s)",
        f"{n:,} in {elapsed:.2f} s = {fmt_rate(n / elapsed)}",
    )
    report.line("submit->ack p50 (from scheduled send time)", fmt_ms(lat["p50_ms"] / 1e3))
    report.check("submit->ack p99", lat["p99_ms"], fmt_ms(lat["p99_ms"] / 1e3), at_most=TARGET_STEADY_P99_MS)
    report.line("submit->ack max", fmt_ms(lat["max_ms"] / 1e3))
    report.line("transactions (mean answers each)", f"{batches:,} ({n / max(batches, 1):,.1f})")
    report.line(
        f"transaction time p50 / p99 / max (how many > {TARGET_STEADY_P99_MS:g} ms)",
        f"{ms(tx['p50_ms'])} / {ms(tx['p99_ms'])} / {ms(tx['max_ms'])} ({tx_slow})",
    )
    u = meter.usage
    report.line(
        "CPU (user+sys) / wall; CPU per answer; steal",
        f"{u.user_s:.1f}+{u.sys_s:.1f} s / {u.wall_s:.1f} s = {u.cpu_share:.0%}; "
        f"{u.cpu_s / n * 1e6:.0f} us; {pct(u.steal)}",
    )
    report.line("garbage collections gen0/gen1/gen2", "/".join(str(c) for c in meter.usage.gc_collections))
    report.line("timer lag p99 / max (late sends)", f"{fmt_ms(percentile(lags, 99))} / {fmt_ms(max(lags))}")

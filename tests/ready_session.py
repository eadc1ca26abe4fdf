"""The learner of tests/stats_session.py (three weeks with the shipped bank, a few hundred
answers, played through the real application on SQLite), then /ready and /weak. Run as a
program it writes what docs/readiness.md shows:

    python -m tests.ready_session docs   # docs/ready-zh-CN.png, docs/ready-en.png; prints the texts
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from bot.application.reply_text import render_reply
from tests.stats_session import Session, run


async def ready(folder: Path, language: str) -> tuple[Session, str]:
    """The /ready session and the text /weak shows the same learner."""
    session = await run(folder / "ready", language, "/ready")
    weak = await run(folder / "weak", language, "/weak")
    return session, render_reply(weak.reply)


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for language in ("zh-CN", "en"):
        with tempfile.TemporaryDirectory() as folder:
            session, weak = asyncio.run(ready(Path(folder), language))
        (chart,) = session.reply.files
        (out / f"ready-{language}.png").write_bytes(chart.data)
        text = render_reply(session.reply)
        print(f"{out / f'ready-{language}.png'}\n\n/ready\n{text}\n\n/weak\n{weak}\n")


if __name__ == "__main__":
    main()

"""Runs the app: bootstrap, start the adapters whose tokens are set (else the console), stop cleanly."""

from __future__ import annotations

import logging
import sys

from bank.loader import BankError
from studybot.bootstrap import bootstrap
from studybot.config import Config

log = logging.getLogger("studybot")


async def run_app(config: Config, *, force_console: bool = False) -> int:
    try:
        app = await bootstrap(config)
    except BankError as exc:
        print("studybot: a question bank has errors:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    try:
        from adapters.console import ConsoleAdapter

        console = ConsoleAdapter(app.quiz, dailies=app.dailies, contests=app.contests)
        app.add_port(console)
        await app.start()
        await console.run()
    finally:
        await app.close()
    return 0

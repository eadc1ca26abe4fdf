"""The `studybot` command: run the bot (console when no token is set), manage banks."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from urllib.parse import urlsplit

from adapters.redaction import (
    Redaction,
    add_secret,
    format_exception,
    install_excepthooks,
    install_record_factory,
)
from studybot import __version__
from studybot.config import ConfigError, load_config
from studybot.preflight import console_has_no_input, near_misses
from studybot.startup_failures import say


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="studybot",
        description="A study bot for exam-prep groups. With no command, runs the bot.",
    )
    parser.add_argument("--version", action="version", version=f"studybot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run the bot: every adapter whose token is set, or the console when none is",
        description="Run the bot. DISCORD_TOKEN / TELEGRAM_TOKEN in the environment start "
        "those adapters; with neither, the console adapter starts on the default bank.",
    )
    _add_config_option(run)
    run.add_argument("--console", action="store_true", help="run the console even if tokens are set")
    run.set_defaults(func=_run)

    bank = commands.add_parser(
        "bank",
        help="check, import and export question banks",
        description="Check, import and export question banks.",
    )
    bank_commands = bank.add_subparsers(dest="bank_command", metavar="COMMAND", required=True)
    from bank.check import add_check_parser
    from bank.export_cmd import add_export_parser
    from bank.import_cmd import add_import_parser
    from studybot.bank_reports import add_reports_option

    add_reports_option(add_check_parser(bank_commands))
    add_import_parser(bank_commands)
    add_export_parser(bank_commands)

    from studybot.outbox_cmd import add_outbox_parser

    _add_config_option(add_outbox_parser(commands))
    return parser


def _add_config_option(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    # On a sub-command, SUPPRESS keeps an absent option from overwriting the top-level one.
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None if top else argparse.SUPPRESS,
        help="YAML settings file (see studybot.example.yaml)",
    )


def main(argv: list[str] | None = None) -> int:
    install_excepthooks()
    install_record_factory()
    parser = build_parser()
    _add_config_option(parser, top=True)
    args = parser.parse_args(argv)
    if args.command is None:
        args.func = _run
        args.console = False
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: its traceback, with every secret redacted
        sys.stderr.write(format_exception(exc))
        return 1


def _run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"studybot: {exc}", file=sys.stderr)
        return 2
    add_secret(config.discord_token.value)
    add_secret(config.telegram_token.value)
    add_secret(config.telegram_webhook_secret.value)
    if config.database_url is not None:  # a bug's traceback might quote the URL, password and all
        add_secret(urlsplit(config.database_url.get_secret_value()).password or "")
    for name, expected in near_misses(os.environ):
        add_secret(os.environ[name].strip())  # a token under another name is still a token
        say(config.language, "startup.near_miss", name=name, expected=expected)
    if not args.console and not (config.discord_token or config.telegram_token):
        if console_has_no_input(sys.stdin):
            say(config.language, "startup.no_token")
            return 2
        say(config.language, "startup.console_no_token")
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # APScheduler logs every job run at INFO; our own modules say what matters.
    logging.getLogger("apscheduler").setLevel(max(logging.WARNING, logging.getLogger().level))
    Redaction().install()
    if args.console or not (config.discord_token or config.telegram_token):
        from adapters.console.logs import log_to_file

        log_to_file(config.data_dir)  # keep log lines out of the conversation
    from studybot.runner import run_app

    try:
        return asyncio.run(run_app(config, force_console=args.console))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

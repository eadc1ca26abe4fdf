"""The `studybot` command: run the bot (console when no token is set), manage banks. It speaks
the language `--lang`, else the locale (LC_ALL, LC_MESSAGES, LANG) asks for, zh-CN by default
(studybot/cli_language.py); `run` then says what it says in the config's language."""

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
from bot.locales.i18n import DEFAULT_LANGUAGE, t
from bot.ports.missing_extra import MissingExtra, install_command
from studybot import __version__
from studybot.cli_language import (
    ArgumentParser,
    add_command,
    cli_language,
    split_lang_option,
    use_argparse_language,
)
from studybot.config import ConfigError, load_config
from studybot.preflight import console_has_no_input, near_misses
from studybot.startup_failures import say


def build_parser(language: str = DEFAULT_LANGUAGE) -> argparse.ArgumentParser:
    """The command's parser, every help text in `language` (call use_argparse_language first
    for argparse's own words)."""
    parser = ArgumentParser(prog="studybot", description=t(language, "cli.description"))
    parser.add_argument("--version", action="version", version=f"studybot {__version__}",
                        help=t(language, "cli.version_help"))  # fmt: skip
    parser.add_argument("--lang", metavar=t(language, "cli.metavar.lang"), help=t(language, "cli.lang_help"))
    commands = parser.add_subparsers(dest="command", metavar=t(language, "cli.metavar.command"))

    run = add_command(
        commands,
        language,
        "run",
        help=t(language, "cli.run_help"),
        description=t(language, "cli.run_description"),
    )
    _add_config_option(run, language)
    run.add_argument("--console", action="store_true", help=t(language, "cli.console_help"))
    run.set_defaults(func=_run)

    bank = add_command(
        commands,
        language,
        "bank",
        help=t(language, "cli.bank_help"),
        description=t(language, "cli.bank_description"),
    )
    bank_commands = bank.add_subparsers(dest="bank_command", metavar=t(language, "cli.metavar.command"),
                                        required=True)  # fmt: skip
    from bank.check import add_check_parser
    from bank.export_cmd import add_export_parser
    from bank.import_cmd import add_import_parser
    from studybot.bank_reports import add_reports_option

    check = add_check_parser(bank_commands, language)
    add_reports_option(check)
    for action in check._actions:  # the options bank_reports adds, said in the command's language
        if action.dest in ("reports", "database"):
            action.help = t(language, f"cli.check.{action.dest}_help")
            action.metavar = t(language, "cli.metavar.file") if action.dest == "database" else None
    add_import_parser(bank_commands, language)
    add_export_parser(bank_commands, language)
    from studybot.bank_stats import add_stats_parser

    _add_config_option(add_stats_parser(bank_commands, language), language)

    from studybot.outbox_cmd import add_outbox_parser

    outbox = add_outbox_parser(commands, language)
    outbox.description = t(language, "cli.outbox_description")
    commands._choices_actions[-1].help = t(language, "cli.outbox_help")
    _add_config_option(outbox, language)
    return parser


def _add_config_option(parser: argparse.ArgumentParser, language: str, *, top: bool = False) -> None:
    # On a sub-command, SUPPRESS keeps an absent option from overwriting the top-level one.
    parser.add_argument(
        "--config",
        metavar=t(language, "cli.metavar.file"),
        default=None if top else argparse.SUPPRESS,
        help=t(language, "cli.config_help"),
    )


def main(argv: list[str] | None = None) -> int:
    install_excepthooks()
    install_record_factory()
    explicit, rest = split_lang_option(sys.argv[1:] if argv is None else argv)
    language = cli_language(explicit)
    use_argparse_language(language)
    parser = build_parser(language)
    _add_config_option(parser, language, top=True)
    args = parser.parse_args(rest)
    args.language = language
    if args.command is None:
        args.func = _run
        args.console = False
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except MissingExtra as missing:  # an extra not installed (asyncpg for PostgreSQL…): one line
        say(language, "extra.missing", extra=missing.extra, module=missing.module,
            command=install_command(missing.extra))  # fmt: skip
        return 1
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

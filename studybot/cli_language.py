"""The `studybot` command's language: `--lang` when given, else the locale of the environment
(`LC_ALL`, `LC_MESSAGES`, `LANG`, in gettext's order, a value naming none of our languages —
`C`, `POSIX`, `fr_FR` — passed over), else zh-CN. Every line the command prints comes from the
catalogs in that language, argparse's own words too ("usage:", "options:", "error:"…).

argparse looks its words up through gettext (`from gettext import gettext as _` at the top of
the module) in the program-wide domain, which would need compiled `.mo` files named after the
process locale. Instead `use_argparse_language` points argparse's `_` and `ngettext` at our
catalog (the `argparse.*` keys, keyed by argparse's own English message); a message argparse
adds in a later Python stays English until the catalog has it.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.locales.i18n import DEFAULT_LANGUAGE, LANGUAGES, match_language, t

__all__ = [
    "ArgumentParser",
    "add_command",
    "cli_language",
    "command_name",
    "run_one_command",
    "split_lang_option",
    "use_argparse_language",
]

_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def _from_locale(value: str) -> str | None:
    """`zh_TW.UTF-8`, `en_GB@euro`, `zh-Hant` → our language; None for C, POSIX, others."""
    return match_language(value.split(".", 1)[0].split("@", 1)[0])


def cli_language(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language the command speaks (see the module docstring)."""
    if explicit:
        return match_language(explicit) or DEFAULT_LANGUAGE
    import os

    env = os.environ if environ is None else environ
    for name in _LOCALE_VARIABLES:
        value = env.get(name, "")
        if value and (language := _from_locale(value)) is not None:
            return language
    return DEFAULT_LANGUAGE


def split_lang_option(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """`--lang X` / `--lang=X` taken out of `argv` (wherever it stands, so it works after a
    sub-command too), and the rest. The parser needs the language before it is built."""
    rest: list[str] = []
    chosen: str | None = None
    items = iter(argv)
    for item in items:
        if item == "--":
            rest.append(item)
            rest.extend(items)
            break
        if item == "--lang":
            chosen = next(items, "")
        elif item.startswith("--lang="):
            chosen = item.split("=", 1)[1]
        else:
            rest.append(item)
    return chosen, rest


# argparse's messages (Python 3.11–3.13) → catalog keys. Developer errors (conflicting
# options, bad `dest`) are left out: a user never sees them.
_ARGPARSE = {
    "usage: ": "argparse.usage",
    "options": "argparse.options",
    "positional arguments": "argparse.positionals",
    "show this help message and exit": "argparse.help",
    "%(prog)s: error: %(message)s\n": "argparse.error",
    "the following arguments are required: %s": "argparse.required",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.invalid_choice",
    "unrecognized arguments: %s": "argparse.unrecognized",
    "expected one argument": "argparse.expected_one",
    "expected at least one argument": "argparse.expected_at_least_one",
    "expected at most one argument": "argparse.expected_at_most_one",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
    "not allowed with argument %s": "argparse.not_allowed_with",
    "one of the arguments %s is required": "argparse.one_required",
    "ignored explicit argument %r": "argparse.ignored_explicit",
    "invalid %(type)s value: %(value)r": "argparse.invalid_value",
    "can't open '%(filename)s': %(error)s": "argparse.cant_open",
    "unexpected option string: %s": "argparse.unexpected_option",
    "expected %s argument": "argparse.expected_n",
    "expected %s arguments": "argparse.expected_n",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "argparse.unknown_parser",
}


def _translate(language: str, message: str) -> str:
    key = _ARGPARSE.get(message)
    return t(language, key) if key is not None else message


def use_argparse_language(language: str) -> None:
    """Make argparse speak `language` (English: argparse's own words, untouched)."""
    if language not in LANGUAGES or language == "en":
        import gettext

        argparse._ = gettext.gettext  # type: ignore[attr-defined]
        argparse.ngettext = gettext.ngettext  # type: ignore[attr-defined]
        return
    argparse._ = lambda message: _translate(language, message)  # type: ignore[attr-defined]
    argparse.ngettext = lambda one, many, n: _translate(language, one if n == 1 else many)  # type: ignore[attr-defined]


# argparse ends a section heading with an ASCII colon of its own ("%s:"); a Chinese heading
# takes the full-width one.
_CJK_HEADING = re.compile(r"^( *[\u4e00-\u9fff][^\n]*):$", re.M)


class _HelpFormatter(argparse.HelpFormatter):
    def format_help(self) -> str:
        return _CJK_HEADING.sub(r"\1：", super().format_help())


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with Chinese section headings punctuated as Chinese; its sub-command
    parsers are of this class too (argparse makes them of the parent's type). A sub-command
    mistyped is answered with the commands' names in the language of the help, not every alias."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if isinstance(action, argparse._SubParsersAction) and value not in (action.choices or {}):
            shown = [a.metavar or a.dest for a in action._choices_actions] or list(action.choices or {})
            message = argparse._("invalid choice: %(value)r (choose from %(choices)s)")  # type: ignore[attr-defined]
            choices = ", ".join(map(repr, shown))
            raise argparse.ArgumentError(action, message % {"value": value, "choices": choices})
        super()._check_value(action, value)


# Each sub-command's names: English (as the docs use them), simplified, traditional. Every name
# works in every language; help, usage lines and hints name the one of the command's language.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("运行", "執行"),
    "bank": ("题库", "題庫"),
    "check": ("检查", "檢查"),
    "import": ("导入", "匯入"),
    "export": ("导出", "匯出"),
    "stats": ("统计", "統計"),
    "outbox": ("发件箱", "寄件匣"),
}


def command_name(language: str, name: str) -> str:
    """The sub-command `name` (its English name) as `language` says it."""
    simplified, traditional = COMMANDS[name]
    return {"zh-CN": simplified, "zh-TW": traditional}.get(language, name)


def add_command(subparsers: Any, language: str, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """`subparsers.add_parser` under the name of `language`, the others as aliases; the help's
    list of commands shows that name alone."""
    primary = command_name(language, name)
    aliases = [n for n in (name, *COMMANDS[name]) if n != primary]
    parser: argparse.ArgumentParser = subparsers.add_parser(primary, aliases=aliases, **kwargs)
    if "help" in kwargs:
        subparsers._choices_actions[-1].metavar = primary
    return parser


def run_one_command(
    prog: str, name: str, add_parser: Callable[[Any, str], Any], argv: Sequence[str] | None
) -> int:
    """`python -m bank.check …` and the like: one `studybot bank` subcommand run on its own, in
    the command line's language (`--lang`, else the locale)."""
    import sys

    explicit, rest = split_lang_option(sys.argv[1:] if argv is None else argv)
    language = cli_language(explicit)
    use_argparse_language(language)
    parser = ArgumentParser(prog=prog)
    add_parser(parser.add_subparsers(dest="command", required=True), language)
    args = parser.parse_args([name, *rest])
    args.language = language
    return int(args.func(args) or 0)

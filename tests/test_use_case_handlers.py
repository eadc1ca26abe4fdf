"""Every catalog entry's use case has its handler, found by type, never by name: the table is
total over the catalog (each entry runs the method of its own use case, on the object that owns
it), every use case is some entry's, and an entry nothing carries out stops start-up with one
line and a non-zero exit instead of answering "学习工具未启用" when someone runs it."""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import textwrap
from enum import Enum, auto
from pathlib import Path

import pytest

from bot.application import app as application_module
from bot.application.app import Application, NoHandler
from bot.application.commands import catalog, parsing
from bot.application.commands.catalog import CATALOG, AppUseCase, Command, StudyUseCase, UploadUseCase
from bot.application.replies import TextView
from bot.application.requests import Caller
from bot.application.study.use_cases import StudyUseCases
from bot.domain.kinds import ChatKind, ChatRef, Platform, UserRef
from bot.locales.i18n import t

ROOT = Path(__file__).resolve().parent.parent
ANN = UserRef(Platform.TELEGRAM, "10", "Ann")
PRIVATE = ChatRef(Platform.TELEGRAM, "10", ChatKind.PRIVATE, title="Ann")


class Unknown(Enum):
    """A key no handler table knows (as an entry would be whose use case lost its case)."""

    PING = auto()


def _method_name(use_case: Enum) -> str:
    return use_case.name.lower()


async def test_every_entry_runs_the_handler_of_its_own_use_case(make_app):
    app = await make_app()
    layer = app.application
    owners = {AppUseCase: layer, StudyUseCase: layer.study, UploadUseCase: layer.uploads}
    seen = {}
    for entry in CATALOG:
        handler = layer.handler(entry.use_case)
        # a bound method of the object that owns the use case, named after it: a case that
        # returns a neighbour's method (MOCK_GO → mock_flag) has the right type but fails here
        assert handler.__self__ is owners[type(entry.use_case)], entry.name
        assert handler.__func__.__name__.lstrip("_") == _method_name(entry.use_case), entry.name
        assert handler.__func__ is not Application._no_study, entry.name
        seen.setdefault(entry.use_case, handler.__func__)
    # no two use cases share a handler
    assert len(set(seen.values())) == len(seen)


def test_every_use_case_is_some_entrys():
    named = {entry.use_case for entry in CATALOG}
    for keys in (AppUseCase, StudyUseCase, UploadUseCase):
        assert set(keys) <= named, set(keys) - named


def test_no_use_case_is_named_by_a_string():
    assert all(isinstance(entry.use_case, AppUseCase | StudyUseCase | UploadUseCase) for entry in CATALOG)
    # nothing in the core looks an attribute up by a computed name (getattr(self, f"_{name}"))
    # (a proxy's __getattr__ handing every other attribute to what it wraps is not a lookup)
    computed = []
    for path in sorted((ROOT / "bot").glob("**/*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        proxies = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "__getattr__"
                   for n in ast.walk(f)}  # fmt: skip
        for node in ast.walk(tree):
            if id(node) in proxies:
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
                if not isinstance(node.args[1], ast.Constant):
                    computed.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert computed == []


async def test_without_the_study_tools_the_plain_forms_and_a_sentence(make_app):
    app = await make_app()
    bare = Application(app.quiz, app.dailies, app.contests)
    assert bare.handler(StudyUseCase.PRACTISE).__func__ is Application._quiz
    assert bare.handler(StudyUseCase.REVIEW).__func__ is Application._review
    assert bare.handler(StudyUseCase.STATS).__func__ is Application._stats
    assert bare.handler(UploadUseCase.BANK_LIST).__func__ is Application._bank_list
    reply = await bare.run_text("/mock start", Caller(PRIVATE, ANN))
    assert reply.view == TextView(t("en", "study.unavailable"))
    # with them, the same command is the study tools' own
    assert (await app.application.run_text("/mock start", Caller(PRIVATE, ANN))).view != reply.view


def _with_entry(monkeypatch: pytest.MonkeyPatch, entry: Command) -> None:
    entries = (*catalog.CATALOG, entry)
    for module in (catalog, parsing, application_module):
        monkeypatch.setattr(module, "CATALOG", entries)


async def test_an_entry_of_an_unknown_use_case_stops_the_build(make_app, monkeypatch):
    app = await make_app()
    _with_entry(monkeypatch, Command(("ping",), Unknown.PING))
    with pytest.raises(NoHandler) as refused:
        Application(app.quiz, app.dailies, app.contests, study=app.study)
    assert refused.value.command == "ping"


async def test_a_use_case_whose_case_is_missing_stops_the_build(make_app, monkeypatch):
    """What mypy refuses (a member without its case in the owner's match) is also refused when
    the application is built, naming the command, never when a person runs it."""
    app = await make_app()
    complete = StudyUseCases.handler

    def without_mock_go(self, use_case):
        if use_case is StudyUseCase.MOCK_GO:
            application_module.no_handler(use_case)
        return complete(self, use_case)

    monkeypatch.setattr(StudyUseCases, "handler", without_mock_go)
    with pytest.raises(NoHandler) as refused:
        Application(app.quiz, app.dailies, app.contests, study=app.study)
    assert refused.value.command == "mock go"


def test_start_up_refuses_a_catalog_entry_without_a_handler_in_one_line(tmp_path: Path) -> None:
    """The real process: `studybot run --console` with one entry more in its catalog."""
    code = (
        "import sys\n"
        "from enum import Enum, auto\n"
        "from bot.application import app as application\n"
        "from bot.application.commands import catalog, parsing\n"
        "class Unknown(Enum):\n"
        "    PING = auto()\n"
        "entries = (*catalog.CATALOG, catalog.Command(('ping',), Unknown.PING))\n"
        "for module in (catalog, parsing, application):\n"
        "    module.CATALOG = entries\n"
        "from studybot.cli import main\n"
        "sys.exit(main(['run', '--console']))\n"
    )
    env = {k: v for k, v in os.environ.items() if "TOKEN" not in k.upper()}
    env.update(STUDYBOT_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    done = subprocess.run(
        [sys.executable, "-c", code], input="/quit\n", capture_output=True, text=True, env=env,
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    # the one line, and nothing else: no log line, no traceback, nothing on stdout
    assert lines == ["studybot: " + t("zh-CN", "startup.no_handler", command="ping")], lines
    assert done.stdout.strip() == "", done.stdout


def _keys_read(function) -> set[str]:
    """The argument names a handler reads straight off its Parsed: `parsed.args["k"]` and
    `parsed.args.get("k")`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_parsed_args(node.value):
            target = node.slice
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and _is_parsed_args(node.func.value) and node.args
        ):  # fmt: skip
            target = node.args[0]
        else:
            continue
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            keys.add(target.value)
    return keys


def _is_parsed_args(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute) and node.attr == "args"
        and isinstance(node.value, ast.Name) and node.value.id == "parsed"
    )  # fmt: skip


async def test_a_handler_reads_only_the_arguments_its_entries_declare(make_app):
    """The handler's arguments checked against the entry's (mypy sees one Parsed for all): a
    key the entry does not declare would always read as missing."""
    app = await make_app()
    declared: dict[Enum, set[str]] = {}
    for entry in CATALOG:
        declared.setdefault(entry.use_case, set()).update(arg.name for arg in entry.args)
    read_any = False
    for use_case, names in declared.items():
        handler = app.application.handler(use_case)
        keys = _keys_read(handler.__func__)
        read_any = read_any or bool(keys)
        assert keys <= names, (use_case, keys - names)
    assert read_any  # the walk finds what handlers read

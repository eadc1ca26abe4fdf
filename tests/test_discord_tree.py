"""The slash command tree Discord receives is the command catalog: every command, argument,
choice, permission and context, read here from the bulk overwrite the fake Discord got and
compared with what the catalog says; and a command added to the catalog (with its use case and
wording) works on Discord with no change to the adapter."""

from __future__ import annotations

from typing import Any

import pytest

import bot.application.app
import bot.application.commands.catalog
from bot.application.app import Application
from bot.application.commands.arguments import Arg, ArgKind
from bot.application.commands.catalog import CATALOG, MODE, Command, Permission, Scope, groups
from bot.application.commands.parsing import Parsed
from bot.application.replies import FileView, Reply, TextView
from bot.application.requests import Caller
from bot.locales.i18n import LANGUAGES, catalog, t
from tests.extra_use_cases import ExtraUseCase, add_handler
from tests.test_discord_harness import (  # noqa: F401  (fixtures)
    EPHEMERAL,
    Harness,
    discord_to_fake,
    fake_discord,
    harness_fixture,
    study_world,
)

SUB_COMMAND, STRING, INTEGER, USER, ATTACHMENT = 1, 3, 4, 6, 11
GUILD, BOT_DM = 0, 1
MANAGE_SERVER = str(1 << 5)
OPTION_TYPES = {ArgKind.INT: INTEGER, ArgKind.USER: USER, ArgKind.FILE: ATTACHMENT}


def localized(key: str) -> dict[str, str]:
    return {"zh-CN": t("zh-CN", key), "zh-TW": t("zh-TW", key), "en-US": t("en", key)}


def expected_option(arg: Arg) -> dict[str, Any]:
    option: dict[str, Any] = {
        "name": t("en", arg.name_key), "name_localizations": localized(arg.name_key),
        "description_localizations": localized(arg.desc_key),
        "type": OPTION_TYPES.get(arg.kind, STRING), "required": arg.required,
    }  # fmt: skip
    if arg.minimum is not None:
        option["min_value"] = arg.minimum
    if arg.maximum is not None:
        option["max_value"] = arg.maximum
    if arg.kind is ArgKind.LANGUAGE:
        option["choices"] = [(lang, t(lang, "tg.lang_name")) for lang in LANGUAGES]
    elif arg.choices:
        option["choices"] = [(c.value, t("en", c.label_key)) for c in arg.choices]
    return option


def expected_command(key: str, entries: list[Command], subcommands: bool) -> dict[str, Any]:
    admin = sum(e.permission is Permission.CHAT_ADMIN for e in entries) * 2 > len(entries)
    scopes = {e.scope for e in entries}
    contexts = sorted(({GUILD} if scopes & {Scope.GROUP, Scope.ANY} else set())
                      | ({BOT_DM} if scopes & {Scope.PRIVATE, Scope.ANY} else set()))  # fmt: skip
    shown: dict[str, Any] = {
        "name": t("en", f"{key}.name"), "name_localizations": localized(f"{key}.name"),
        "description_localizations": localized(f"{key}.desc"),
        "default_member_permissions": MANAGE_SERVER if admin else None, "contexts": contexts,
    }  # fmt: skip
    if subcommands:
        shown["options"] = {
            t("en", f"{e.key}.name"): {
                "type": SUB_COMMAND, "description_localizations": localized(f"{e.key}.desc"),
                "options": {t("en", a.name_key): expected_option(a) for a in e.args},
            }
            for e in entries
        }  # fmt: skip
    else:
        shown["options"] = {t("en", a.name_key): expected_option(a) for a in entries[0].args}
    return shown


def expected_tree() -> dict[str, dict[str, Any]]:
    tree = {}
    for name, subcommands in groups().items():
        if subcommands:
            tree[t("en", f"cmd.{name}.name")] = expected_command(f"cmd.{name}", subcommands, True)
        else:
            entry = next(c for c in bot.application.commands.catalog.CATALOG if c.path == (name,))
            tree[t("en", f"{entry.key}.name")] = expected_command(entry.key, [entry], False)
    return tree


def shown_option(option: dict[str, Any]) -> dict[str, Any]:
    shown = {k: option.get(k) for k in ("name", "name_localizations", "description_localizations", "type")}
    shown["required"] = bool(option.get("required", False))
    for bound in ("min_value", "max_value"):
        if bound in option:
            shown[bound] = option[bound]
    if option.get("choices"):
        shown["choices"] = [(c["value"], c["name"]) for c in option["choices"]]
    return shown


def shown_tree(body: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the bulk overwrite says, in the shape of expected_tree()."""
    tree = {}
    for command in body:
        options = command.get("options") or []
        shown: dict[str, Any] = {
            "name": command["name"], "name_localizations": command.get("name_localizations"),
            "description_localizations": command.get("description_localizations"),
            "default_member_permissions": _permissions(command),
            "contexts": sorted(command.get("contexts") or []),
        }  # fmt: skip
        if options and all(o["type"] == SUB_COMMAND for o in options):
            shown["options"] = {
                o["name"]: {
                    "type": SUB_COMMAND, "description_localizations": o.get("description_localizations"),
                    "options": {p["name"]: shown_option(p) for p in o.get("options") or []},
                }
                for o in options
            }  # fmt: skip
        else:
            shown["options"] = {o["name"]: shown_option(o) for o in options}
        tree[command["name"]] = shown
    return tree


def _permissions(command: dict[str, Any]) -> str | None:
    value = command.get("default_member_permissions")  # a string in Discord's docs, an int from discord.py
    return None if value is None else str(value)


async def synced_tree(h: Harness) -> list[dict[str, Any]]:
    sync = await h.server.wait_for_request("PUT", r"^/applications/\d+/commands$")
    return list(sync.body)


async def test_the_registered_tree_is_the_catalog(harness: Harness) -> None:
    await harness.start()
    body = await synced_tree(harness)
    assert [c["name"] for c in body] == [t("en", f"cmd.{name}.name") for name in groups()]
    assert shown_tree(body) == expected_tree()
    # Spot checks of what the comparison above stands on.
    by_name = {c["name"]: c for c in body}
    assert by_name["start"]["contexts"] == [BOT_DM]  # PRIVATE: DMs only
    assert _permissions(by_name["lang"]) == MANAGE_SERVER and _permissions(by_name["quiz"]) is None
    daily_set = next(o for o in by_name["daily"]["options"] if o["name"] == "set")
    time = next(o for o in daily_set["options"] if o["name"] == "time")
    assert time["required"] is True and daily_set["options"][0] is time  # required options first
    questions = next(o for o in by_name["contest"]["options"][0]["options"] if o["name"] == "questions")
    assert (questions["type"], questions["min_value"], questions["max_value"]) == (INTEGER, 1, 100)


QUESTIONS = Arg("questions", ArgKind.INT, required=True, minimum=1, maximum=50)
MOCK = Command(("drill",), ExtraUseCase.MOCK_EXAM, (QUESTIONS, MODE),
               permission=Permission.CHAT_ADMIN, scope=Scope.GROUP)  # fmt: skip
WORDING = {
    "cmd.drill.name": {"zh-CN": "操练", "zh-TW": "操練", "en": "drill"},
    "cmd.drill.desc": {"zh-CN": "开始一场模拟考试", "zh-TW": "開始一場模擬考試", "en": "Start a mock exam"},
    "mock.started": {
        "zh-CN": "模拟考试：{questions} 题（{mode}）",
        "zh-TW": "模擬考試：{questions} 題（{mode}）",
        "en": "Mock exam: {questions} questions ({mode})",
    },
}  # fmt: skip


async def mock_exam(self: Application, parsed: Parsed, caller: Caller, language: str) -> Reply:
    text = t(language, "mock.started", questions=parsed.args["questions"], mode=parsed.args.get("mode", "-"))
    paper = FileView("mock-exam.txt", b"1. ...\n", caption=text)
    return Reply(TextView(text), language, public=True, files=(paper,))


@pytest.fixture(name="mock_command")
def mock_command_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new catalog entry, its use case and its wording: nothing else."""
    extended = (*CATALOG, MOCK)
    monkeypatch.setattr(bot.application.commands.catalog, "CATALOG", extended)
    monkeypatch.setattr(bot.application.app, "CATALOG", extended)
    add_handler(monkeypatch, ExtraUseCase.MOCK_EXAM, mock_exam)
    for key, texts in WORDING.items():
        for language, text in texts.items():
            monkeypatch.setitem(catalog(language).messages, key, text)


async def test_a_command_added_to_the_catalog_works_on_discord(harness: Harness, mock_command: None) -> None:
    h = harness
    await h.start()
    body = await synced_tree(h)
    assert shown_tree(body) == expected_tree()
    mock = next(c for c in body if c["name"] == "drill")
    assert mock["name_localizations"]["zh-CN"] == "操练" and _permissions(mock) == MANAGE_SERVER
    assert mock["contexts"] == [GUILD]

    reply = await h.command(h.world.admin, "drill", {"questions": 7, "mode": "reactions"})
    assert reply is not None and reply.content == "Mock exam: 7 questions (reactions)"
    assert not reply.flags & EPHEMERAL
    assert [a["filename"] for a in reply.data["attachments"]] == ["mock-exam.txt"]  # a FileView
    # A value outside the range gets the catalog's sentence, as on a text platform.
    reply = await h.command(h.world.admin, "drill", {"questions": 99}, locale="zh-CN")
    detail = t("zh-CN", "arg.int", low=1, high=50)
    assert reply is not None and reply.flags & EPHEMERAL
    name = t("zh-CN", "cmd.opt.questions.name")
    assert reply.content == t("zh-CN", "error.bad_arg", arg=name, detail=detail)
    # The application checks the permission too (as if the server granted /mock to everyone).
    h.server.find_command(h.world.guild.id, "drill")["default_member_permissions"] = None
    refused = await h.command(h.world.student, "drill", {"questions": 3})
    assert refused is not None and refused.content == t("en", "error.not_admin") and refused.flags & EPHEMERAL

"""The layers' import rules, checked on the source of every module:

- the core (`bot/`) imports no platform, storage or scheduling library, nor any outer package;
- a chat adapter imports from the core only the application layer and the vocabulary it
  renders (ALLOWED_FOR_CHAT_ADAPTERS), plus its platform library, the standard library and its
  own package;
- the storage and scheduling adapters import from the core only its ports and the records and
  values those ports speak in.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "discord", "telegram", "aiosqlite", "apscheduler", "aiohttp", "httpx", "sqlite3", "prompt_toolkit",
    "adapters", "studybot", "bank", "prometheus_client",
}  # fmt: skip
CORE_MODULES = sorted((ROOT / "bot").glob("**/*.py"))

ALLOWED_FOR_CHAT_ADAPTERS = (
    "bot.application", "bot.answering", "bot.clicks", "bot.commands", "bot.messages", "bot.kinds",
    "bot.i18n", "bot.text", "bot.reply_text", "bot.bidi", "bot.ports", "bot.keyed_locks", "bot.live_counts",
    "bot.posted_rounds", "bot.attachments",
    "adapters.redaction",  # log redaction shared by the adapters; imports nothing of ours
)  # fmt: skip
PLATFORM_LIBRARIES = {
    "console": ("prompt_toolkit", "wcwidth"),
    "discord": ("discord", "aiohttp", "yarl"),
    "telegram": ("telegram", "httpx", "httpx_aiohttp", "aiohttp"),  # aiohttp: the webhook server
    "web": ("aiohttp",),  # the web app's routes, on the bot's HTTP server
}
# Ports and what they speak in; the scheduler also reads a schedule's time of day and zone.
ALLOWED_FOR_STORAGE = (
    "bot.ports", "bot.records", "bot.kinds", "bot.model",
    "bot.study.ports", "bot.study.records", "bot.study.mock_records",
    "bot.messages",  # the outbox stores the views it owes
)  # fmt: skip
ALLOWED_FOR_SCHEDULING = ("bot.ports", "bot.records", "bot.kinds", "bot.clock", "bot.daily_times")
INFRASTRUCTURE = {
    "storage": (ALLOWED_FOR_STORAGE, ("aiosqlite", "asyncpg", "pydantic")),
    "scheduling": (ALLOWED_FOR_SCHEDULING, ("apscheduler",)),
    "charts": (("bot.study.charts",), ("matplotlib", "noto_cjk_sans_otc")),  # the port, its font
    "ops": (("bot.metrics",), ("aiohttp", "prometheus_client")),  # health checks and metrics
}


def imported_modules(path: Path) -> set[str]:
    """Every absolute module a file imports (`from bot import x` counts as bot.x), anywhere in it."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in ("bot", "adapters"):
                modules |= {f"{node.module}.{alias.name}" for alias in node.names}
            else:
                modules.add(node.module)
    return modules


def imported_roots(path: Path) -> set[str]:
    return {module.split(".")[0] for module in imported_modules(path)}


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def violations(package: str, allowed: tuple[str, ...], libraries: tuple[str, ...]) -> list[str]:
    """`path: module` for each import of adapters/<package> outside what it may import."""
    own = (f"adapters.{package}",)
    found = []
    for path in sorted((ROOT / "adapters" / package).glob("**/*.py")):
        for module in sorted(imported_modules(path)):
            root = module.split(".")[0]
            if root in sys.stdlib_module_names or root in libraries or within(module, own + allowed):
                continue
            found.append(f"{path.relative_to(ROOT)}: {module}")
    return found


# ------------------------------------------------------------ the core


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_imports_no_infrastructure(path):
    assert not imported_roots(path) & FORBIDDEN


def test_importing_the_core_loads_no_infrastructure():
    """Also catches imports hidden behind importlib or re-exports, by importing for real."""
    names = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in CORE_MODULES]
    code = (
        "import sys\n"
        f"for name in {names!r}:\n"
        "    __import__(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


# ------------------------------------------------------------ adapters


@pytest.mark.parametrize("package", sorted(PLATFORM_LIBRARIES))
def test_chat_adapter_imports_only_the_application_layer_and_its_platform(package):
    assert violations(package, ALLOWED_FOR_CHAT_ADAPTERS, PLATFORM_LIBRARIES[package]) == []


@pytest.mark.parametrize("package", sorted(INFRASTRUCTURE))
def test_storage_and_scheduling_import_only_the_cores_ports(package):
    allowed, libraries = INFRASTRUCTURE[package]
    assert violations(package, allowed, libraries) == []


def test_every_adapter_package_is_checked():
    packages = {p.name for p in (ROOT / "adapters").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(PLATFORM_LIBRARIES) | set(INFRASTRUCTURE)


# ------------------------------------------------------------ the checker


def test_the_checker_itself_sees_forbidden_imports(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import discord\nfrom telegram.ext import Application\nfrom . import fine\n")
    assert imported_roots(sample) & FORBIDDEN == {"discord", "telegram"}


def test_the_checker_sees_a_chat_adapter_reaching_past_the_application_layer(tmp_path, monkeypatch):
    package = tmp_path / "adapters" / "fake"
    package.mkdir(parents=True)
    (package / "x.py").write_text(
        "import asyncio\nimport wcwidth\nfrom adapters.fake import y\n"
        "from bot.commands.parsing import parse\nfrom bot import quiz\nfrom studybot.config import Config\n"
        "def late():\n    from adapters.storage.sqlite_store import SqliteStore\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert violations("fake", ALLOWED_FOR_CHAT_ADAPTERS, ("wcwidth",)) == [
        "adapters/fake/x.py: adapters.storage.sqlite_store",
        "adapters/fake/x.py: bot.quiz",
        "adapters/fake/x.py: studybot.config",
    ]

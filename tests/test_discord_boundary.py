"""The Discord adapter is a translator: it imports the application layer (and the vocabulary it
speaks), its own modules and its platform's libraries — no core internals, no storage or
scheduling, no composition root (issue 9; applayer rules)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted((ROOT / "adapters" / "discord").glob("*.py"))
ALLOWED_BOT = {
    "bot.application", "bot.answering", "bot.clicks", "bot.commands.arguments", "bot.commands.catalog",
    "bot.commands.parsing", "bot.messages", "bot.kinds", "bot.i18n", "bot.text", "bot.reply_text",
    "bot.bidi", "bot.ports", "bot.keyed_locks", "bot.posted_rounds", "bot.attachments",
}  # fmt: skip
ALLOWED_ROOTS = {"__future__", "discord", "aiohttp", "yarl", "adapters"}


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def allowed(module: str) -> bool:
    root = module.split(".")[0]
    if root == "bot":
        return module in ALLOWED_BOT
    if root == "adapters":
        return module.startswith("adapters.discord")
    return root in ALLOWED_ROOTS or root in sys.stdlib_module_names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_discord_adapter_imports_only_the_application_layer(path: Path) -> None:
    assert sorted(m for m in imports(path) if not allowed(m)) == []

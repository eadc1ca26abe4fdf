"""Architecture rule 1: the core never imports a platform, storage or scheduling library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {"discord", "telegram", "aiosqlite", "apscheduler", "aiohttp", "sqlite3", "adapters", "studybot"}
CORE_MODULES = sorted((ROOT / "bot").glob("**/*.py"))


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


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


def test_the_checker_itself_sees_forbidden_imports(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import discord\nfrom telegram.ext import Application\nfrom . import fine\n")
    assert imported_roots(sample) & FORBIDDEN == {"discord", "telegram"}

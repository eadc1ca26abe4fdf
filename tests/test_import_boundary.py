"""The layers' import rules, checked on the source of every module (imports anywhere in a file
count, those under TYPE_CHECKING included):

- the core (`bot/`) imports no platform, storage or scheduling library, nor any outer package;
- the core is in layers, each a package whose docstring says what it may import: `bot.locales`
  (the catalogs), `bot.domain`, `bot.views`, `bot.ports`, `bot.application`; a layer imports
  only the layers below it (LAYERS), and every module of the core is in one of them;
- a chat adapter imports from the core only the application layer, the views it renders, the
  wording, the vocabulary of chats and people (`bot.domain.kinds`) and the chat port it
  implements (CHAT_ADAPTER_SEES), plus its platform library, the standard library and its own
  package;
- the storage, scheduling, chart and ops adapters import from the core only the ports they
  implement and the values those ports speak in;
- nothing imports in a circle, in the core or outside it, and no module is dead.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "discord", "telegram", "aiosqlite", "apscheduler", "aiohttp", "httpx", "sqlite3", "prompt_toolkit",
    "adapters", "studybot", "bank", "prometheus_client", "asyncpg", "matplotlib", "fsrs_rs_python",
}  # fmt: skip
CORE_MODULES = sorted((ROOT / "bot").glob("**/*.py"))

# Each layer of the core: the layers it may import besides its own, and the libraries.
LAYERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bot.locales": ((), ("babel", "opencc")),
    "bot.domain": (("bot.locales",), ("fsrs", "jieba", "rapidfuzz")),
    "bot.views": (("bot.locales", "bot.domain"), ("babel",)),
    "bot.ports": (("bot.locales", "bot.domain", "bot.views"), ()),
    "bot.application": (("bot.locales", "bot.domain", "bot.views", "bot.ports"), ()),
}

CHAT_ADAPTER_SEES = (
    "bot.application", "bot.views", "bot.locales", "bot.domain.kinds", "bot.ports.chat",
    "adapters.redaction",  # log redaction shared by the adapters; imports nothing of ours
)  # fmt: skip
PLATFORM_LIBRARIES = {
    "console": ("prompt_toolkit", "wcwidth"),
    "discord": ("discord", "aiohttp", "yarl"),
    "telegram": ("telegram", "httpx", "httpx_aiohttp", "aiohttp"),  # aiohttp: the webhook server
    "web": ("aiohttp",),  # the web app's routes, on the bot's HTTP server
}
# Ports and what they speak in: storage keeps domain records (and the views the outbox owes);
# the scheduler reads a schedule's time of day and zone.
INFRASTRUCTURE = {
    "storage": (("bot.ports", "bot.domain", "bot.views"), ("aiosqlite", "asyncpg", "pydantic")),
    "scheduling": (("bot.ports", "bot.domain"), ("apscheduler",)),
    "charts": (("bot.ports.charts", "bot.views.charts"), ("matplotlib", "noto_cjk_sans_otc")),
    "ops": (("bot.ports.metrics",), ("aiohttp", "prometheus_client")),  # health checks and metrics
    "optimizer": ((), ("fsrs_rs_python",)),  # FSRS's optimizer (bot/application/study/memory_fit.py)
}
# Where the program starts (console scripts, `python -m`), run by the tests by file name, or
# loaded by name from configuration: not imported by another module, and not dead.
ENTRY_POINTS = {
    "studybot.__main__", "bot.locales.check", "adapters.storage.postgres.pgbouncer_check",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every absolute module a file imports, anywhere in it: `import a.b` gives a.b, `from a import
    b` gives a.b (a module or a member of a: `existing` tells which); relative imports are resolved
    against the file's package."""
    modules = set()
    name = module_name(path) if path.is_relative_to(ROOT) else path.stem
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            modules |= {source if alias.name == "*" else f"{source}.{alias.name}" for alias in node.names}
    return modules


def ours(module: str) -> bool:
    return module.split(".")[0] in ("bot", "adapters", "bank", "studybot")


def imported_roots(path: Path) -> set[str]:
    return {module.split(".")[0] for module in imported_modules(path)}


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def existing(module: str, known: set[str]) -> str | None:
    """The module of ours a dotted name is, or is a member of (`bot.domain.kinds.ChatRef`)."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


def all_modules() -> dict[str, Path]:
    found = {}
    for package in ("bot", "adapters", "bank", "studybot"):
        for path in sorted((ROOT / package).glob("**/*.py")):
            found[module_name(path)] = path
    return found


def violations(package: str, allowed: tuple[str, ...], libraries: tuple[str, ...]) -> list[str]:
    """`path: module` for each import of adapters/<package> outside what it may import."""
    own = (f"adapters.{package}",)
    known = set(all_modules())
    found = set()
    for path in sorted((ROOT / "adapters" / package).glob("**/*.py")):
        for module in imported_modules(path):
            root = module.split(".")[0]
            if root in sys.stdlib_module_names or root in libraries or root == "__future__":
                continue
            target = (existing(module, known) or module) if ours(module) else module
            if not (ours(module) and within(target, own + allowed)):
                found.add(f"{path.relative_to(ROOT)}: {target}")
    return sorted(found)


# ------------------------------------------------------------ the core


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_imports_no_infrastructure(path):
    assert not imported_roots(path) & FORBIDDEN


def test_importing_the_core_loads_no_infrastructure():
    """Also catches imports hidden behind importlib or re-exports, by importing for real."""
    names = [module_name(p) for p in CORE_MODULES]
    code = (
        "import sys\n"
        f"for name in {names!r}:\n"
        "    __import__(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def layer_of(module: str) -> str | None:
    return next((layer for layer in LAYERS if within(module, (layer,))), None)


def test_every_core_module_is_in_a_layer():
    names = [module_name(p) for p in CORE_MODULES]
    outside = [name for name in names if name != "bot" and layer_of(name) is None]
    assert outside == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below_it(layer):
    below, libraries = LAYERS[layer]
    known = set(all_modules())
    found = []
    for path in sorted((ROOT / layer.replace(".", "/")).glob("**/*.py")):
        for module in sorted(imported_modules(path)):
            root = module.split(".")[0]
            if root in sys.stdlib_module_names or root == "__future__" or root in libraries:
                continue
            target = (existing(module, known) or module) if root == "bot" else module
            if within(target, (layer, *below)):
                continue
            found.append(f"{path.relative_to(ROOT)}: {target or module}")
    assert sorted(set(found)) == []


def packages_of_the_core() -> Iterator[Path]:
    yield from sorted(p.parent for p in (ROOT / "bot").glob("**/__init__.py"))


@pytest.mark.parametrize("package", list(packages_of_the_core()), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_package_of_the_core_says_what_lives_there(package):
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    assert doc and len(doc) > 60
    assert "import" in doc  # what the package may import, in its own words (a sub-package: its layer's)


def test_the_layers_docstrings_agree_with_the_rules():
    """A layer's docstring names every layer it may import (and the rules here are the ones it states)."""
    for layer, (below, _) in LAYERS.items():
        doc = ast.get_docstring(ast.parse((ROOT / layer.replace(".", "/") / "__init__.py").read_text())) or ""
        for other in below:
            assert other in doc or other.rpartition(".")[2] in doc, (layer, other)


# ------------------------------------------------------------ adapters


@pytest.mark.parametrize("package", sorted(PLATFORM_LIBRARIES))
def test_chat_adapter_imports_only_the_application_layer_and_its_platform(package):
    assert violations(package, CHAT_ADAPTER_SEES, PLATFORM_LIBRARIES[package]) == []


@pytest.mark.parametrize("package", sorted(INFRASTRUCTURE))
def test_storage_and_scheduling_import_only_the_cores_ports(package):
    allowed, libraries = INFRASTRUCTURE[package]
    assert violations(package, allowed, libraries) == []


def test_every_adapter_package_is_checked():
    packages = {p.name for p in (ROOT / "adapters").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(PLATFORM_LIBRARIES) | set(INFRASTRUCTURE)
    loose = {p.stem for p in (ROOT / "adapters").glob("*.py")} - {"__init__"}
    assert loose == {"redaction"}  # and it imports nothing of ours:
    assert not {m for m in imported_modules(ROOT / "adapters" / "redaction.py") if ours(m)}


# ------------------------------------------------------------ circles and dead modules


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    known = set(modules)
    graph = {}
    for name, path in modules.items():
        targets = {existing(m, known) for m in imported_modules(path) if ours(m)}
        graph[name] = {t for t in targets if t and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_nothing_imports_in_a_circle():
    graph = import_graph()
    # A package's __init__ that imports its own modules is how a package is put together, not a circle.
    for name in graph:
        graph[name] = {t for t in graph[name] if not within(name, (t,)) or t == name}
    assert circles(graph) == []


def test_no_module_is_dead():
    """Every module is imported by another, by a test, or is where the program starts."""
    graph = import_graph()
    known = set(graph)
    used = set().union(*graph.values())
    for test in (ROOT / "tests").glob("**/*.py"):
        used |= {t for m in imported_modules(test) if ours(m) and (t := existing(m, known))}
    packages = {name for name, path in all_modules().items() if path.name == "__init__.py"}
    # The registry finds each question type's module by the type's id (importlib), not by import.
    types = {name for name in known if name.startswith("bot.domain.question_types.")}
    dead = sorted(known - used - packages - types - ENTRY_POINTS)
    assert dead == []


# ------------------------------------------------------------ the checker


def test_the_checker_itself_sees_forbidden_imports(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("import discord\nfrom telegram.ext import Application\nfrom . import fine\n")
    assert imported_roots(sample) & FORBIDDEN == {"discord", "telegram"}


def test_the_checker_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_checker_sees_a_chat_adapter_reaching_past_the_application_layer(tmp_path, monkeypatch):
    package = tmp_path / "adapters" / "fake"
    package.mkdir(parents=True)
    (tmp_path / "bot" / "application").mkdir(parents=True)
    (tmp_path / "bot" / "domain").mkdir(parents=True)
    for module in ("bot/__init__.py", "bot/application/__init__.py", "bot/application/parsing.py",
                   "bot/domain/__init__.py", "bot/domain/grading.py"):  # fmt: skip
        (tmp_path / module).write_text("")
    (package / "x.py").write_text(
        "import asyncio\nimport wcwidth\nfrom adapters.fake import y\n"
        "from bot.application.parsing import parse\nfrom bot.domain import grading\n"
        "from studybot.config import Config\n"
        "def late():\n    from adapters.storage.sqlite_store import SqliteStore\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert violations("fake", CHAT_ADAPTER_SEES, ("wcwidth",)) == [
        "adapters/fake/x.py: adapters.storage.sqlite_store.SqliteStore",
        "adapters/fake/x.py: bot.domain.grading",
        "adapters/fake/x.py: studybot.config.Config",
    ]

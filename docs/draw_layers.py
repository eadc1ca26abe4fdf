"""Draws docs/layers.png: the core's packages in their layers and the imports between them,
read from the source (every `import` and `from … import` of every module, as
tests/test_import_boundary.py reads them), with the outer packages that use the core.

    python docs/draw_layers.py            # writes docs/layers.png

An arrow A → B says that modules of A import modules of B; its number is how many distinct
module-to-module imports there are. Every arrow points down a layer or stays inside one: the
boundary test fails otherwise.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# Imports read as the boundary test reads them, so the picture and the test agree.
from tests.test_import_boundary import imported_modules, module_name  # noqa: E402

# Boxes: (package, label, what it holds, x, y); drawn in rows, the outer packages on top.
BOXES = [
    ("adapters", "adapters/", "console · discord · telegram · web\n"
        "storage · scheduling · charts · ops · optimizer", 1.0, 6.0),
    ("studybot", "studybot/", "config · bootstrap · CLI", 4.0, 6.0),
    ("bank", "bank/", "loading · checks\nimporters · exporters", 7.0, 6.0),
    (
        "bot.application",
        "bot.application",
        "app · answering · clicks · quiz\ndaily · contests · outbox",
        2.2,
        4.5,
    ),
    ("bot.application.commands", "application.commands", "catalog · arguments\nparsing · help", 5.0, 4.5),
    (
        "bot.application.study",
        "application.study",
        "use_cases · drill · mock_exam · exam\n"
        "readiness · mistake_notebook · error_reports",
        7.8,
        4.5,
    ),
    ("bot.ports", "bot.ports", "storage · study_storage · exam_storage\n"
     "chat · scheduler · broadcast · charts · web", 4.0, 3.0),
    ("bot.views", "bot.views", "quiz · quiz_text · study · study_text\n"
     "mock_exam_text · progress · charts", 4.0, 1.8),
    ("bot.domain", "bot.domain", "questions · grading · records · spaced\n"
        "paper · readiness · exam_plan · key_points", 2.2, 0.5),
    (
        "bot.domain.question_types",
        "domain.question_types",
        "single · multi · judge\nfill · short · ordering",
        5.0,
        0.5,
    ),
    ("bot.domain.reading", "domain.reading", "option_letters · numbers\nquantities · folding", 7.8, 0.5),
    ("bot.locales", "bot.locales", "i18n · zh_CN · en · zh_TW", 4.0, -0.8),
]
LAYER_COLOURS = {
    "adapters": "#eeeeee",
    "studybot": "#eeeeee",
    "bank": "#eeeeee",
    "bot.application": "#dbe9f6",
    "bot.ports": "#fde7c9",
    "bot.views": "#e3f1dc",
    "bot.domain": "#f6dcdc",
    "bot.locales": "#ece3f3",
}


def box_of(module: str) -> str | None:
    best = None
    for package, *_ in BOXES:
        if (module == package or module.startswith(package + ".")) and (
            best is None or len(package) > len(best)
        ):
            best = package
    return best


def edges() -> Counter[tuple[str, str]]:
    modules = {}
    for top in ("bot", "adapters", "bank", "studybot"):
        for path in (ROOT / top).glob("**/*.py"):
            modules[module_name(path)] = path
    counted: Counter[tuple[str, str]] = Counter()
    for name, path in modules.items():
        targets = set()
        for imported in imported_modules(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        for target in targets:
            a, b = box_of(name), box_of(target)
            if a and b and a != b:
                counted[(a, b)] += 1
    return counted


def colour(package: str) -> str:
    for prefix in sorted(LAYER_COLOURS, key=len, reverse=True):
        if package == prefix or package.startswith(prefix + "."):
            return LAYER_COLOURS[prefix]
    return "#ffffff"


def draw(out: Path) -> None:
    fig, ax = plt.subplots(figsize=(11, 8.6), dpi=110)
    ax.set_xlim(-0.6, 9.6)
    ax.set_ylim(-1.5, 6.9)
    ax.axis("off")
    width, height = 2.7, 0.8
    where = {}
    for package, label, holds, x, y in BOXES:
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - height / 2),
                width,
                height,
                boxstyle="round,pad=0.03",
                fc=colour(package),
                ec="#555555",
                lw=1,
                zorder=3,
            )
        )
        ax.text(
            x,
            y + 0.16,
            label,
            ha="center",
            va="center",
            fontsize=10,
            fontweight="bold",
            family="monospace",
            zorder=4,
        )
        ax.text(
            x,
            y - 0.14,
            holds,
            ha="center",
            va="center",
            fontsize=6.5,
            color="#333333",
            linespacing=1.1,
            zorder=4,
        )
        where[package] = (x, y)
    for (a, b), count in sorted(edges().items()):
        (x1, y1), (x2, y2) = where[a], where[b]
        same_row = abs(y1 - y2) < 0.1
        start = (x1 + (0.3 if x2 > x1 else -0.3) * same_row, y1 - (0 if same_row else height / 2))
        end = (x2 - (width / 2 if x2 > x1 else -width / 2) * same_row, y2 + (0 if same_row else height / 2))
        if same_row:
            start = (x1 + (width / 2 if x2 > x1 else -width / 2), y1 + (0.12 if x2 > x1 else -0.12))
            end = (x2 - (width / 2 if x2 > x1 else -width / 2), y2 + (0.12 if x2 > x1 else -0.12))
        arrow = FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=9,
            lw=0.4 + min(count, 40) / 25,
            color="#4a6fa5",
            alpha=0.55,
            connectionstyle="arc3,rad=0.06",
            zorder=1,
        )
        ax.add_patch(arrow)
        mx, my = start[0] + (end[0] - start[0]) * 0.3, start[1] + (end[1] - start[1]) * 0.3
        ax.text(
            mx,
            my,
            str(count),
            fontsize=6.5,
            color="#1f3b63",
            ha="center",
            va="center",
            bbox={"fc": "white", "ec": "none", "pad": 0.6, "alpha": 0.85},
            zorder=2,
        )
    ax.set_title("studybot: the core's layers and who imports whom (number = module imports)", fontsize=11)
    ax.text(
        -0.5,
        -1.4,
        "Every arrow points down or sideways within a layer: locales ← domain ← views ← ports ← "
        "application ← adapters, studybot, bank. Chat adapters see application, views, locales, "
        "domain.kinds and ports.chat.",
        fontsize=7,
        color="#444444",
    )
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "layers.png"
    draw(target)
    print(target)

"""Start-up stays light: the heavy libraries only some commands need are imported when first
used (matplotlib in the chart worker process), so `studybot` starts fast with a large bank
(benchmarks/banks.py measures the start; this guards the imports that cost most of it)."""

from __future__ import annotations

import subprocess
import sys


def test_the_bot_starts_without_importing_matplotlib() -> None:
    code = (
        "import sys, studybot.cli, studybot.runner, studybot.bootstrap\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'openpyxl', 'docx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout

"""An optional part of studybot that is not installed (an "extra" of pyproject.toml: `anki`
for genanki, `postgres` for asyncpg, `metrics` for prometheus-client), told as one catalog
sentence naming the command that installs it. The package is not on the package index, so the
working command is `pip install '.[EXTRA]'` run in the studybot clone, never
the package name with the extra (which fails in a fresh virtual environment).
"""

from __future__ import annotations

from bot.locales.i18n import t

__all__ = ["MissingExtra", "install_command"]


def install_command(extra: str) -> str:
    """The command that installs `extra`, run in the studybot clone."""
    return f"pip install '.[{extra}]'"


class MissingExtra(ImportError):
    """`module` could not be imported: the `extra` that brings it is not installed."""

    def __init__(self, extra: str, module: str) -> None:
        super().__init__(f"{module} is missing: {install_command(extra)} (in the studybot clone)")
        self.extra, self.module = extra, module

    def text(self, language: str) -> str:
        """The one sentence for the person: what is missing and the command that installs it."""
        return t(language, "extra.missing", extra=self.extra, module=self.module,
                 command=install_command(self.extra))  # fmt: skip

"""What a command answers: a Reply with its view in the chat's language and the files that go with it.

The chat adapters render these; bot/application/reply_text.py lays them out as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.application.commands.help import HelpView
from bot.views.quiz import (
    ContestStatusView,
    DailyView,
    LeaderboardView,
    QuestionView,
    StandingsView,
    StatsView,
)
from bot.views.study import StudyView


@dataclass(frozen=True, slots=True)
class TextView:
    """Sentences already in the chat's language, plain text (adapters escape them)."""

    text: str


@dataclass(frozen=True, slots=True)
class WelcomeView:
    """The first words in a private chat; adapters add a language picker where they can."""

    text: str
    language: str


@dataclass(frozen=True, slots=True)
class DailyReply:
    daily: DailyView | None
    just_set: bool = False


View = (
    TextView | HelpView | WelcomeView | QuestionView | LeaderboardView | StatsView | StandingsView
    | ContestStatusView | DailyReply | StudyView | None
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class FileView:
    """A file sent with a reply: an image (a chart: a photo on Telegram, an attachment on
    Discord, a file in the data directory on the console) or a document (an export). A `latest`
    file shows how things stand now (the /stats chart): where files are kept, it replaces the
    earlier one of its name instead of being kept beside it."""

    filename: str
    data: bytes
    caption: str = ""
    image: bool = False
    latest: bool = False


@dataclass(frozen=True, slots=True)
class Reply:
    """What a command answers: a view in `language`; `public` when everyone in a group should see
    it (a question, a board), else only the caller where the platform can do that; `files` go
    with it."""

    view: View
    language: str
    public: bool = False
    files: tuple[FileView, ...] = ()

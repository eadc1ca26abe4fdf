"""InvalidResponse: a reply that can't be read as an answer, carrying a catalog key and its
params so that each chat is told why in its own language."""

from __future__ import annotations

from bot.locales.i18n import Listed, t

__all__ = ["InvalidResponse", "quoted"]

# How much of a refused reply is quoted back: enough to recognise it, never a pasted essay.
_QUOTE_LIMIT = 40
# Direction controls would turn the rest of the sentence around the quote (U+202E and friends).
_BIDI_CONTROLS = dict.fromkeys([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def quoted(text: str) -> str:
    """The learner's text as shown inside an error message: stripped, without direction
    controls, and cut short."""
    text = " ".join(text.translate(_BIDI_CONTROLS).split())
    return text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "…"


class InvalidResponse(ValueError):
    """The response can't be read as an answer to this question type.

    `reason` is a short machine key (empty, no_letter, unreadable, word, unknown_letter,
    multiple_letters, not_judge, unknown_level); `key` and `params` name the catalog sentence
    that explains it: render(language) gives it in a chat's language, str(exc) in English (logs).
    """

    def __init__(self, reason: str, key: str | None = None, **params: str | Listed) -> None:
        self.reason = reason
        self.key = key or f"answer.invalid.{reason}"
        self.params = params
        super().__init__(self.render("en"))

    def render(self, language: str) -> str:
        return t(language, self.key, **{k: v(language) if callable(v) else v for k, v in self.params.items()})

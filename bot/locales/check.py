"""Checks that the catalogs agree: `python -m bot.locales.check` prints every problem, exit 1 if any.

Every key is in every language, with the same placeholders; a key has plural forms in every
language or in none, and as many as the language's CLDR rule has; the Chinese catalogs hold no
English sentence (a run of two or more English words, commands and their arguments excepted).
"""

from __future__ import annotations

import re
import string
import sys

from bot.locales.i18n import DEFAULT_LANGUAGE, LANGUAGES, Catalog, catalog

# Words that may stand next to each other in a Chinese sentence: command arguments and formats.
ALLOWED_WORDS = frozenset(
    "off start stop status list use set show week month all zh en zh-TW HH:MM 12h 30m Area/City".split()
)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# Quoted literals stay as they are in any language: a command to type, a button's own label.
_LITERAL = re.compile(r"`[^`]*`|「[^」]*」")
_WORD_RUN = re.compile(r"[/<]?[A-Za-z][\w'/<>:.-]*(?:[ \t]+[/<]?[A-Za-z][\w'/<>:.-]*)+")


def placeholders(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def forms(template: str | tuple[str, ...]) -> tuple[str, ...]:
    return template if isinstance(template, tuple) else (template,)


def english_runs(template: str) -> list[str]:
    """Runs of two or more English words that are not commands, arguments or placeholders."""
    text = _LITERAL.sub(" ", _PLACEHOLDER.sub(" ", template))
    runs = []
    for match in _WORD_RUN.finditer(text):
        words = [w for w in match.group().split() if not w.startswith(("/", "<")) and w not in ALLOWED_WORDS]
        if len(words) >= 2:
            runs.append(match.group())
    return runs


def plural_count(messages: Catalog) -> int:
    rule = messages.plural.plural_form
    return len(rule.tags | {"other"})


def problems() -> list[str]:
    found: list[str] = []
    catalogs = {language: catalog(language) for language in LANGUAGES}
    reference = catalogs[DEFAULT_LANGUAGE].messages
    for language, messages in catalogs.items():
        for key in reference.keys() - messages.messages.keys():
            found.append(f"{language}: missing {key!r}")
        for key in messages.messages.keys() - reference.keys():
            found.append(f"{language}: {key!r} is not in {DEFAULT_LANGUAGE}")
        for key, template in messages.messages.items():
            base = reference.get(key)
            if base is None:
                continue
            if isinstance(base, tuple) != isinstance(template, tuple):
                found.append(f"{language}: {key!r} plural forms in one language but not the other")
            elif isinstance(template, tuple) and len(template) != plural_count(messages):
                wanted = plural_count(messages)
                found.append(f"{language}: {key!r} has {len(template)} plural forms, wants {wanted}")
            expected = placeholders(forms(base)[0])
            for form in forms(template):
                if placeholders(form) != expected:
                    found.append(f"{language}: {key!r} placeholders {sorted(placeholders(form))} "
                                 f"!= {DEFAULT_LANGUAGE} {sorted(expected)}")  # fmt: skip
                if language.startswith("zh"):
                    found += [f"{language}: {key!r} has English: {run!r}" for run in english_runs(form)]
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(line)
    if not found:
        print(f"catalogs agree: {len(catalog(DEFAULT_LANGUAGE).messages)} keys in {', '.join(LANGUAGES)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

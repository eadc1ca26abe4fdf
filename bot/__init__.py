"""The platform-neutral core, in layers, each a package whose docstring says what it may import:

- `bot.domain`: what the exam is (questions, question types, grading, rounds, scoring, FSRS
  cards, papers): pure, imports nothing of the core but `bot.locales`;
- `bot.views`: what a front end renders and its text layout: may import the domain;
- `bot.ports`: what the core needs from outside (storage, scheduler, chat platforms, charts):
  may import the domain and the views;
- `bot.application`: what a person can do (the catalog and its use cases): may import all;
- `bot.locales`: the catalogs in zh-CN, en and zh-TW, and `bot.locales.i18n` that reads them.

The core imports no platform, storage or scheduler library; tests/test_import_boundary.py
checks every rule on every module.
"""

"""The views: what a front end renders, as plain values in the chat's language, and their text
layout for the text-first chats (console, Telegram). Quiz views (`quiz`, `quiz_text`), study views
(`study`, `study_text`, the mock exam's `mock_exam_text`, `progress`), what a chart shows
(`charts`), bidirectional text (`bidi`).

May import the standard library, `bot.locales` and `bot.domain`; never the ports or the
application.
"""

"""The application: what a person can do. The command catalog with typed handler keys
(`commands/`), the Application a chat adapter calls (`app`), answering clicks, forms and typed
text (`answering`, `clicks`), the group quiz, dailies and contests, the outbox that posts on the
core's own initiative, and the study tools for one person (`study/`).

May import the standard library and every other package of the core (`bot.domain`, `bot.views`,
`bot.ports`, `bot.locales`). The chat adapters import the application and the views they render.
"""

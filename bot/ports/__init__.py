"""The ports: what the core needs from outside, as Protocols and the errors they raise. Storage
cut by aggregate with a unit of work (`storage`, `study_storage`), the scheduler, the chat
platforms (`chat`), the broadcast between processes, the chart renderer, metrics, and the
optional extras (`missing_extra`). Implementations live in `adapters/`.

May import the standard library, `bot.locales`, `bot.domain` and `bot.views` (the outbox port
stores the views it owes; the chart port draws chart views); never the application.
"""

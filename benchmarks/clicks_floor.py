"""The floor of the click benchmark: the bare library answering every button click with a fixed
text and nothing else (no database, no grading), against the same fake server.

Run by benchmarks/clicks.py as a process of its own, like `studybot run`:
``python benchmarks/clicks_floor.py telegram|discord`` with the token and endpoint variables
studybot reads (TELEGRAM_TOKEN + TELEGRAM_API_BASE, or DISCORD_TOKEN + DISCORD_API_BASE +
DISCORD_GATEWAY_URL). Telegram: python-telegram-bot with 256 concurrent updates, /quiz posts a
message with four buttons. Discord: a discord.py Client; the fake posts the buttons itself.
"""

from __future__ import annotations

import os
import sys


def telegram() -> None:
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
    from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes

    app = (
        ApplicationBuilder().token(os.environ["TELEGRAM_TOKEN"]).base_url(os.environ["TELEGRAM_API_BASE"])
        .concurrent_updates(256).job_queue(None).build()
    )  # fmt: skip

    async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        buttons = [InlineKeyboardButton(x, callback_data=f"f:{x}") for x in "ABCD"]
        assert update.effective_chat is not None
        await update.effective_chat.send_message("Question", reply_markup=InlineKeyboardMarkup([buttons]))

    async def click(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query is not None
        await update.callback_query.answer("ok")

    app.add_handler(CommandHandler("quiz", quiz))
    app.add_handler(CallbackQueryHandler(click))
    app.run_polling(poll_interval=0.0, timeout=10, allowed_updates=[Update.MESSAGE, Update.CALLBACK_QUERY])


def discord_() -> None:
    import discord
    import yarl

    discord.http.Route.BASE = os.environ["DISCORD_API_BASE"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])
    client = discord.Client(intents=discord.Intents(guilds=True))

    @client.event
    async def on_interaction(interaction: discord.Interaction) -> None:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.send_message("ok", ephemeral=True)

    client.run(os.environ["DISCORD_TOKEN"], log_handler=None)


if __name__ == "__main__":
    {"telegram": telegram, "discord": discord_}[sys.argv[1]]()

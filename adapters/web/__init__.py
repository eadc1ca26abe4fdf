"""The study web app: a mobile-first page inside Telegram (a Mini App) and in any browser, served
by the bot's own HTTP server under /app (adapters/web/server.py), over the application layer."""

from adapters.web.server import WebApp as WebApp

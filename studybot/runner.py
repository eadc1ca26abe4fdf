"""Runs the app: bootstrap, start the adapters whose tokens are set (else the console), stop cleanly."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import TYPE_CHECKING, Protocol

from adapters.storage.open_errors import StoreOpenError
from bank.loader import BankError
from bot.application.app import NoHandler
from bot.ports.chat import ChatPort
from studybot.bootstrap import App, bootstrap
from studybot.config import Config
from studybot.ops import start_server
from studybot.startup_failures import AdapterStartError, platform_failure, say, store_failure
from studybot.tuning import tune_gc

if TYPE_CHECKING:
    from adapters.ops.http_server import OpsServer
    from adapters.telegram.settings import TelegramSettings

log = logging.getLogger("studybot")


class PlatformAdapter(ChatPort, Protocol):
    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    def connected(self) -> bool:
        """Connected to the platform now (for /readyz)."""
        ...


def telegram_settings(config: Config) -> TelegramSettings:
    from adapters.telegram.settings import TelegramSettings

    return TelegramSettings(
        token=config.telegram_token, api_base=config.telegram_api_base,
        webhook_url=config.telegram_webhook_url, webhook_secret=config.telegram_webhook_secret,
        webhook_listen=config.telegram_webhook_listen,
        webhook_port=config.telegram_webhook_port, language=config.language,
    )  # fmt: skip


def platform_adapters(app: App, config: Config) -> list[PlatformAdapter]:
    """One adapter per configured token; imported lazily so the console needs neither library."""
    adapters: list[PlatformAdapter] = []
    if config.discord_token:
        from adapters.discord import DiscordAdapter, DiscordSettings

        shards = config.discord_shards
        discord_settings = DiscordSettings(
            config.discord_token.value, api_base=config.discord_api_base,
            gateway_url=config.discord_gateway_url, dev_guild=config.discord_dev_guild,
            shard_ids=shards.ids if shards else None, shard_count=shards.count if shards else None,
        )  # fmt: skip
        adapters.append(DiscordAdapter(app.application, discord_settings))
    if config.telegram_token:
        from adapters.telegram import TelegramAdapter

        adapters.append(TelegramAdapter(app.application, telegram_settings(config)))
    return adapters


async def run_app(config: Config, *, force_console: bool = False) -> int:
    try:
        app = await bootstrap(config)
    except BankError as exc:
        print("studybot: a question bank has errors:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    except StoreOpenError as exc:
        store_failure(exc, config.language)
        return 1
    except NoHandler as exc:  # a catalog entry nothing carries out: this build is broken
        say(config.language, "startup.no_handler", command=exc.command)
        return 1
    tune_gc()
    ops: OpsServer | None = None
    try:
        adapters = [] if force_console else platform_adapters(app, config)
        try:
            ops = await start_server(app, config, adapters)
        except OSError as exc:
            say(config.language, "startup.http_port_taken", port=config.http_port, detail=exc.strerror or exc)
            return 1
        if adapters:
            try:
                await run_platforms(app, adapters)
            except AdapterStartError as exc:
                if not platform_failure(exc, config):
                    raise exc.cause from None  # not the operator's to fix: a bug, keep its traceback
                return 1
        else:
            from adapters.console import ConsoleAdapter

            console = ConsoleAdapter(app.application, data_dir=config.data_dir)
            app.add_port(console)
            await app.start()
            await console.run()
    finally:
        if ops is not None:
            await ops.stop()
        await app.close()
    return 0


async def run_platforms(app: App, adapters: list[PlatformAdapter], stop: asyncio.Event | None = None) -> None:
    """Run Discord and/or Telegram on this loop until SIGINT/SIGTERM (or `stop` is set)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
            pass
    for adapter in adapters:
        app.add_port(adapter)
    started: list[PlatformAdapter] = []
    try:
        for adapter in adapters:
            try:
                await adapter.start()
            except Exception as exc:
                raise AdapterStartError(adapter.platform, exc) from exc
            started.append(adapter)
            log.info("%s adapter started", adapter.platform)
        await app.start()
        await stop.wait()
        log.info("stopping")
    finally:
        # The posts under way are finished while the platforms' connections are still open.
        await app.quiesce()
        for adapter in reversed(started):
            try:
                await adapter.stop()
            except Exception:  # one adapter failing to stop must not keep the others running
                log.exception("%s adapter did not stop cleanly", adapter.platform)

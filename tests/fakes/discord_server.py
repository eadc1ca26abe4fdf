"""FakeDiscord: an aiohttp server on 127.0.0.1 playing Discord's REST API (/api/v10) and gateway
(/gateway) for the real discord.py, checking every request against Discord's OpenAPI spec."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

from aiohttp import web

from tests.fakes.discord_gateway import PRIVILEGED_INTENTS, Gateway, GatewaySession
from tests.fakes.discord_models import FakeAttachment, FakeUser, InteractionRecord, snowflake
from tests.fakes.discord_pipeline import API_PREFIX, RestPipeline, SpecViolation
from tests.fakes.discord_rest import ApiRequest
from tests.fakes.discord_simulation import SimulationMixin
from tests.fakes.discord_spec import load_spec
from tests.fakes.discord_store import DiscordStore
from tests.waits import HANG

T = TypeVar("T")


class FakeDiscord(RestPipeline, DiscordStore, SimulationMixin):
    """Use as `async with FakeDiscord() as server:`; build guilds with add_guild/add_member/
    guild.add_text_channel, point discord.py at `api_base`/`gateway_url`, then drive users with
    slash_command/click/submit_modal/react/post_message and inspect requests/messages_in/followups."""

    def __init__(
        self, *, token: str = "fake-bot-token", bot_name: str = "StudyBot", heartbeat_interval: float = 41.25,
        interaction_deadline: float = 3.0, followup_ttl: float = 15 * 60, enforce_rate_limits: bool = False,
        allowed_privileged_intents: int = PRIVILEGED_INTENTS, spec_path: str | None = None,
    ) -> None:
        self.token = token
        # Applications made since 2020 have a bot user whose id is the application id.
        self.application_id = snowflake()
        self.bot = FakeUser(self.application_id, bot_name, bot=True)
        self.owner = FakeUser(snowflake(), "app-owner")
        self.application_flags = (1 << 13) | (1 << 15) | (1 << 19)  # the *_LIMITED privileged-intent flags
        self.heartbeat_interval = heartbeat_interval  # seconds, sent in HELLO
        self.interaction_deadline = interaction_deadline  # seconds to the first callback
        self.followup_ttl = followup_ttl  # seconds the interaction token stays valid
        self.enforce_rate_limits = enforce_rate_limits
        self.allowed_privileged_intents = allowed_privileged_intents
        self.custom_emojis: set[str] = set()  # ids of custom emojis the bot may use
        self.strict = True  # the fixture fails the test on spec violations at teardown
        self.recommended_shards = 1  # what GET /gateway/bot says
        self.spec = load_spec(spec_path)
        self.gateway = Gateway(self)
        self._init_store()
        self._init_pipeline()
        self._clock_offset = 0.0
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self) -> FakeDiscord:
        app = web.Application()
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._handle_api)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway-resume", self.gateway.handle)
        app.router.add_get("/ephemeral-attachments/{tail:.*}", self._serve_cdn)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def close(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def api_base(self) -> str:
        """What discord.http.Route.BASE must be set to."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    def attachment(self, filename: str, data: bytes, content_type: str | None = None) -> FakeAttachment:
        """A file a member attaches to a slash command (pass it as the option's value): on the
        fake CDN at once, as Discord uploads it before the interaction is sent."""
        attachment_id = snowflake()
        path = f"/ephemeral-attachments/{self.application_id}/{attachment_id}/{filename}"
        self.cdn[path] = data
        url = f"http://127.0.0.1:{self.port}{path}"
        return FakeAttachment(attachment_id, filename, data, url, content_type)

    async def _serve_cdn(self, request: web.Request) -> web.Response:
        """The CDN: the file's bytes, with no authorization (its URL is the secret)."""
        data = self.cdn.get(request.path)
        if data is None:
            return web.Response(status=404, text="Not Found")
        if "Authorization" in request.headers:  # the token never goes to the CDN
            problem = "the bot token was sent to the CDN"
            self.spec_violations.append(SpecViolation("GET", request.path, problem))
        self.cdn_downloads.append(request.path)
        self.notify()
        return web.Response(body=data, content_type="application/octet-stream")

    @property
    def gateway_url(self) -> str:
        """What discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY must be set to (and /gateway/bot says)."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        """Sent in READY; a separate path so tests can see that RESUME went there."""
        return f"ws://127.0.0.1:{self.port}/gateway-resume"

    def clock(self) -> float:
        """Monotonic time the fake judges deadlines and buckets by; advance_clock moves it on."""
        return time.monotonic() + self._clock_offset

    def advance_clock(self, seconds: float) -> None:
        self._clock_offset += seconds

    def notify(self) -> None:
        """Wake every wait_for; called after each state change."""
        self._changed.set()
        self._changed = asyncio.Event()

    # A wait that misses fails as an AssertionError saying what was awaited and the last requests.
    async def wait_for(self, predicate: Callable[[], T], timeout: float = HANG,
                       what: str = "condition") -> T:
        """Until predicate() is truthy; returns its value."""
        async def poll() -> T:
            while True:
                changed = self._changed
                result = predicate()
                if result:
                    return result
                await changed.wait()

        try:
            return await asyncio.wait_for(poll(), timeout)
        except TimeoutError:
            recent = ", ".join(str(r) for r in self.requests[-5:]) or "none"
            message = f"fake Discord: no {what} within {timeout}s; last requests: {recent}"
            raise AssertionError(message) from None

    async def wait_ready(self, timeout: float = HANG) -> GatewaySession:
        """Until a bot has identified and been sent READY and its GUILD_CREATEs."""
        return await self.wait_for(
            lambda: next((s for s in self.gateway.live_sessions if s.ready), None), timeout, "READY")

    async def wait_for_callback(self, interaction: InteractionRecord | int,
                                timeout: float = HANG) -> dict[str, Any]:
        """The accepted callback body ({"type": 4, "data": {...}}) of an interaction."""
        iid = interaction.id if isinstance(interaction, InteractionRecord) else int(interaction)
        return await self.wait_for(lambda: self.interactions[iid].response, timeout, f"callback of {iid}")

    async def wait_for_request(self, method: str, path_regex: str,
                               predicate: Callable[[ApiRequest], bool] | None = None,
                               timeout: float = HANG) -> ApiRequest:
        """The first answered request with this method whose path (without /api/v10) re.search-es."""
        def find() -> ApiRequest | None:
            return next((r for r in self.requests if r.status and r.method == method
                         and re.search(path_regex, r.path) and (predicate is None or predicate(r))), None)

        return await self.wait_for(find, timeout, f"{method} {path_regex}")

    def assert_all_requests_valid(self) -> None:
        problems = [str(v) for v in self.spec_violations]
        problems += [f"not implemented by the fake: {r}" for r in self.unhandled_routes]
        assert not problems, "Requests Discord's API would not accept:\n" + "\n".join(problems)

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id), "name": self.bot.username, "icon": None, "description": "",
            "summary": "", "type": None, "bot_public": True, "bot_require_code_grant": False,
            "verify_key": "0" * 64, "owner": self.owner.payload(), "team": None,
            "flags": self.application_flags,
            "rpc_origins": [], "redirect_uris": [], "interactions_endpoint_url": None, "tags": [],
            "role_connections_verification_url": None, "approximate_guild_count": len(self.guilds),
            "integration_types_config": {"0": {}}, "bot": self.bot.payload(),
        }

    def ready_payload(self, session: GatewaySession) -> dict[str, Any]:
        user = {**self.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0, "email": None}
        guilds = [{"id": str(g), "unavailable": True} for g in self.guilds if session.owns(g)]
        data: dict[str, Any] = {
            "v": 10, "user": user, "guilds": guilds,
            "session_id": session.id, "session_type": "normal", "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [], "relationships": [], "presences": [], "guild_join_requests": [],
            "geo_ordered_rtc_regions": [], "user_settings": {}, "_trace": ["fake-discord"],
        }
        if "shard" in session.identify:
            data["shard"] = session.identify["shard"]
        return data

"""What the Discord adapter needs to know besides the application: plain values, no config object."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class DiscordSettings:
    token: str = field(repr=False)
    api_base: str | None = None  # another API root (a test server); None: Discord's
    gateway_url: str | None = None
    dev_guild: str | None = None  # sync the commands to this server only (they show at once)
    guild_ready_timeout: float = 2.0
    count_delay: float = 2.0  # seconds between edits of a question's live answer count
    # The gateway shards this process runs, of shard_count in all (None: every shard Discord
    # recommends, in this process). Guild events come to the shard (guild_id >> 22) % shard_count,
    # DMs to shard 0; any process can post anywhere over REST.
    shard_ids: tuple[int, ...] | None = None
    shard_count: int | None = None

"""Which Discord shards this process runs: `STUDYBOT_DISCORD_SHARDS` such as `0-3/8` (shards 0 to
3 of 8), `1/2` (shard 1 of 2) or `0-1,4/8`. A guild belongs to shard (guild_id >> 22) % count, so
every process of one bot must give the same count, and together they must cover every shard."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PART = re.compile(r"^(\d+)(?:-(\d+))?$")


@dataclass(frozen=True, slots=True)
class ShardSpec:
    ids: tuple[int, ...]
    count: int

    def __str__(self) -> str:
        return ",".join(str(i) for i in self.ids) + f"/{self.count}"


def parse_shards(text: str) -> ShardSpec:
    """`A-B/N`, `A/N` or a comma-separated list of those; ValueError for anything else (empty
    ranges, a shard at or above the total, the same shard twice)."""
    spec, slash, total = text.strip().partition("/")
    if not slash or not total.strip().isdigit() or int(total) < 1:
        raise ValueError("not SHARDS/TOTAL")
    count = int(total)
    ids: list[int] = []
    for part in spec.split(","):
        found = _PART.match(part.strip())
        if found is None:
            raise ValueError("not a shard or a range of shards")
        first = int(found[1])
        last = int(found[2]) if found[2] is not None else first
        if last < first or last >= count:
            raise ValueError("a shard outside 0..TOTAL-1")
        ids.extend(range(first, last + 1))
    if len(set(ids)) != len(ids):
        raise ValueError("a shard given twice")
    return ShardSpec(tuple(sorted(ids)), count)

"""A token-bucket rate limit per key (a remote address, or one key for all of them)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

# Buckets kept; the least recently used goes first (a forgotten address starts full again).
MAX_KEYS = 10_000


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimit:
    """A token bucket per key: `per_minute` tokens a minute, holding at most as many."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def wait_s(self, key: str) -> float:
        """0 when the key may go now (a token is taken), else the seconds until it may."""
        now = time.monotonic()
        bucket = self._buckets.pop(key, None) or _Bucket(float(self.per_minute), now)
        refill = (now - bucket.updated) * self.per_minute / 60
        bucket.tokens, bucket.updated = min(self.per_minute, bucket.tokens + refill), now
        self._buckets[key] = bucket
        if len(self._buckets) > MAX_KEYS:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) * 60 / self.per_minute

"""Packing context into a token budget. Tokens are estimated as characters / 4 (rounded up):
close enough for English text and JSON with common tokenizers, and free to compute. Packing is
greedy in the order given: an item that does not fit is skipped (and counted), and smaller items
after it may still fit."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
CHARS_PER_TOKEN = 4
SEPARATORS = (",", ":")
MAX_BUDGET = 200_000


def estimate_tokens(*parts: Any) -> int:
    """Tokens of the text parts (other values as their compact JSON, dates as text); None
    parts count 0."""
    chars = 0
    for part in parts:
        if part is None:
            continue
        text = (
            part if isinstance(part, str) else json.dumps(part, separators=SEPARATORS, default=str)
        )
        chars += len(text)
    return math.ceil(chars / CHARS_PER_TOKEN)


@dataclass
class TokenBudget:
    limit: int
    used: int = 0
    omitted: int = 0

    def take(self, tokens: int) -> bool:
        """Spend `tokens` if they fit; otherwise count the item as omitted."""
        if self.used + tokens > self.limit:
            self.omitted += 1
            return False
        self.used += tokens
        return True

    def pack(self, items: Iterable[T], tokens: Callable[[T], int]) -> list[T]:
        """The items that fit, in their order."""
        return [item for item in items if self.take(tokens(item))]

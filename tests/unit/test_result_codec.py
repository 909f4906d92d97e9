"""The idempotency result codec (app/domain/kernel/result_codec.py) on arbitrary JSON: a caller's
content may hold maps whose keys look like the codec's own tags ("$t", "v", "c") and values that
look like tag names; every such value comes back exactly (review 2 of issue 11, M-4)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.kernel.result_codec import decode, encode
from app.domain.sessions.repository import SessionStart

KEYS = ["$t", "v", "c", "id", "$", "t", ""]
WORDS = ["map", "tuple", "datetime", "date", "bytes", "enum", "dataclass", "x", "$t"]


def json_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, maps and lists nested up to five deep."""
    kind = rng.randrange(7 if depth < 5 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -7, 2**53, 1.5, -0.25])
    if kind in (2, 3):
        return rng.choice(WORDS)
    if kind == 4:
        return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = rng.sample(KEYS, rng.randrange(1, 4))
    return {key: json_value(rng, depth + 1) for key in keys}


def test_maps_with_tag_keys_round_trip_exactly() -> None:
    for content in (
        {"$t": 1},
        {"$t": "map", "v": {"$t": "tuple", "v": [1]}},
        {"$t": None},
        [{"$t": "datetime", "v": "2027-01-01T00:00:00"}],
    ):
        assert decode(encode(content)) == content
        assert json.loads(json.dumps(decode(encode(content)))) == content


def test_arbitrary_json_round_trips_exactly() -> None:
    rng = random.Random(11)
    for _ in range(2_000):
        value = json_value(rng)
        assert decode(encode(value)) == value


def test_tag_keys_inside_a_stored_result_round_trip() -> None:
    now = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    record = {"id": "r", "created_at": now, "content": {"$t": "enum", "c": "os:system", "v": 1}}
    value = SessionStart(session=record, created=True)
    assert decode(encode(value)) == value


def test_a_result_stored_before_its_class_moved_still_decodes() -> None:
    value = SessionStart(session={"id": "s1"}, created=True)
    stored = encode(value)
    assert SessionStart.__module__ in stored
    moved = stored.replace(SessionStart.__module__, "app.domain.memory_sessions")
    assert decode(moved) == value


def test_a_stored_class_that_no_longer_exists_is_refused() -> None:
    stored = encode(SessionStart(session={}, created=False))
    gone = stored.replace(":SessionStart", ":NoSuchResult")
    with pytest.raises(TypeError, match="no longer exists"):
        decode(gone)

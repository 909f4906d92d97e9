"""Faster conversion of date-times between Python and Bolt, for the Neo4j driver.

The driver (pinned in pyproject.toml) turns a date-time into its Bolt structure and back in pure
Python through its own `neo4j.time` arithmetic: 50-80 µs each, about a third of the driver's
CPU time for a memory read (the `$now` of every query, created_at and updated_at of every
record, two per access-log entry). The common cases are done here with datetime arithmetic
(1-5 µs). A date-time going to Bolt becomes the very same structure. One coming back with an
offset (every date-time the service stores) becomes the Python datetime that the driver's
`DateTime.to_native()` would give, which is what the service's reads hand on
(app/graph/values.py): the driver's own DateTime, made and then converted, cost a search of 25
records about 1 ms (issue 19). Its nanoseconds beyond the microsecond are cut, as `to_native`
cuts them; the service's date-times have none (Python's, and Cypher's statement clock, which
counts milliseconds). Every other case is the driver's own.

`install()` puts these into the driver's Bolt 5+ hydration module (`neo4j._codec.hydration.v2
.temporal`, which its v2 and v3 hydration handlers read when a connection is made); not public
API: tests/unit/test_driver_internals.py compares them with the driver's own, and fails on an
upgrade that changes what they replace.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytz
from neo4j._codec.hydration.v2 import temporal as driver_codec
from neo4j._codec.packstream import Structure

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_WALL = datetime(1970, 1, 1)
DRIVER_DEHYDRATE = driver_codec.dehydrate_datetime
DRIVER_HYDRATE = driver_codec.hydrate_datetime


def dehydrate_datetime(value: Any) -> Any:
    """A Python datetime with a fixed offset (`datetime.UTC` among them) as the driver's
    Structure(b"I", seconds, nanoseconds, offset seconds); anything else as the driver does."""
    zone = value.tzinfo
    if type(value) is datetime and type(zone) is timezone:
        offset = zone.utcoffset(None)
        # Offsets of whole minutes, away from the calendar's ends: what the driver refuses
        # (an offset with seconds, a time that leaves the calendar in UTC) it refuses itself.
        if not offset.microseconds and not offset.seconds % 60 and 1 < value.year < 9999:
            since = value - EPOCH
            seconds = since.days * 86_400 + since.seconds
            return Structure(
                b"I", seconds, since.microseconds * 1000, offset.days * 86_400 + offset.seconds
            )
    return DRIVER_DEHYDRATE(value)


def hydrate_datetime(seconds: int, nanoseconds: int, tz: Any = None) -> Any:
    """A Bolt date-time with an offset as the Python datetime in that offset that the driver's
    DateTime.to_native() gives (its tzinfo too); named zones, local ones and the calendar's
    ends as the driver does."""
    if type(tz) is not int or tz % 60:
        return DRIVER_HYDRATE(seconds, nanoseconds, tz)
    try:
        wall = EPOCH_WALL + timedelta(seconds=seconds + tz, microseconds=nanoseconds // 1000)
    except OverflowError:
        return DRIVER_HYDRATE(seconds, nanoseconds, tz)
    return wall.replace(tzinfo=pytz.FixedOffset(tz // 60))


def install() -> None:
    """Use these for every connection the driver opens from now on (idempotent)."""
    driver_codec.dehydrate_datetime = dehydrate_datetime
    driver_codec.hydrate_datetime = hydrate_datetime

"""What the service relies on inside the pinned Neo4j driver: its date-time codec, replaced by a
faster one that must give the very same structures and values (app/graph/temporal_codec.py),
and the session flag that sends BEGIN with the first query (app/graph/transactions.py). Each
test fails on a driver upgrade that changes what it relies on."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest
import pytz
from neo4j import AsyncGraphDatabase
from neo4j._codec.hydration.v2 import temporal as driver_codec

from app.graph import temporal_codec
from app.graph.transactions import pipelined_begin

DATETIMES = [
    datetime(2026, 11, 26, 12, 8, 46, 756775, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
    datetime(2026, 3, 4, 5, 6, 7, 8, tzinfo=timezone(timedelta(hours=5, minutes=30))),
    datetime(2026, 3, 4, 5, 6, 7, 8, tzinfo=timezone(timedelta(hours=-8))),
    datetime.fromisoformat("2026-02-02T09:30:00.123456+02:00"),
    # Left to the driver: local, named zones, offsets with seconds, the calendar's ends.
    datetime(2026, 3, 4, 5, 6, 7),
    pytz.timezone("Europe/Rome").localize(datetime(2026, 7, 1, 12)),
    datetime(2026, 3, 4, tzinfo=timezone(timedelta(seconds=30.5))),
    datetime(2026, 3, 4, tzinfo=timezone(timedelta(hours=5, minutes=30, seconds=15))),
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-1))),
]
STRUCTURES = [
    (1795694926, 756775000, 0),
    (0, 0, 0),
    (-86401, 5, 0),
    (1795694926, 123456789, 3600),
    (1795694926, 999999999, -19800),
    (253402300799, 999999999, 0),
    (-62135596800, 0, 0),
    (1795694926, 999, 0),  # under a microsecond: cut, as to_native cuts it
    (253402300799, 0, 3600),  # past the calendar's end in its offset: the driver's
    (1795694926, 1, 45),  # an offset of seconds: the driver's
    (1795694926, 1, "Europe/Rome"),
    (1795694926, 1, None),
]


@pytest.mark.parametrize("value", DATETIMES, ids=str)
def test_datetimes_go_to_bolt_as_the_driver_sends_them(value: datetime) -> None:
    try:
        expected = temporal_codec.DRIVER_DEHYDRATE(value)
    except (ValueError, OverflowError) as refused:
        with pytest.raises(type(refused)):
            temporal_codec.dehydrate_datetime(value)
        return
    assert temporal_codec.dehydrate_datetime(value) == expected


@pytest.mark.parametrize("fields", STRUCTURES, ids=str)
def test_bolt_datetimes_come_back_as_the_driver_makes_them(fields: tuple[object, ...]) -> None:
    """With an offset of whole minutes, as the driver's DateTime.to_native() (what the service's
    reads hand on); anything else as the driver's own DateTime."""
    try:
        theirs = temporal_codec.DRIVER_HYDRATE(*fields)
    except (ValueError, OverflowError) as refused:
        with pytest.raises(type(refused)):
            temporal_codec.hydrate_datetime(*fields)
        return
    ours = temporal_codec.hydrate_datetime(*fields)
    if isinstance(fields[2], int) and fields[2] % 60 == 0:
        theirs = theirs.to_native()
        assert type(ours) is datetime
    assert ours == theirs
    assert repr(ours) == repr(theirs) and ours.tzinfo is theirs.tzinfo


def test_install_puts_them_where_the_driver_reads_them() -> None:
    temporal_codec.install()
    assert driver_codec.dehydrate_datetime is temporal_codec.dehydrate_datetime
    assert driver_codec.hydrate_datetime is temporal_codec.hydrate_datetime
    # The hydration handlers of Bolt 5 and 6 take them from that module when a connection opens.
    from neo4j._codec.hydration.v3 import HydrationHandler

    handler = HydrationHandler()
    assert handler.struct_hydration_functions[b"I"] is temporal_codec.hydrate_datetime
    assert handler.dehydration_hooks.exact_types[datetime] is temporal_codec.dehydrate_datetime


def test_a_session_can_send_begin_with_its_first_query() -> None:
    async def check() -> None:
        driver = AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x"))
        try:
            session = driver.session()
            flag = pipelined_begin(session)
            assert flag is session._pipelined_begin
            assert not flag
            with flag:
                assert flag  # what the session reads when it opens its transaction
            assert not flag
        finally:
            await driver.close()

    asyncio.run(check())

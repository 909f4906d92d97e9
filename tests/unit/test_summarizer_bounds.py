"""The extractive summarizer's cost on hostile text (review 2 of issue 11, M-1): every cue
pattern is linear in the text (an unbounded email pattern took 1.3 s and the address pattern
4.1 s on 20,000 characters), and a thread's cost does not grow with its messages' length past
what the summarizer reads of each (MAX_SCANNED), so 200 events of 200,000 characters cost about
what 200 short ones do."""

from __future__ import annotations

import re
import time

import pytest

from app.domain.conversations import vocab as v
from app.domain.conversations.summarizer import MAX_SCANNED, Message, summarize

HOSTILE_UNITS = ["a", "1", " ", "1 ", "a@", "a.", "@a", "?", " ?", "$1", "1 a ", "a-", "1(", "\n"]
LONG = 20_000


def patterns() -> list[tuple[str, re.Pattern[str]]]:
    named = [(name, value) for name, value in vars(v).items() if isinstance(value, re.Pattern)]
    for slot, (asked, answered) in v.SLOTS.items():
        named += [(f"{slot} asked", asked), (f"{slot} answered", answered)]
    return named


def repeated(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


@pytest.mark.parametrize(("name", "pattern"), patterns(), ids=[n for n, _ in patterns()])
def test_every_cue_pattern_is_fast_on_long_hostile_text(
    name: str, pattern: re.Pattern[str]
) -> None:
    for unit in HOSTILE_UNITS:
        text = repeated(unit, LONG)
        started = time.perf_counter()
        pattern.findall(text)
        pattern.findall("1 " + text + "!")
        # linear patterns take a few ms here; the quadratic ones took seconds
        assert time.perf_counter() - started < 0.25, (name, unit)


def hostile_thread(length: int) -> list[Message]:
    texts = [repeated(unit, length) for unit in ("a", "1", "Could you send your email? ", "1 a ")]
    return [Message("outbound" if n % 2 else "inbound", texts[n % len(texts)]) for n in range(200)]


def timed(messages: list[Message]) -> float:
    started = time.perf_counter()
    summarize(messages)
    return time.perf_counter() - started


def test_long_messages_cost_about_what_messages_of_the_scanned_length_cost() -> None:
    short = hostile_thread(MAX_SCANNED)
    long = hostile_thread(200_000)
    baseline = min(timed(short) for _ in range(2))
    assert timed(long) < 3 * baseline + 0.05
    assert baseline < 5.0  # 200 hostile messages: well under a second on a busy core


def test_bounded_patterns_still_find_what_they_did() -> None:
    asked = Message("outbound", "What's your email and your address? And a good phone number?")
    answer = Message(
        "inbound", "Sure: jo.doe+home@mail.example.com, 1200 North Creek Road, (555) 123-4567."
    )
    assert summarize([asked]).open_questions == ["Address", "Phone number", "Email"]
    assert summarize([asked, answer]).open_questions == []
    late = Message("inbound", "x" * (MAX_SCANNED + 10) + " jo@mail.example.com")
    assert "Email" in summarize([asked, late]).open_questions  # past what is read

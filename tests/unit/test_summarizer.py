"""The extractive summarizer on realistic DM and comment threads, including seed 000's 9.2."""

from __future__ import annotations

from app.domain.conversations.summarizer import MAX_SHORT, Message, summarize


def inbound(text: str, **extra: object) -> Message:
    return Message("inbound", text, **extra)  # type: ignore[arg-type]


def outbound(text: str) -> Message:
    return Message("outbound", text)


SEED_92 = [
    inbound("Hi! How much do you charge for a tankless water heater install?"),
    outbound(
        "Great question! Pricing depends on your home, so we do a free in-home estimate. "
        "Could you share your address and your timeline for the install?"
    ),
]


def test_seed_example_pricing_estimate_address_timeline() -> None:
    draft = summarize(SEED_92, participant="ig:user:456", platform="instagram", thread_type="dm")
    assert draft.who == "ig:user:456"
    assert draft.wants == ["How much do you charge for a tankless water heater install?"]
    assert draft.offered == ["Pricing depends on your home, so we do a free in-home estimate."]
    assert draft.open_questions == ["Address", "Timeline"]
    assert draft.pending == [
        "awaiting their reply to: Could you share your address and your timeline for the install?"
    ]
    assert draft.temperature == "neutral" and draft.escalation == []
    assert draft.short.startswith("ig:user:456 on instagram dm. Wants: ")
    assert "Open questions: Address, Timeline." in draft.short
    assert "## Open questions\n- Address\n- Timeline" in draft.long


def test_answers_close_open_questions() -> None:
    answered = [
        *SEED_92,
        inbound("Sure, it's 42 Elm Street in Oakland. Hoping to get it done next week."),
    ]
    draft = summarize(answered, participant="ig:user:456")
    assert draft.open_questions == []
    assert draft.pending == ["their last message has no reply yet"]
    half = [*SEED_92, inbound("We live at 9 Oak Avenue.")]
    assert summarize(half).open_questions == ["Timeline"]


def test_name_offers_promises_and_unanswered_questions() -> None:
    thread = [
        inbound("Hey, my name is Dana Ruiz. I'm interested in replacing my old water heater."),
        outbound(
            "Hi Dana, thanks for reaching out! We have a spring special: $200 off tankless "
            "installs, and financing is available. See https://example.com/tankless. "
            "What's the best phone number to reach you?"
        ),
        inbound("Sure, 555-201-3344. Do you also service Oakland?"),
        outbound("Yes we do. I'll check the schedule and get back to you with a time tomorrow."),
        inbound("👍", event_type="reaction"),
        inbound("Great, thanks! Also what brands do you carry?"),
    ]
    draft = summarize(thread, participant="ig:user:999", platform="instagram", thread_type="dm")
    assert draft.who == "Dana Ruiz (ig:user:999)"
    assert draft.wants[0].startswith("I'm interested in replacing my old water heater")
    assert draft.wants[-1] == "Also what brands do you carry?"
    assert "We have a spring special: $200 off tankless installs, and financing is available." in (
        draft.offered
    )
    assert "See https://example.com/tankless." in draft.offered
    assert all("I'll check" not in offer for offer in draft.offered)  # a promise, not an offer
    assert draft.open_questions == []  # the phone number was given
    assert draft.pending == [
        "their question, not answered yet: Also what brands do you carry?",
        "we promised: I'll check the schedule and get back to you with a time tomorrow.",
    ]
    assert draft.temperature == "warm"


def test_upset_user_with_escalation_triggers() -> None:
    thread = [
        inbound(
            "This is ridiculous, the tech never showed up. I want a refund or I'm calling "
            "my lawyer."
        ),
        outbound("I'm so sorry. Could you send your order number and your email?"),
    ]
    draft = summarize(thread, participant="fb:user:1")
    assert draft.temperature == "upset"
    assert draft.escalation == ["refund", "lawyer"]
    assert draft.open_questions == ["Email"]
    assert "Escalation triggers: refund, lawyer." in draft.short


def test_photos_answered_by_media_and_not_mistaken_names() -> None:
    thread = [
        inbound("I'm Looking for someone to fix a leak under my sink."),
        outbound("Happy to help! Can you send a few photos of the pipes?"),
        inbound("", has_media=True),
    ]
    draft = summarize(thread, participant="tt:user:7")
    assert draft.who == "tt:user:7"  # "Looking" is not a name
    assert draft.open_questions == []
    without_media = summarize(thread[:2], participant="tt:user:7")
    assert without_media.open_questions == ["Photos"]


def test_deterministic_bounded_and_empty_safe() -> None:
    long_thread = [inbound(f"Question {n}: can you install unit model X{n}?") for n in range(300)]
    first = summarize(long_thread, participant="yt:user:1")
    assert first == summarize(long_thread, participant="yt:user:1")
    assert len(first.short) <= MAX_SHORT and len(first.wants) == 3
    assert first.wants[0].startswith("Question 0") and first.wants[-1].startswith("Question 299")
    empty = summarize([], participant=None)
    assert empty.who == "unknown participant" and "Nothing pending." in empty.short

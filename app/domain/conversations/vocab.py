"""The vocabulary of the extractive summarizer: cue patterns for requests, offers, promises,
asked-for details with what answers them, temperature and escalation triggers (English)."""

from __future__ import annotations

import re


def lowered(text: str) -> str:
    """What every pattern here but NAME matches: the text in lower case (case-insensitive
    matching in Python's re is 3-5 times slower, and the summarizer reads whole threads)."""
    return text.lower()


SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
NAME = re.compile(
    r"\b(?:[Mm]y name is|[Mm]y name's|[Tt]his is|[Ii]t's|[Ii] am|[Ii]'m)\s+"
    r"([A-Z][a-z]{1,20}(?:\s+[A-Z][a-z]{1,20})?)\b"
)
NOT_NAMES = frozenset(
    "Interested Looking Just Not So Here Wondering Trying Curious Hoping Still Also Very Sure "
    "Getting Going Good Fine Thinking Ready Sorry Glad Happy Calling Writing Asking Reaching "
    "Available Back Done Home Out In On At The A An Currently".split()
)
REQUEST = re.compile(
    r"\b(?:want|need|looking for|interested in|would like|i'd like|id like|can you|could you|"
    r"do you|how much|price|pricing|cost|quote|estimate|book|schedule|appointment|available|"
    r"install|replace|repair|fix|help)\b",
)
OFFER = re.compile(
    r"\$\s?\d|\b\d+\s?%|\b(?:free|discount|offer|estimate|quote|special|deal|coupon|promo|"
    r"warranty|financing|consultation|book|schedule|appointment|price|pricing|starts? at)\b|"
    r"https?://|www\.",
)
PROMISE = re.compile(
    r"\b(?:i'll|i will|we'll|we will)\s+(?:\w+\s+){0,3}?"
    r"(?:get back|follow up|send|call|text|email|reach out|check|confirm|let you know)\b|"
    r"\b(?:follow up|get back to you)\b",
)
ASK = re.compile(
    r"\?\s*$|\b(?:please|pls)\s+(?:send|share|provide|let us know|let me know)\b|"
    r"\b(?:can|could|would) you (?:send|share|provide|tell|let)\b",
)
QUESTION = re.compile(r"\?\s*$")

# Detail we asked for -> (how an ask names it, how an inbound message answers it). Every
# repetition that a failed match could backtrack over is bounded ({1,64}, not +), so each
# pattern stays linear in the text (an unbounded `\d+\s+` took seconds on 20,000 digits).
SLOTS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "Address": (
        re.compile(r"\baddress\b|\blocation\b|\bwhere is the (?:home|house|property)\b"),
        re.compile(
            r"\b\d{1,6}\s{1,4}\w{1,40}(?:\s{1,4}\w{1,40})?\s{1,4}(?:st|street|ave|avenue|rd|road|"
            r"dr|drive|ln|lane|blvd|boulevard|way|ct|court|pl|place|cir|circle|pkwy|hwy)\b|"
            r"\baddress is\b|\blive (?:at|on)\b",
        ),
    ),
    "Timeline": (
        re.compile(r"\btimeline\b|\btime ?frame\b|\bhow soon\b|\bwhen (?:would|do|are) you\b"),
        re.compile(
            r"\b(?:asap|urgent|today|tonight|tomorrow|this (?:week|weekend|month)|next "
            r"(?:week|month|year)|within|in \d+|\d+ (?:days?|weeks?|months?)|no rush|"
            r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|fall|winter)\b",
        ),
    ),
    "Phone number": (
        re.compile(r"\bphone\b|\b(?:best|good) number\b|\bnumber to (?:call|reach)\b"),
        re.compile(r"\+?\d[\d\s().-]{7,20}\d"),
    ),
    "Email": (
        re.compile(r"\be-?mail\b"),
        re.compile(r"(?<=[\w.+-])@[\w-]{1,63}\.[\w.]{1,63}"),  # searched, never shown
    ),
    "Budget": (
        re.compile(r"\bbudget\b|\bprice range\b"),
        re.compile(r"\$\s?\d|\b\d+\s?(?:k|dollars|bucks)\b|\bunder \d"),
    ),
    "Zip code": (
        re.compile(r"\bzip\b|\bpostal code\b"),
        re.compile(r"\b\d{5}\b"),
    ),
    "Availability": (
        re.compile(r"\bavailab\w*\b|\bwhat time\b|\bwhich day\b|\bgood time\b|\bworks? for you\b"),
        re.compile(
            r"\b(?:mon|tues?|wed|thu(?:rs)?|fri|sat|sun)\w*\b|\b\d{1,2}\s?(?:am|pm)\b|"
            r"\b(?:morning|afternoon|evening|weekend|anytime|any time)\b",
        ),
    ),
    "Photos": (
        re.compile(r"\bphotos?\b|\bpictures?\b|\bpics?\b"),
        re.compile(r"\battached\b|\bhere (?:are|is) (?:a |the )?(?:photo|picture|pic)"),
    ),
}

POSITIVE = re.compile(
    r"\b(?:thanks|thank you|great|awesome|perfect|love|sounds good|interested|excited|"
    r"amazing|appreciate|yes please|wonderful)\b|👍|🙏|😊|❤️",
)
NEGATIVE = re.compile(
    r"\b(?:not happy|angry|upset|terrible|awful|worst|ridiculous|disappointed|frustrated|"
    r"unacceptable|rude|waste|too expensive|never again|horrible)\b|😡|👎",
)
ESCALATION = re.compile(
    r"\b(refund|lawyer|attorney|sue|legal action|complaint|complain|manager|supervisor|"
    r"chargeback|scam|fraud|emergency|gas smell|smell gas|carbon monoxide|flooding|injur\w*|"
    r"cancel\w*)\b",
)

"""The built-in extractive thread summarizer: no model, pure Python, deterministic.

It picks sentences and details out of a thread's messages (seed 000, 5.4): who the user is,
what they want, what we offered, what is pending (our unanswered asks, their unanswered
questions, our promises), the details we asked for and have not received (open questions),
temperature and escalation triggers. Agents may write better summaries (writeThreadSummary);
this one makes every thread summarizable without an LLM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from app.domain.conversations import vocab as v

MAX_SHORT = 1_200
MAX_SENTENCE = 160
# The cue patterns read this much of each message (its start): an event may hold 200,000
# characters, and a thread summary reads 200 events on the request's time.
MAX_SCANNED = 2_000


@dataclass(frozen=True)
class Message:
    direction: str  # "inbound" (from the user) or "outbound" (from us)
    text: str
    event_type: str = "dm_message"
    has_media: bool = False


@dataclass(frozen=True)
class ThreadSummaryDraft:
    short: str
    long: str
    who: str
    wants: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    temperature: str = "neutral"
    escalation: list[str] = field(default_factory=list)


def summarize(
    messages: Sequence[Message],
    *,
    participant: str | None = None,
    platform: str = "",
    thread_type: str = "",
) -> ThreadSummaryDraft:
    said = [
        replace(m, text=m.text[:MAX_SCANNED])
        for m in messages
        if (m.text.strip() or m.has_media) and m.event_type != "reaction"
    ]
    inbound = [m for m in said if m.direction == "inbound"]
    outbound = [m for m in said if m.direction == "outbound"]
    who = _who(inbound, participant)
    wants = _pick([s for m in inbound for s in _sentences(m.text) if _wants(s)])
    offered = _pick([s for m in outbound for s in _sentences(m.text) if _offer(s)])
    open_questions = _open_slots(said)
    pending = _pending(said)
    temperature = _temperature(inbound)
    escalation = list(
        dict.fromkeys(t for m in inbound for t in v.ESCALATION.findall(v.lowered(m.text)))
    )
    draft = ThreadSummaryDraft(
        short="",
        long="",
        who=who,
        wants=wants,
        offered=offered,
        pending=pending,
        open_questions=open_questions,
        temperature=temperature,
        escalation=escalation,
    )
    where = " ".join(part for part in (platform, thread_type) if part)
    return replace(draft, short=_short(draft, where), long=_long(draft, where, said))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in v.SENTENCE_SPLIT.split(text) if s.strip()]


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SENTENCE else text[: MAX_SENTENCE - 1].rstrip() + "…"


def _pick(sentences: list[str], keep: int = 3) -> list[str]:
    """The first sentence and the last ones (what started the thread and where it is now)."""
    unique = list(dict.fromkeys(_clip(s) for s in sentences))
    return unique if len(unique) <= keep else [unique[0], *unique[-(keep - 1) :]]


def _wants(sentence: str) -> bool:
    return bool(v.QUESTION.search(sentence) or v.REQUEST.search(v.lowered(sentence)))


def _offer(sentence: str) -> bool:
    low = v.lowered(sentence)
    return bool(v.OFFER.search(low)) and not v.PROMISE.search(low)


def _who(inbound: list[Message], participant: str | None) -> str:
    names = [
        match.group(1)
        for m in inbound
        for match in v.NAME.finditer(m.text)
        if match.group(1).split()[0] not in v.NOT_NAMES
    ]
    handle = participant or "unknown participant"
    return f"{names[0]} ({handle})" if names else handle


def _open_slots(said: list[Message]) -> list[str]:
    """Details an outbound ask named that no later inbound message supplies."""
    open_slots: list[str] = []
    answered_at = _last_answers(said)
    for index, message in enumerate(said):
        if message.direction != "outbound":
            continue
        asks = [s for s in _sentences(v.lowered(message.text)) if v.ASK.search(s)]
        for slot, (named, _) in v.SLOTS.items():
            if not any(named.search(s) for s in asks):
                continue
            done = answered_at.get(slot, -1) > index
            if done and slot in open_slots:
                open_slots.remove(slot)
            elif not done and slot not in open_slots:
                open_slots.append(slot)
    return open_slots


def _last_answers(said: list[Message]) -> dict[str, int]:
    """Per detail, the index of the last inbound message that supplies it (each message is
    searched once per detail, not once per ask before it)."""
    last: dict[str, int] = {}
    for slot, (_, answered) in v.SLOTS.items():
        for index in range(len(said) - 1, -1, -1):
            m = said[index]
            if m.direction == "inbound" and (
                answered.search(v.lowered(m.text)) or (slot == "Photos" and m.has_media)
            ):
                last[slot] = index
                break
    return last


def _pending(said: list[Message]) -> list[str]:
    pending: list[str] = []
    last_out = max((i for i, m in enumerate(said) if m.direction == "outbound"), default=-1)
    if said and said[-1].direction == "outbound":
        asks = [s for s in _sentences(said[-1].text) if v.ASK.search(v.lowered(s))]
        pending.append(f"awaiting their reply to: {_clip(asks[-1])}" if asks else "awaiting reply")
    unanswered = [
        s for m in said[last_out + 1 :] if m.direction == "inbound" for s in _sentences(m.text)
    ]
    questions = [s for s in unanswered if v.QUESTION.search(s)]
    if questions:
        pending.append(f"their question, not answered yet: {_clip(questions[-1])}")
    elif unanswered:
        pending.append("their last message has no reply yet")
    promises = [s for m in said if m.direction == "outbound" for s in _sentences(m.text)]
    promised = [p for p in promises if v.PROMISE.search(v.lowered(p))]
    pending += [f"we promised: {s}" for s in _pick(promised, 2)]
    return pending


def _temperature(inbound: list[Message]) -> str:
    texts = [v.lowered(m.text) for m in inbound]
    positive = sum(len(v.POSITIVE.findall(text)) for text in texts)
    negative = sum(len(v.NEGATIVE.findall(text)) for text in texts)
    if negative and negative * 2 >= positive:
        return "upset"
    return "warm" if positive else "neutral"


def _short(d: ThreadSummaryDraft, where: str) -> str:
    parts = [f"{d.who}{f' on {where}' if where else ''}."]
    if d.wants:
        parts.append(_ended(f"Wants: {' / '.join(d.wants)}"))
    if d.offered:
        parts.append(_ended(f"We offered: {' / '.join(d.offered)}"))
    parts.append(_ended(f"Pending: {'; '.join(d.pending)}") if d.pending else "Nothing pending.")
    if d.open_questions:
        parts.append(f"Open questions: {', '.join(d.open_questions)}.")
    parts.append(f"Temperature: {d.temperature}.")
    if d.escalation:
        parts.append(f"Escalation triggers: {', '.join(d.escalation)}.")
    text = " ".join(parts)
    return text if len(text) <= MAX_SHORT else text[: MAX_SHORT - 1].rstrip() + "…"


def _ended(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _long(d: ThreadSummaryDraft, where: str, said: list[Message]) -> str:
    def section(title: str, items: list[str]) -> str:
        return f"## {title}\n" + ("\n".join(f"- {i}" for i in items) if items else "- none")

    inbound = sum(1 for m in said if m.direction == "inbound")
    head = f"# Thread summary\n\n{d.who}{f' on {where}' if where else ''}; "
    head += f"{inbound} inbound and {len(said) - inbound} outbound messages read."
    sections = [
        section("Wants", d.wants),
        section("Offered", d.offered),
        section("Pending", d.pending),
        section("Open questions", d.open_questions),
        section("Temperature", [d.temperature]),
        section("Escalation triggers", d.escalation),
    ]
    return "\n\n".join([head, *sections]) + "\n"

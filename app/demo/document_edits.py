"""How the demo's constraint documents change from one version to the next: a few plausible
edits per kind (a price on the offer sheet, a new monthly promo, a palette refresh, a budget
limit, video routing), taken in turn. Pure Python over app/demo/document_vocab.py.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime
from typing import Any

from app.demo import document_vocab as d
from app.demo import vocab as v
from app.model.enums import ConstraintKind as K

Content = dict[str, Any]
# Changes the content of version n, made at `at`, in place; returns the reason.
Edit = Callable[[Content, int, datetime], str]


def next_version(kind: K, content: Content, number: int, at: datetime) -> tuple[Content, str]:
    """Version `number`'s content made from the previous one's, and why it changed. An edit
    that would change nothing (every FAQ added already, the season's hashtag in place) passes
    its turn to the next one."""
    edits = EDITS[kind]
    for shift in range(len(edits)):
        changed = copy.deepcopy(content)
        reason = edits[(number + shift) % len(edits)](changed, number, at)
        if changed != content:
            return changed, reason
    raise RuntimeError(f"no {kind.value} edit changes version {number - 1}")


def _after(values: tuple[Any, ...], current: Any) -> Any:
    """The value after `current` in `values`, round the end (the first if it is none of them)."""
    at = values.index(current) if current in values else -1
    return values[(at + 1) % len(values)]


def _item(items: list[Content], field: str, value: str) -> Content:
    (found,) = [item for item in items if item[field] == value]
    return found


def _season(c: Content, n: int, at: datetime) -> str:
    c["hashtags"][-1] = d.SEASON_TAGS[at.month % 12 // 3]
    return f"Seasonal hashtag {c['hashtags'][-1]} for the coming campaigns"


def _accent(c: Content, n: int, at: datetime) -> str:
    c["colors"][1] = dict(_after(d.ACCENTS, c["colors"][1]))
    return f"Palette refresh: {c['colors'][1]['name']} as the accent colour"


def _dont(c: Content, n: int, at: datetime) -> str:
    c["dont"][-1] = _after(d.DONTS, c["dont"][-1])
    return f"Reviewers' rule added: don't {c['dont'][-1][0].lower()}{c['dont'][-1][1:]}"


def _price(c: Content, n: int, at: datetime) -> str:
    key, _, base, text = d.PRICES[n % len(d.PRICES)]
    found = _item(c["facts"], "key", key)
    prices = tuple(text.format(price=base + step) for step in d.PRICE_STEPS)
    found["statement"] = _after(prices, found["statement"])
    return f"New offer sheet: {key.split('.', 1)[1].replace('_', ' ')} price changed"


def _promo(c: Content, n: int, at: datetime) -> str:
    line = v.SERVICE_LINES[n % len(v.SERVICE_LINES)]
    offer = line.offers[n % len(line.offers)]
    c["facts"] = [f for f in c["facts"] if not f["key"].startswith("promo.")]
    statement = f"This month's {line.name.lower()} offer: {offer}, aimed at {line.audience}."
    c["facts"].append(d.fact(f"promo.v{n}", "offers", statement, "offers", line.slug))
    return f"Monthly offer replaced: {offer} ({line.name})"


def _response(c: Content, n: int, at: datetime) -> str:
    found = _item(c["facts"], "key", "emergency.response")
    texts = tuple(d.RESPONSE.format(minutes=minutes) for minutes in d.RESPONSE_MINUTES)
    found["statement"] = _after(texts, found["statement"])
    return "Emergency response time updated for the current crew size"


def _faq(c: Content, n: int, at: datetime) -> str:
    known = {f["key"] for f in c["facts"]}
    missing = [f for f in d.MORE_FACTS if f["key"] not in known]
    if missing:
        c["facts"].append(copy.deepcopy(missing[0]))
    return "FAQ added from the call centre's most asked questions"


def _limit(action: str, values: tuple[float, ...], reason: str) -> Edit:
    def edit(c: Content, n: int, at: datetime) -> str:
        policy = _item(c["policies"], "action", action)
        policy["limit"] = _after(values, policy["limit"])
        return reason.format(limit=f"{policy['limit']:g}", unit=policy["unit"])

    return edit


def _dm_mode(c: Content, n: int, at: datetime) -> str:
    policy = _item(c["policies"], "action", "reply_to_dm")
    policy["mode"] = _after(("autonomous", "needs_approval"), policy["mode"])
    return f"DM replies now {policy['mode'].replace('_', ' ')} after the quarterly review"


def _video(c: Content, n: int, at: datetime) -> str:
    video = [p for p in c["providers"] if p["capability"] == "video"]
    for provider in video:
        provider["enabled"] = not provider["enabled"]
    chosen = next(p["name"] for p in video if p["enabled"])
    return f"Provider routing moved video generation to {chosen}"


def _setting(capability: str, name: str, values: tuple[Any, ...], reason: str) -> Edit:
    def edit(c: Content, n: int, at: datetime) -> str:
        for provider in c["providers"]:
            if provider["capability"] == capability:
                provider["settings"][name] = _after(values, provider["settings"].get(name))
        return reason

    return edit


def _caption(c: Content, n: int, at: datetime) -> str:
    blueprint = c["blueprints"][n % len(c["blueprints"])]
    overrides = blueprint["overrides"]
    overrides["max_caption_chars"] = _after(d.CAPTION_CHARS, overrides["max_caption_chars"])
    return f"{blueprint['name']}: captions up to {overrides['max_caption_chars']} characters"


def _licence(c: Content, n: int, at: datetime) -> str:
    blueprint = c["blueprints"][(n // 2) % len(c["blueprints"])]
    overrides = blueprint["overrides"]
    overrides["licence_in_caption"] = not overrides["licence_in_caption"]
    where = "caption" if overrides["licence_in_caption"] else "end card"
    return f"{blueprint['name']}: licence number in the {where}"


EDITS: dict[K, tuple[Edit, ...]] = {
    K.BRANDKIT: (_season, _accent, _dont),
    K.KNOWLEDGE_BASE: (_price, _promo, _response, _faq),
    K.AUTONOMY_POLICIES: (
        _limit("boost_post", d.BOOST_BUDGETS, "Ad boost budget set to {limit} {unit}"),
        _dm_mode,
        _limit("reply_to_comment", d.COMMENT_LIMITS, "Comment replies capped at {limit} {unit}"),
        _limit("schedule_post", d.WEEKLY_POSTS, "Scheduling capped at {limit} {unit}"),
    ),
    K.PROVIDER_CONFIG: (
        _video,
        _setting("copy", "temperature", d.TEMPERATURES, "Copy temperature tuned after A/B"),
        _setting("video", "duration_s", d.CLIP_SECONDS, "Video clip length changed"),
    ),
    K.BLUEPRINT_SET: (_caption, _licence),
}

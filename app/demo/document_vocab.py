"""The demo client's constraint documents as first written (version 1 of each), and the values
later versions rotate through. Plain data only, fitting app/domain/constraints/schemas.py;
app/demo/document_edits.py makes the later versions from it.
"""

from __future__ import annotations

from typing import Any

from app.demo import vocab as v
from app.model.enums import ConstraintKind as K
from app.model.enums import TaskClass

TITLES = {
    K.BRANDKIT: f"{v.BRAND} brand kit",
    K.KNOWLEDGE_BASE: f"{v.BRAND} knowledge base",
    K.AUTONOMY_POLICIES: "What agents may do alone",
    K.PROVIDER_CONFIG: "Model and provider routing",
    K.BLUEPRINT_SET: "Content blueprints and overrides",
}
EDITORS = ("reviewer:maria.gonzalez", "reviewer:dave.chen", "admin:tom.owner")
FIRST_REASON = "Onboarding: written with the owner in the kick-off workshop"

BRANDKIT: dict[str, Any] = {
    "name": v.BRAND,
    "voice": "The licensed tech next door: plain words, real numbers, no scare tactics. "
    "We explain the fix before we sell it.",
    "audience": "Homeowners within 30 miles of our three shops, most in houses built before "
    "1990; decision makers aged 35-65.",
    "tone": ["friendly", "straight-talking", "reassuring"],
    "do": [
        "Show licence no. PLB-4410 on every creative",
        "Use real job-site photos of our own techs",
        "Quote prices exactly as on the current offer sheet",
        "End with one clear call to action",
    ],
    "dont": [
        "Show competitors' vans or logos",
        "Use stock photos of people",
        "Promise same-day service after 3 pm",
    ],
    "banned_terms": ["cheapest", "guaranteed lowest price", "lifetime warranty"],
    "hashtags": [f"#{v.BRAND_TAG}", "#hometips", "#winterready"],
    "colors": [
        {"name": "Summit Navy", "hex": "#1B2A4A"},
        {"name": "Summit Orange", "hex": "#F26B21"},
        {"name": "Warm White", "hex": "#FAF7F2"},
    ],
    "fonts": ["Montserrat Bold", "Source Sans 3"],
}
# Winter, spring, summer, fall: the tag of month m is SEASON_TAGS[m % 12 // 3].
SEASON_TAGS = ("#winterready", "#springplumbingcheck", "#summercooling", "#falltuneup")
ACCENTS = (
    {"name": "Summit Orange", "hex": "#F26B21"},
    {"name": "Safety Yellow", "hex": "#F5B700"},
    {"name": "Copper", "hex": "#B8733E"},
)
DONTS = (
    "Promise same-day service after 3 pm",
    "Show before/after claims without a job photo",
    "Name a price without the offer's end date",
    "Film techs on ladders without harnesses",
)


def fact(key: str, topic: str, statement: str, *tags: str) -> dict[str, Any]:
    return {"key": key, "topic": topic, "statement": statement, "tags": list(tags)}


# (key, service line, base price in USD, statement): the facts a price change edits.
PRICES = (
    ("pricing.drain_cleaning", "plumbing", 49, "Drain cleaning is ${price}, $29 a further drain."),
    ("pricing.tune_up", "hvac", 89, "An HVAC tune-up is ${price} with a 21-point inspection."),
    ("pricing.camera_inspection", "plumbing", 149, "A sewer camera inspection is ${price}."),
)
RESPONSE = "Emergency calls get a licensed tech on site within {minutes} minutes, day or night."
FACTS = [
    fact(
        "service.area",
        "coverage",
        "We serve homes within 30 miles of our Lakewood, Arvada and Aurora shops.",
        "coverage",
    ),
    fact(
        "service.hours",
        "hours",
        "The office answers Mon-Sat 7 am-7 pm; the emergency line 24/7.",
        "hours",
    ),
    fact("emergency.response", "emergencies", RESPONSE.format(minutes=90), "emergency"),
    fact(
        "warranty.water_heater",
        "warranty",
        "Tank water heaters we install carry 6 years on "
        "parts and 1 year on labour; tankless units 12 years on the heat exchanger.",
        "warranty",
        "water_heaters",
    ),
    fact(
        "warranty.labour", "warranty", "Every repair carries a 1-year labour guarantee.", "warranty"
    ),
    fact(
        "licence.numbers",
        "licences",
        "Master plumber licence PLB-4410; HVAC contractor licence HVC-2291.",
        "compliance",
    ),
    *(
        fact(key, "pricing", text.format(price=base), "pricing", line)
        for key, line, base, text in PRICES
    ),
    fact(
        "financing.systems",
        "financing",
        "0% financing for 18 months on new systems over $2,500, subject to credit approval.",
        "financing",
    ),
    fact(
        "faq.tank_life",
        "water heaters",
        "A tank water heater lasts 8-12 years; a yearly flush adds years.",
        "faq",
        "water_heaters",
    ),
]
RESPONSE_MINUTES = (90, 75, 60, 120)
PRICE_STEPS = (0, 5, 10, -5)
MORE_FACTS = (
    fact(
        "faq.tankless_savings",
        "water heaters",
        "Tankless heaters cut a family of four's water-heating bill by about a fifth.",
        "faq",
        "water_heaters",
    ),
    fact(
        "faq.frozen_pipes",
        "plumbing",
        "Pipes in exterior walls freeze first; keep cabinet doors open below 20°F.",
        "faq",
        "plumbing",
    ),
    fact(
        "rebate.heat_pump",
        "rebates",
        "Heat pump installs qualify for the federal 30% tax "
        "credit up to $2,000; we file the paperwork.",
        "rebates",
        "hvac",
    ),
    fact(
        "faq.filter_change",
        "hvac",
        "Change a 1-inch furnace filter every 90 days, every 30 with pets.",
        "faq",
        "hvac",
    ),
)

POLICIES: dict[str, Any] = {
    "default_mode": "needs_approval",
    "policies": [
        {
            "action": "publish_post",
            "mode": "needs_approval",
            "notes": "A reviewer signs off every variant at the campaign's approval gate.",
        },
        {"action": "schedule_post", "mode": "autonomous", "limit": 14, "unit": "posts/week"},
        {"action": "reply_to_comment", "mode": "autonomous", "limit": 100, "unit": "replies/day"},
        {
            "action": "reply_to_dm",
            "mode": "autonomous",
            "limit": 40,
            "unit": "replies/day",
            "notes": "Hand over to a human on complaints or pricing disputes.",
        },
        {"action": "boost_post", "mode": "needs_approval", "limit": 250, "unit": "USD/week"},
        {
            "action": "offer_discount",
            "mode": "forbidden",
            "notes": "Only the offers on the current offer sheet.",
        },
        {"action": "delete_post", "mode": "forbidden"},
    ],
}
BOOST_BUDGETS = (250, 400, 150, 500)
COMMENT_LIMITS = (100, 150, 60)
WEEKLY_POSTS = (14, 21, 10)


def _providers() -> list[dict[str, Any]]:
    tasks = {
        "copy": TaskClass.LLM_CREATOR,
        "images": TaskClass.IMAGE_GEN,
        "video": TaskClass.VIDEO_GEN,
    }
    found = []
    for capability, task in tasks.items():
        for rank, (vendor, model) in enumerate(v.MODELS[task]):
            settings = dict(v.PROMPT_PARAMS[task])
            found.append(
                {
                    "name": f"{vendor}-{capability}",
                    "capability": capability,
                    "model": model,
                    "enabled": rank == 0,
                    "settings": settings,
                }
            )
    return found


PROVIDERS: dict[str, Any] = {"providers": _providers()}
TEMPERATURES = (0.7, 0.5, 0.8)
CLIP_SECONDS = (30, 45, 20)

BLUEPRINTS: dict[str, Any] = {
    "blueprints": [
        {
            "key": bp.key,
            "name": bp.title,
            "node_type": "blueprint_instance",
            "description": f"{bp.asset_type.value.replace('_', ' ').capitalize()} for "
            f"{', '.join(v.PLATFORM_NAMES[p] for p in bp.platforms)}.",
            "overrides": {
                "platforms": [v.PLATFORM_NAMES[p] for p in bp.platforms],
                "max_caption_chars": 220,
                "licence_in_caption": True,
            },
        }
        for bp in v.BLUEPRINTS
    ]
}
CAPTION_CHARS = (220, 150, 300)

FIRST_CONTENT: dict[K, dict[str, Any]] = {
    K.BRANDKIT: BRANDKIT,
    K.KNOWLEDGE_BASE: {"facts": FACTS},
    K.AUTONOMY_POLICIES: POLICIES,
    K.PROVIDER_CONFIG: PROVIDERS,
    K.BLUEPRINT_SET: BLUEPRINTS,
}

"""The demo client's world: a home-services business (water heaters, plumbing, HVAC).

Plain data only: service lines, content blueprints, platform formats and the text templates the
demo generator draws from (app/demo/shapes.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.model.enums import AssetType, Platform, TaskClass, VariantFormat

BRAND = "Summit Home Services"
BRAND_TAG = "summithomeservices"
P = Platform
F = VariantFormat


@dataclass(frozen=True)
class ServiceLine:
    name: str
    slug: str
    audience: str
    kpi: str
    hooks: tuple[str, ...]
    offers: tuple[str, ...]
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class Blueprint:
    key: str
    title: str
    asset_type: AssetType
    task_class: TaskClass
    platforms: tuple[Platform, ...]


SERVICE_LINES = (
    ServiceLine(
        name="Water Heaters",
        slug="water_heaters",
        audience="homeowners with 8+ year old tanks",
        kpi="booked_estimates",
        hooks=(
            "no hot water after a five-minute shower",
            "rusty or smelly hot water",
            "tank vs tankless: what a family of four really saves",
            "the warning signs of a ten-year-old water heater",
            "why your water heater pops and rumbles",
        ),
        offers=("Free Estimate", "$150 Off Tankless Install", "Same-Day Replacement"),
        keywords=("HOTWATER", "TANKLESS", "FLUSH"),
    ),
    ServiceLine(
        name="Plumbing",
        slug="plumbing",
        audience="homeowners in older neighbourhoods",
        kpi="service_calls",
        hooks=(
            "low water pressure in the upstairs shower",
            "a $12 fix for a running toilet",
            "slab leak warning signs under your floors",
            "what never to pour down a kitchen drain",
            "protecting pipes before the first freeze",
        ),
        offers=("Free Camera Inspection", "$49 Drain Cleaning", "Free Leak Check"),
        keywords=("PRESSURE", "DRAIN", "LEAK"),
    ),
    ServiceLine(
        name="HVAC",
        slug="hvac",
        audience="homeowners facing peak-season bills",
        kpi="tune_up_bookings",
        hooks=(
            "an AC that short-cycles on hot afternoons",
            "the furnace tune-up to book before winter",
            "why upstairs is eight degrees hotter",
            "heat pump rebates most homeowners miss",
            "the filter mistake that raises energy bills",
        ),
        offers=("$89 Tune-Up", "Free Second Opinion", "0% Financing on New Systems"),
        keywords=("COOL", "TUNEUP", "HEAT"),
    ),
)
BLUEPRINTS = (
    Blueprint(
        "short_reel_hook_value_cta",
        "Reel: Hook → Value → CTA",
        AssetType.REEL,
        TaskClass.VIDEO_GEN,
        (P.IG, P.FB, P.TIKTOK, P.YOUTUBE),
    ),
    Blueprint(
        "carousel_myth_vs_fact",
        "Carousel: Myth vs Fact",
        AssetType.CAROUSEL,
        TaskClass.IMAGE_GEN,
        (P.IG, P.FB, P.LINKEDIN),
    ),
    Blueprint(
        "before_after_photo",
        "Before/After Photo Post",
        AssetType.IMAGE,
        TaskClass.IMAGE_GEN,
        (P.IG, P.FB, P.LINKEDIN),
    ),
    Blueprint(
        "customer_story_clip",
        "Customer Story Clip",
        AssetType.VIDEO_CLIP,
        TaskClass.VIDEO_GEN,
        (P.IG, P.FB, P.TIKTOK, P.YOUTUBE),
    ),
    Blueprint(
        "tech_tip_story",
        "Tech Tip Story",
        AssetType.STORY,
        TaskClass.VIDEO_GEN,
        (P.IG, P.FB),
    ),
    Blueprint(
        "authority_checklist_post",
        "Authority Post: Homeowner Checklist",
        AssetType.COPY,
        TaskClass.LLM_CREATOR,
        (P.IG, P.FB, P.LINKEDIN),
    ),
)
CORE_PLATFORMS = (P.IG, P.FB)
EXTRA_PLATFORMS = (P.TIKTOK, P.LINKEDIN, P.YOUTUBE)
PLATFORM_NAMES = {
    P.IG: "instagram",
    P.FB: "facebook",
    P.TIKTOK: "tiktok",
    P.LINKEDIN: "linkedin",
    P.YOUTUBE: "youtube",
}
PLATFORM_LABELS = {
    P.IG: "IG",
    P.FB: "FB",
    P.TIKTOK: "TikTok",
    P.LINKEDIN: "LinkedIn",
    P.YOUTUBE: "YT",
}
VIDEO_FORMATS = {P.IG: F.REEL, P.FB: F.REEL, P.TIKTOK: F.SHORT, P.YOUTUBE: F.SHORT}
STILL_FORMATS = {P.IG: F.FEED_POST, P.FB: F.FEED_POST, P.LINKEDIN: F.FEED_POST}
STORY_FORMATS = {P.IG: F.STORY, P.FB: F.STORY}
DIMENSIONS = {
    F.REEL: (1080, 1920),
    F.STORY: (1080, 1920),
    F.SHORT: (1080, 1920),
    F.FEED_POST: (1080, 1350),
    F.LONG: (1920, 1080),
}
MODELS = {
    TaskClass.LLM_CREATOR: (("anthropic", "claude-sonnet-4"), ("openai", "gpt-4.1")),
    TaskClass.IMAGE_GEN: (("openai", "gpt-image-1"), ("stability", "sdxl-1.0")),
    TaskClass.VIDEO_GEN: (("runway", "gen-4"), ("google", "veo-3")),
}
PROMPT_PARAMS: dict[TaskClass, dict[str, object]] = {
    TaskClass.LLM_CREATOR: {"temperature": 0.7, "max_tokens": 800},
    TaskClass.IMAGE_GEN: {"size": "1080x1350", "style": "photoreal", "steps": 30},
    TaskClass.VIDEO_GEN: {"aspect_ratio": "9:16", "duration_s": 30, "voiceover": True},
}
CTA_STYLES = ("comment_keyword", "dm_keyword", "link_in_bio", "call_now")
CTA_PHRASES = {
    "comment_keyword": "comment '{kw}' and we'll DM you the details",
    "dm_keyword": "DM us '{kw}' to book",
    "link_in_bio": "tap the link in bio to book",
    "call_now": "call now, a licensed tech picks up",
}
REVIEWERS = ("user:maria.gonzalez", "user:dave.chen", "user:tom.owner")
APPROVAL_NOTES = (
    "On brand; license number visible.",
    "Approved; pricing matches the current offer sheet.",
    "Good hook. Keep the disclaimer in the caption.",
    "Approved after swapping the stock photo for a job-site shot.",
)
RUN_ERRORS = (
    "platform rejected the upload: video longer than 60 s",
    "rate limited by the platform (HTTP 429); retry queued",
    "page access token expired; reconnect required",
    "upload timed out after 120 s",
)
SNAPSHOT_NOTES = (
    "Spring pricing sheet; new licence number on all creatives.",
    "Brand kit refresh: navy/orange palette, new logo lock-up.",
    "Policy update: no before/after claims without a job photo.",
    "Provider routing moved video generation to the faster tier.",
)

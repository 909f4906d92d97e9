"""The demo client's agent team and what its memory is made of: the five agents, their episodes'
task classes and tool calls, engagement on published posts (and how it fails), how each content
blueprint performs per platform, and the lesson statements the analyst writes from it.

Plain data only, like vocab.py; app/demo/memory.py and lessons.py draw from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.model.enums import EngagementKind, EpisodeTrigger, MetricType, Platform

P = Platform
K = EngagementKind


@dataclass(frozen=True)
class AgentSpec:
    name: str
    description: str
    task_class: str
    trigger: EpisodeTrigger
    tokens: tuple[int, int]  # cost_tokens_est range
    tools: tuple[tuple[str, dict[str, object]], ...]  # (tool, arguments) of its tool calls


PLANNER, CREATOR, PUBLISHER, ENGAGER, ANALYST = (
    "planner",
    "creator",
    "publisher",
    "engager",
    "analyst",
)
AGENTS = {
    spec.name: spec
    for spec in (
        AgentSpec(
            PLANNER,
            "Plans each week per service line: objective, campaigns and blueprints, from the "
            "constraint documents and the lessons in force.",
            "plan.weekly",
            EpisodeTrigger.SCHEDULE,
            (6_000, 25_000),
            (
                ("constraints.current", {"kinds": ["brandkit", "knowledge_base"]}),
                ("lessons.active", {"scope": "blueprint", "first": 20}),
                ("plan.create_nodes", {"node_types": ["objective", "campaign"]}),
            ),
        ),
        AgentSpec(
            CREATOR,
            "Writes captions and briefs image and video generation for every blueprint of a plan.",
            "llm.creator",
            EpisodeTrigger.PLANNER_TICK,
            (20_000, 80_000),
            (
                ("kb.search", {"query": "pricing and offers", "first": 5}),
                ("lessons.active", {"scope": "blueprint", "first": 10}),
                ("image.generate", {"provider": "openai", "size": "1080x1350"}),
                ("video.generate", {"provider": "runway", "aspect_ratio": "9:16"}),
                ("caption.write", {"variants": 2}),
            ),
        ),
        AgentSpec(
            PUBLISHER,
            "Packages approved variants and posts them in the morning slot on each platform.",
            "publish.package",
            EpisodeTrigger.SCHEDULE,
            (1_000, 5_000),
            (
                ("platform.upload_media", {"resumable": True}),
                ("platform.create_post", {"slot": "Tue-Thu 7-9am local"}),
                ("evidence.capture", {"kinds": ["screenshot", "log"]}),
            ),
        ),
        AgentSpec(
            ENGAGER,
            "Answers comments and DMs on published posts and escalates what needs a human.",
            "engage.replies",
            EpisodeTrigger.WEBHOOK_EVENT,
            (3_000, 15_000),
            (
                ("platform.list_comments", {"since_minutes": 180}),
                ("platform.reply", {"template": "keyword_reply"}),
                ("platform.send_dm", {"template": "booking_link"}),
            ),
        ),
        AgentSpec(
            ANALYST,
            "Reads the week's metrics and engagement and writes the lessons the team plans with.",
            "analyze.performance",
            EpisodeTrigger.SCHEDULE,
            (8_000, 30_000),
            (
                ("metrics.rollup", {"group_by": "variant", "bucket": "day"}),
                ("engagement.failures", {"first": 20}),
                ("lessons.write", {"scope": "blueprint"}),
            ),
        ),
    )
}

PLATFORM_TITLES = {
    P.IG: "Instagram",
    P.FB: "Facebook",
    P.TIKTOK: "TikTok",
    P.LINKEDIN: "LinkedIn",
    P.YOUTUBE: "YouTube",
}
# Reach on day one (impressions) per platform, and per blueprint: how far it travels and the
# share of a week's viewers who save it. Reels reach far; checklists and carousels get saved.
REACH = {P.IG: 1_800, P.FB: 1_200, P.TIKTOK: 3_500, P.LINKEDIN: 600, P.YOUTUBE: 1_400}
BLUEPRINT_REACH = {
    "short_reel_hook_value_cta": (1.6, 0.006),
    "carousel_myth_vs_fact": (0.9, 0.030),
    "before_after_photo": (1.0, 0.012),
    "customer_story_clip": (1.2, 0.008),
    "tech_tip_story": (0.7, 0.004),
    "authority_checklist_post": (0.8, 0.035),
}
DAY_METRIC, WEEK_METRIC = MetricType.IMPRESSIONS, MetricType.SAVES

# What the engager does on a published post: (kind, weight).
ENGAGEMENT = ((K.COMMENT_REPLY, 6), (K.DM_SENT, 3), (K.LIKE, 2), (K.MODERATION_ACTION, 1))
COMMENTS = (
    "{kw}",
    "{kw} please!",
    "How much for this? {kw}",
    "Do you service my area? {kw}",
    "Is this covered by the warranty?",
    "Mine does exactly this every morning.",
)
REPLIES = (
    "Thanks for asking! We just sent you a DM with the details.",
    "Great question: a licensed tech can check it on a free visit. Check your DMs!",
    "Yes, we cover the whole metro area. Details in your DMs.",
)


@dataclass(frozen=True)
class Failure:
    """An engagement failure: its event kind, reason, the agent whose episode caused it (a
    CAUSED MemoryLink), the link's note and the lesson the analyst draws from it."""

    kind: EngagementKind
    reason: str
    cause: str
    note: str
    lesson: str


FAILURES = (
    Failure(
        K.COMMENT_REPLY,
        "rate limited by the platform (HTTP 429) after a burst of keyword comments",
        CREATOR,
        "The comment-keyword CTA drew comments faster than the reply quota allows.",
        "On {platform}, a comment-keyword CTA floods the reply quota within the hour: answer "
        "keyword comments by DM in batches, or use a DM-keyword CTA.",
    ),
    Failure(
        K.DM_SENT,
        "messaging window closed: the person last wrote more than 24 hours ago",
        ENGAGER,
        "The DM waited behind the comment replies until the window had closed.",
        "On {platform}, send booking DMs before replying to comments: the 24-hour messaging "
        "window closes while the reply queue drains.",
    ),
    Failure(
        K.COMMENT_REPLY,
        "reply hidden as spam: the same text was posted 12 times in 10 minutes",
        ENGAGER,
        "One reply template went to every keyword comment.",
        "On {platform}, identical replies get hidden as spam: rotate at least three reply "
        "templates and name the service line in each.",
    ),
    Failure(
        K.MODERATION_ACTION,
        "permission denied: the connection lacks the moderate-comments scope",
        PUBLISHER,
        "The page was connected without the moderation permission.",
        "On {platform}, reconnect pages with the moderation scope before a campaign goes out, "
        "or off-topic comments stay up all week.",
    ),
)
PUBLISH_FAILURE_LESSON = (
    "Publishing to {platform} failed ({error}); check the page connection and video length "
    "the evening before the morning slot."
)

# The analyst's statements. {blueprint}: the blueprint's title, {platform}: the platform's name.
DAY_ONE = (
    "{blueprint} on {platform} is the format to lead {line} weeks with: {impressions:,.0f} "
    "impressions on day one.",
    "For {line}, {blueprint} reaches the most people on {platform} "
    "({impressions:,.0f} impressions in its first day).",
)
WORKED = (
    "{blueprint} on {platform} earned the most saves for {line} ({saves:,.0f} in a week); keep "
    "'{cta}' as its CTA.",
    "For {audience}, {blueprint} posts about {hook} get saved: {saves:,.0f} saves on "
    "{platform} in a week.",
    "{blueprint} beats the other formats on {platform} for {line}: {rate:.1%} of a week's "
    "viewers saved it.",
)
FAILED = (
    "{blueprint} on {platform} reached {impressions:,.0f} people on day one but few saved it "
    "({saves:,.0f} saves in a week); don't lead {line} weeks with it.",
    "{blueprint} is the weakest format on {platform} for {line}: a {rate:.2%} save rate.",
)
REVISED_NOTE = "A week of saves overturned the day-one reach: the reach leader is not the keeper."
CONFIRMED_NOTE = "The week's saves confirm the day-one leader."
AGREES_NOTE = "Same blueprint and platform, same finding in an earlier week."
DISAGREES_NOTE = "Same blueprint and platform, the opposite finding in an earlier week."
VALIDATES_NOTE = "The asset behind the lesson's numbers."
DERIVED_NOTE = {
    CREATOR: "Drawn from the creator's blueprint and CTA choices.",
    PUBLISHER: "Drawn from the publisher's failed run.",
    ENGAGER: "Drawn from the engager's failed replies.",
}
HALF_LIVES = (30.0, 45.0, 60.0, 90.0)

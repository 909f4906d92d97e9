"""One campaign's publishing as rows: a PublishPackage of its variants (FOR_PLAN, INCLUDES) and,
once the package went to publishing, a PublishRun with two EvidenceArtifacts (a PNG screenshot
and a JSON log, queued for S3)."""

from __future__ import annotations

import json
import struct
import zlib
from datetime import datetime, timedelta

from app.demo import vocab as v
from app.demo.context import PlanContext
from app.demo.facts import RunFacts
from app.demo.stages import PACKAGE_STATUS, RUN_STATUS, Stage
from app.model.enums import EvidenceKind, Platform, PublishRunStatus

SCREEN = (120, 260)  # a phone screenshot, scaled down
NAVY, GREEN, RED, WHITE = (20, 40, 90), (40, 160, 80), (200, 50, 40), (245, 245, 245)


def build_package(
    ctx: PlanContext, *, stage: Stage, variant_ids: list[str], platforms: list[Platform]
) -> tuple[str, RunFacts | None]:
    """Append the campaign's package (and its run, if it ran); returns the package id and
    the run."""
    created = ctx.at(day=2.5, spread=0.4)
    scheduled = None if stage is Stage.PLANNED else ctx.at(day=3, spread=1.5)
    package_id = ctx.record(
        "PublishPackage",
        created_at=created,
        updated_at=scheduled + timedelta(minutes=20) if scheduled else created,
        plan_id=ctx.plan_id,
        target_platforms=[p.value for p in platforms],
        variant_ids=variant_ids,
        scheduled_at=scheduled,
        status=PACKAGE_STATUS[stage].value,
    )
    ctx.link("FOR_PLAN", source=package_id, target=ctx.plan_id)
    for variant_id in variant_ids:
        ctx.link("INCLUDES", source=package_id, target=variant_id)
    run = None
    if stage in RUN_STATUS and scheduled is not None:
        run = _run(
            ctx,
            package_id=package_id,
            status=RUN_STATUS[stage],
            platform=platforms[0],
            at=scheduled,
        )
    return package_id, run


def _run(
    ctx: PlanContext,
    *,
    package_id: str,
    status: PublishRunStatus,
    platform: Platform,
    at: datetime,
) -> RunFacts:
    started = at + timedelta(seconds=ctx.rng.randint(5, 300))
    finished = started + timedelta(seconds=ctx.rng.randint(20, 240))
    succeeded = status is PublishRunStatus.SUCCEEDED
    outcome = (
        f"{platform.value}:{ctx.rng.randint(10**15, 10**16 - 1)}"
        if succeeded
        else ctx.rng.choice(v.RUN_ERRORS)
    )
    run_id = ctx.record(
        "PublishRun",
        created_at=started,
        updated_at=finished,
        package_id=package_id,
        platform=platform.value,
        status=status.value,
        external_ref=outcome if succeeded else None,
        error=None if succeeded else outcome,
        finished_at=finished,
    )
    ctx.link("HAS_RUN", source=package_id, target=run_id)
    band = GREEN if succeeded else RED
    screenshot = tiny_png(size=SCREEN, bands=(NAVY, WHITE, band), text=f"{platform}: {outcome}")
    log = {
        "run_id": run_id,
        "package_id": package_id,
        "platform": platform.value,
        "events": [
            {"at": started.isoformat(), "step": "authenticate", "ok": True},
            {"at": started.isoformat(), "step": "upload_media", "ok": True},
            {"at": finished.isoformat(), "step": "create_post", "ok": succeeded, "detail": outcome},
        ],
        "status": status.value,
    }
    evidence = (
        (EvidenceKind.SCREENSHOT, screenshot, "image/png", "screenshot.png"),
        (EvidenceKind.LOG, json.dumps(log, indent=2).encode(), "application/json", "log.json"),
    )
    for kind, data, content_type, name in evidence:
        evidence_id = ctx.new_id()
        stored = ctx.upload(
            parts=("runs", run_id, "evidence", evidence_id, name),
            data=data,
            content_type=content_type,
        )
        ctx.record(
            "EvidenceArtifact",
            node_id=evidence_id,
            created_at=finished,
            run_id=run_id,
            kind=kind.value,
            uri=stored.uri,
            sha256=stored.sha256,
            size=len(data),
            content_type=content_type,
        )
        ctx.link("HAS_EVIDENCE", source=run_id, target=evidence_id)
    return RunFacts(run_id, platform, status, started, finished, None if succeeded else outcome)


def tiny_png(*, size: tuple[int, int], bands: tuple[tuple[int, int, int], ...], text: str) -> bytes:
    """A valid RGB PNG of horizontal colour bands (header, body, status bar) with a tEXt note."""
    width, height = size
    rows = []
    for y in range(height):
        colour = bands[min(len(bands) - 1, y * len(bands) // height)]
        rows.append(b"\x00" + bytes(colour) * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    note = b"Comment\x00" + text.encode("latin-1", "replace")
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"tEXt", note)
        + _chunk(b"IDAT", zlib.compress(b"".join(rows), 6))
        + _chunk(b"IEND", b"")
    )


def _chunk(tag: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(tag + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", crc)

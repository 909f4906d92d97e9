"""PublishRun repository: one attempt to publish a package on one platform, with evidence.

Evidence bytes go to object storage before the EvidenceArtifact node that points at them, and a
run is marked succeeded only once it has evidence (seed 000, section 10).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.assets.publishing import PACKAGE
from app.domain.assets.rules import RUN_TRANSITIONS, check_transition
from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.field_rules import check_text, check_upload, enum_value
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, missing, stored_object
from app.graph.change_feed import Changed, note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock_query
from app.graph.values import plain
from app.model.enums import ChangeAction, EvidenceKind, PackageStatus, Platform, PublishRunStatus

CREATE_RUN = """
MATCH (p:PublishPackage {id: $id, client_id: $client_id})
CREATE (p)-[:HAS_RUN]->(r:PublishRun $props)
RETURN r {.*} AS run
"""
LOCK_RUN = lock_query(
    "PublishRun", "run", "COUNT { (n)-[:HAS_EVIDENCE]->(:EvidenceArtifact) } AS evidence"
)
FIND_RUN = """
MATCH (r:PublishRun {id: $id, client_id: $client_id})
RETURN r.id AS run
"""
CREATE_EVIDENCE = """
MATCH (r:PublishRun {id: $id, client_id: $client_id})
CREATE (r)-[:HAS_EVIDENCE]->(e:EvidenceArtifact $props)
RETURN e {.*} AS evidence
"""
MAX_REF = 500
RUN = OwnedNode("PublishRun", "run", what="publish run", parent=("package_id",))


async def start_run(
    graph: GraphExecutor, *, principal: Principal, package_id: str, platform: Platform
) -> dict[str, Any]:
    """A running run for one of the package's target platforms, while the package publishes."""
    principal.require_writer()
    scope = PACKAGE.scope(principal, package_id, field="package_id")
    chosen = enum_value(Platform, platform, field="platform")

    async def work(tx: Tx) -> dict[str, Any]:
        package = await PACKAGE.locked(tx, scope)
        if package["status"] != PackageStatus.PUBLISHING.value:
            raise Conflict(
                f"runs start only while the package is publishing; it is {package['status']!r}"
            )
        if chosen.value not in (package.get("target_platforms") or []):
            raise ValidationFailed(f"{chosen.value} is not a target platform of the package")
        now = datetime.now(UTC)
        props = {
            "id": new_id(),
            "client_id": principal.client_id,
            "package_id": scope["id"],
            "platform": chosen.value,
            "status": PublishRunStatus.RUNNING.value,
            "created_at": now,
            "updated_at": now,
        }
        rows = await tx.run(CREATE_RUN, scope | {"props": props})
        note_change(
            principal.client_id,
            "PublishRun",
            props["id"],
            ChangeAction.CREATED,
            parent_id=scope["id"],
        )
        return dict(plain(rows[0]["run"]))

    return await graph.in_transaction(work)


async def finish_run(
    graph: GraphExecutor,
    *,
    principal: Principal,
    run_id: str,
    status: PublishRunStatus,
    external_ref: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """Mark a running run succeeded (needs at least one evidence artifact) or failed."""
    principal.require_writer()
    goal = enum_value(PublishRunStatus, status, field="status")
    given = {"external_ref": external_ref, "error": error}
    check_text(given, "external_ref", limit=MAX_REF)
    check_text(given, "error")
    scope = RUN.scope(principal, run_id)

    async def work(tx: Tx) -> dict[str, Any]:
        rows = await tx.run(LOCK_RUN, scope)
        if not rows:
            raise missing(RUN.what, scope["id"])
        run = dict(plain(rows[0]["run"]))
        check_transition(RUN_TRANSITIONS, PublishRunStatus(run["status"]), goal, what="a run")
        if goal is PublishRunStatus.SUCCEEDED and not rows[0]["evidence"]:
            raise ValidationFailed(
                "a run is marked succeeded only with evidence: attach a screenshot or log first"
            )
        now = datetime.now(UTC)
        changes: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        changes |= {"status": goal.value, "finished_at": now}
        return await RUN.change(tx, scope, changes, now=now)

    return await graph.in_transaction(work)


async def add_evidence(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    run_id: str,
    kind: EvidenceKind,
    data: bytes,
    content_type: str,
) -> dict[str, Any]:
    """Store evidence bytes under runs/{run_id}/evidence/{id}, then link them to the run."""
    principal.require_writer()
    chosen = enum_value(EvidenceKind, kind, field="kind")
    check_upload(data, content_type, field="evidence")
    scope = RUN.scope(principal, run_id, field="run_id")
    if not await graph.read(FIND_RUN, scope):
        raise missing(RUN.what, scope["id"])
    evidence_id = new_id()
    parts = ("runs", scope["id"], "evidence", evidence_id)
    async with staged_uploads(artifacts, principal) as uploads:
        stored = await uploads.put(parts, data, content_type=content_type)
        now = datetime.now(UTC)
        props = {
            "id": evidence_id,
            "client_id": principal.client_id,
            "run_id": scope["id"],
            "kind": chosen.value,
            **stored_object(stored),
            "created_at": now,
            "updated_at": now,
        }
        created = Changed(
            principal.client_id,
            "EvidenceArtifact",
            evidence_id,
            ChangeAction.CREATED,
            parent_id=scope["id"],
        )
        rows = await graph.write(
            CREATE_EVIDENCE,
            scope | {"props": props},
            changed=lambda rows: [created] if rows else [],
        )
        if not rows:
            raise missing(RUN.what, scope["id"])
        return dict(plain(rows[0]["evidence"]))

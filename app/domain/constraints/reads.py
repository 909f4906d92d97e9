"""Reading constraint documents: a diff of two versions, and the versions a plan works under
(frozen by its approval, or the current ones before it is approved;
cypher/queries/constraints_in_force.cypher)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.constraints.content import read_content
from app.domain.constraints.diff import Change, diff_contents
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.graph.cypher_files import api_params, named_query
from app.graph.executor import GraphExecutor

TWO_VERSIONS = """
MATCH (v:ConstraintVersion {client_id: $client_id, document_id: $id})
WHERE v.version IN [$from_version, $to_version]
RETURN v {.*} AS version
"""


@dataclass(frozen=True)
class VersionDiff:
    document_id: str
    from_version: int
    to_version: int
    changes: list[Change]


@dataclass(frozen=True)
class InForce:
    plan_id: str
    plan_status: str
    frozen: bool
    snapshot: dict[str, Any] | None
    versions: list[dict[str, Any]]


async def diff_versions(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    document_id: str,
    from_version: int,
    to_version: int,
) -> VersionDiff:
    check_version_numbers(fromVersion=from_version, toVersion=to_version)
    params = {
        "id": check_id(document_id, field="documentId"),
        "client_id": principal.client_id,
        "from_version": from_version,
        "to_version": to_version,
    }
    found = await graph.read_plain(TWO_VERSIONS, params)
    rows = {row["version"]["version"]: row["version"] for row in found}
    for number in (from_version, to_version):
        if number not in rows:
            raise NotFound(
                f"constraint document {document_id} has no version {number}", id=document_id
            )
    before, after = await asyncio.gather(
        read_content(artifacts, principal, rows[from_version]),
        read_content(artifacts, principal, rows[to_version]),
    )
    return VersionDiff(document_id, from_version, to_version, diff_contents(before, after))


async def constraints_in_force(
    graph: GraphExecutor, *, principal: Principal, plan_id: str
) -> InForce:
    params = {"id": check_id(plan_id, field="planId"), "client_id": principal.client_id}
    rows = await graph.read_plain(named_query("constraints_in_force"), api_params(params))
    if not rows:
        raise NotFound(f"no plan with id {plan_id}", id=plan_id)
    row = rows[0]
    return InForce(
        plan_id=plan_id,
        plan_status=row["status"],
        frozen=row["snapshot"] is not None,
        snapshot=row["snapshot"],
        versions=list(row["versions"]),
    )


def check_version_numbers(**numbers: int) -> None:
    for field, number in numbers.items():
        if number < 1:
            raise ValidationFailed("version numbers start at 1", field=field)

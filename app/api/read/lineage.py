"""Lineage, one request and one Cypher query each; the queries live in cypher/queries/ so that
analysts run the very same text in Neo4j Browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import strawberry
from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition
from strawberry.types.field import StrawberryField

from app.api.context import Info
from app.api.types.assets import ApprovalRecord, Asset, AssetVariant, PromptArtifact
from app.api.types.base import NodeType
from app.api.types.constraints import ConstraintVersion
from app.api.types.plans import ConstraintsSnapshot, Plan, PlanNode
from app.api.types.publishing import EvidenceArtifact, PublishPackage, PublishRun
from app.domain.kernel.errors import NotFound
from app.domain.kernel.ids import check_id
from app.graph.cypher_files import api_params, named_query

T = TypeVar("T")
Build = Callable[[dict[str, Any]], Any]


def _nodes(cls: type[NodeType], rows: list[dict[str, Any]] | None) -> list[Any]:
    return [cls.from_row(row) for row in rows or []]


def _node(cls: type[NodeType], row: dict[str, Any] | None) -> Any:
    return cls.from_row(row) if row else None


async def _run(
    info: Info, name: str, record_id: str, build: Callable[[dict[str, Any]], T], id_argument: str
) -> T:
    query = named_query(name)
    params = api_params({"id": check_id(record_id), "client_id": info.context.caller().client_id})
    rows = await info.context.graph.read_plain(query, params)
    if not rows:
        raise NotFound(f"no record with id {record_id} for {name}", id=record_id)
    learning = info.context.learning
    if learning is not None and info.path.prev is None:
        learning.note_read(str(info.path.key), query, params, id_argument=id_argument, build=build)
    return build(rows[0])


@strawberry.type(description="Where an asset, variant or package came from.")
class Upstream:
    start_id: strawberry.ID
    start_label: str
    variants: list[AssetVariant]
    assets: list[Asset]
    blueprints: list[PlanNode]
    ancestors: list[PlanNode]
    plans: list[Plan]
    snapshots: list[ConstraintsSnapshot]
    constraints: list[ConstraintVersion] = strawberry.field(
        description="The constraint document versions the snapshots froze, by kind."
    )
    prompts: list[PromptArtifact]
    approvals: list[ApprovalRecord]


@strawberry.type(description="Everything a plan or plan node produced, down to publish runs.")
class Downstream:
    start_id: strawberry.ID
    start_label: str
    nodes: list[PlanNode]
    assets: list[Asset]
    variants: list[AssetVariant]
    prompts: list[PromptArtifact]
    approvals: list[ApprovalRecord]
    packages: list[PublishPackage]
    runs: list[PublishRun]
    evidence: list[EvidenceArtifact]


@strawberry.type
class TracedRun:
    run: PublishRun
    evidence: list[EvidenceArtifact]


@strawberry.type(description="Why a variant was published, under which rules, with what proof.")
class Trace:
    variant: AssetVariant
    asset: Asset
    blueprint: PlanNode | None
    ancestors: list[PlanNode]
    plan: Plan | None
    snapshot: ConstraintsSnapshot | None
    constraints: list[ConstraintVersion] = strawberry.field(
        description="The constraint document versions the snapshot froze (one per kind, by "
        "kind); later edits of the documents do not change them."
    )
    prompts: list[PromptArtifact]
    approvals: list[ApprovalRecord]
    packages: list[PublishPackage]
    runs: list[TracedRun]


@strawberry.type
class LineageQueries:
    @strawberry.field(description="Upstream lineage of an asset, variant or publish package.")
    async def upstream(self, info: Info, id: strawberry.ID) -> Upstream:
        return await _run(info, "upstream", id, _upstream, "id")

    @strawberry.field(description="Downstream of a plan or plan node.")
    async def downstream(self, info: Info, id: strawberry.ID) -> Downstream:
        return await _run(info, "downstream", id, _downstream, "id")

    @strawberry.field(description="Trace of a (published) variant: seed 000, section 0.3.")
    async def trace(self, info: Info, variant_id: strawberry.ID) -> Trace:
        return await _run(info, "trace", variant_id, _trace, "variantId")


def _reads(cls: type[T], **given: Build) -> Callable[[dict[str, Any]], T]:
    """Builds `cls` from its query's row: a field of a node type (a list of them, or one or
    null) from the rows under the field's name, `start_id` and `start_label` from the row's
    `start`, and the fields `given` with their own builders."""
    fields = get_object_definition(cls, strict=True).fields
    readers = [(f.python_name, given.get(f.python_name) or _reader(f)) for f in fields]

    def build(row: dict[str, Any]) -> T:
        return cls(**{name: read(row) for name, read in readers})

    return build


def _reader(field: StrawberryField) -> Build:
    name, field_type = field.python_name, field.type
    if name.startswith("start_"):
        part = name.removeprefix("start_")
        return lambda row: row["start"][part]
    if isinstance(field_type, StrawberryList):
        listed = _node_type(field_type.of_type)
        return lambda row: _nodes(listed, row[name])
    if isinstance(field_type, StrawberryOptional):
        optional = _node_type(field_type.of_type)
        return lambda row: _node(optional, row[name])
    node = _node_type(field_type)
    return lambda row: node.from_row(row[name])


def _node_type(field_type: object) -> type[NodeType]:
    if isinstance(field_type, type) and issubclass(field_type, NodeType):
        return field_type
    raise TypeError(f"a lineage field of {field_type!r} needs its own builder")


_upstream = _reads(Upstream)
_downstream = _reads(Downstream)
_traced_run = _reads(TracedRun, run=PublishRun.from_row)
_trace = _reads(Trace, runs=lambda row: [_traced_run(run) for run in row["runs"]])

"""GraphQL documents that the fast-path equivalence test sends to both execution paths.

Each case: a name, the document, variables built from the seeded ids, and what the fast path
is expected to do with it ("fast": completes at least one value, "fallback": starts and hands
a value back to graphql-core, None: no expectation, e.g. the root resolver fails first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Ids = dict[str, str]
Case = tuple[str, str, Callable[[Ids], dict[str, Any]], str | None]
MISSING = "00000000-0000-4000-8000-000000000000"

VARIANT = "fragment V on AssetVariant { id platform format status checksum createdAt updatedAt }"

NESTED = (
    VARIANT
    + """
query($id: ID!, $withNodes: Boolean!, $noTitle: Boolean!) {
  __typename
  plan(id: $id) {
    __typename id name status createdBy objectiveTags targetPlatforms summary constraintsRef
    timeWindowStart timeWindowEnd createdAt updatedAt
    snapshot: constraints { __typename id kbVersionId notes createdAt }
    ... on Plan { packages { id status variantIds } }
    nodes(orderBy: CREATED_AT_ASC) @include(if: $withNodes) {
      id title @skip(if: $noTitle) nodeType status inputs qualityScore costEstimate summary
      plan { id }
      dependsOn { title } produces { title } dependents { title }
      assets {
        __typename title status assetType
        variants(where: {statusIn: ["published", "failed"]}) { ...V approvals { status } }
        first: variants(first: 1, orderBy: CREATED_AT_ASC) { ... on AssetVariant { platform } }
        prompts { id taskClass params inputRefs outputRefs promptSize }
      }
    }
  }
}"""
)

CONNECTION = """query($after: String) {
  plans(first: 1, after: $after, orderBy: CREATED_AT_ASC) {
    __typename totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { id name createdAt nodes(first: 2) { title } } }
    nodes { __typename id status }
  }
  planNodes(where: {nodeType: "blueprint_instance"}) { totalCount nodes { title inputs } }
}"""

UPSTREAM = """query($id: ID!) { upstream(id: $id) { __typename startId startLabel
  variants { id status } assets { id title assetType } blueprints { id nodeType inputs }
  ancestors { title createdAt } plans { id targetPlatforms constraints { id } }
  snapshots { kbVersionId } prompts { id params } approvals { reviewerUserId status } } }"""

DOWNSTREAM = """query($id: ID!) { downstream(id: $id) { startId startLabel nodes { title }
  assets { title } variants { id } prompts { model } approvals { status }
  packages { id variantIds } runs { id platform } evidence { kind uri size contentType } } }"""

TRACE = (
    VARIANT
    + """
query($id: ID!) { trace(variantId: $id) { variant { ...V } asset { title status }
  blueprint { title inputs } ancestors { title } plan { name objectiveTags }
  snapshot { policiesVersionId } constraints { id kind version author content }
  prompts { model params } approvals { status requiredByPolicy }
  packages { id status } runs { run { id status createdAt } evidence { uri sha256 } } } }"""
)

# The same response key twice: graphql-core and the compiler both merge the two selections.
MERGED = "query($id: ID!) { plan(id: $id) { nodes { title } nodes { status } } }"
# An interface's value (search hits' records are a union's): completed as its own type.
NODE = """query($id: ID!) { node(id: $id) { __typename id
  ... on Plan { name createdAt timeWindowStart nodes { title } }
  ... on PlanNode { title inputs qualityScore } ...V } }
fragment V on AssetVariant { platform checksum }"""


def _id(key: str, name: str = "id") -> Callable[[Ids], dict[str, Any]]:
    return lambda ids: {name: ids[key]}


CASES: list[Case] = [
    ("nested", NESTED, lambda i: {"id": i["plan"], "withNodes": True, "noTitle": False}, "fast"),
    (
        "nested, title skipped",
        NESTED,
        lambda i: {**_id("plan")(i), "withNodes": True, "noTitle": True},
        "fast",
    ),
    (
        "nested, nodes left out",
        NESTED,
        lambda i: {**_id("plan")(i), "withNodes": False, "noTitle": True},
        "fast",
    ),
    ("connection, first page", CONNECTION, lambda i: {}, "fast"),
    ("upstream of a variant", UPSTREAM, _id("variant"), "fast"),
    ("upstream of an asset", UPSTREAM, _id("asset"), "fast"),
    ("upstream of a package", UPSTREAM, _id("package"), "fast"),
    ("downstream of a plan", DOWNSTREAM, _id("plan"), "fast"),
    ("downstream of a node", DOWNSTREAM, _id("campaign"), "fast"),
    ("trace", TRACE, _id("variant"), "fast"),
    ("merged selections", MERGED, _id("plan"), "fast"),
    ("a plan as a node", NODE, _id("plan"), "fast"),
    ("a plan node as a node", NODE, _id("blueprint"), "fast"),
    ("a variant as a node", NODE, _id("variant"), "fast"),
    ("a missing node", NODE, lambda i: {"id": MISSING}, None),
    (
        "missing plan next to the viewer",
        "query($id: ID!) { viewer { role } plan(id: $id) { id name } }",
        lambda i: {"id": MISSING},
        None,
    ),
    ("malformed id", '{ plan(id: "nope") { id } }', lambda i: {}, None),
    (
        "too many related",
        "query($id: ID!) { plan(id: $id) { nodes(first: 5000) { id } } }",
        _id("plan"),
        None,
    ),
    (
        "missing trace",
        "query($id: ID!) { trace(variantId: $id) { variant { id } } }",
        lambda i: {"id": MISSING},
        None,
    ),
    ("another client's variant", UPSTREAM, _id("foreign"), None),
]

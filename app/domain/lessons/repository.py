"""Lesson repository (seed 000, 8.1 and 8.4): create with evidence, add evidence, supersede,
list the active lessons (retiring stale ones lazily) and the retirement sweep.

The rules (decay, evidence boost, retirement, supersession) are in lesson_rules. Every query is
scoped by the caller's client.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_ids, decoded, json_text
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import locked_one, missing
from app.domain.lessons import rules
from app.domain.lessons.links import link_props
from app.domain.lessons.rules import LessonPolicy
from app.graph.change_feed import Changed, note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock_query
from app.graph.values import plain
from app.model.enums import ChangeAction, Role

JSON_FIELDS = ("evidence_refs",)
MISSING_EVIDENCE = """
RETURN
  [id IN $metric_ids WHERE NOT EXISTS {
     MATCH (:PerformanceMetric {id: id, client_id: $client_id}) }] AS metrics,
  [id IN $episode_ids WHERE NOT EXISTS {
     MATCH (:AgentEpisode {id: id, client_id: $client_id}) }] AS episodes
"""
CREATE_LESSON = """
CREATE (l:Lesson)
SET l = $props
RETURN l {.*} AS lesson
"""
LINK_EVIDENCE = """
MATCH (l:Lesson {id: $id, client_id: $client_id})
CALL (l) {
  UNWIND $metric_ids AS metric_id
  MATCH (m:PerformanceMetric {id: metric_id, client_id: $client_id})
  MERGE (l)-[:EVIDENCED_BY]->(m)
}
CALL (l) {
  UNWIND $episode_ids AS episode_id
  MATCH (e:AgentEpisode {id: episode_id, client_id: $client_id})
  MERGE (l)-[:EVIDENCED_BY]->(e)
}
SET l += $changes
RETURN l {.*} AS lesson
"""
EVIDENCE_IDS = "evidence_ids: COLLECT { MATCH (n)-[:EVIDENCED_BY]->(x) RETURN x.id }"
LOCK_LESSON = lock_query("Lesson", "lesson", fields=EVIDENCE_IDS)
SUPERSEDE = """
MATCH (old:Lesson {id: $old_id, client_id: $client_id})
MATCH (new:Lesson {id: $new_id, client_id: $client_id})
CREATE (new)-[:SUPERSEDES]->(old)
CREATE (new)-[link:CONTRADICTS]->(old)
SET link = $link, old.valid_to = $now, old.superseded_by = $new_id, old.updated_at = $now
"""

EFFECTIVE = rules.effective_cypher("l")
STALE = f"NOT l.retired AND {EFFECTIVE} < $threshold"
ACTIVE = f"""
CALL () {{
  MATCH (l:Lesson {{client_id: $client_id, retired: false}}) WHERE {STALE}
  RETURN collect(l.id) AS stale
}}
CALL () {{
  MATCH (l:Lesson {{client_id: $client_id}})
  WHERE ($scope IS NULL OR l.scope = $scope)
    AND ($lesson_type IS NULL OR l.lesson_type = $lesson_type)
    AND ($text IS NULL OR toLower(l.statement) CONTAINS toLower($text))
  WITH l, {EFFECTIVE} AS effective
  WHERE $include_retired OR (NOT l.retired AND l.valid_to IS NULL AND effective >= $threshold)
  WITH l, effective ORDER BY effective DESC, l.created_at DESC, l.id LIMIT $first
  RETURN collect(l {{.*, effective_confidence: effective}}) AS lessons
}}
RETURN lessons, stale
"""
SWEEP = f"""
MATCH (l:Lesson {{client_id: $client_id, retired: false}})
WHERE ($ids IS NULL OR l.id IN $ids) AND {STALE}
SET l.retired = true, l.updated_at = $now
RETURN collect(l.id) AS ids
"""
MAX_ACTIVE = 500


def lesson_record(node: Any) -> dict[str, Any]:
    record = dict(plain(node))
    record.pop("evidence_ids", None)
    return decoded(record, JSON_FIELDS)


def _evidence(metric_ids: Any, episode_ids: Any) -> dict[str, list[str]]:
    return {
        "metric_ids": check_ids(metric_ids or [], field="evidence_metric_ids"),
        "episode_ids": check_ids(episode_ids or [], field="evidence_episode_ids"),
    }


async def _check_evidence(tx: Tx, evidence: dict[str, list[str]], client_id: str) -> None:
    absent = (await tx.run(MISSING_EVIDENCE, evidence | {"client_id": client_id}))[0]
    if absent["metrics"]:
        raise missing("performance metric", absent["metrics"][0])
    if absent["episodes"]:
        raise missing("agent episode", absent["episodes"][0])


async def _create(
    tx: Tx, principal: Principal, fields: dict[str, Any], policy: LessonPolicy, now: datetime
) -> dict[str, Any]:
    stored = rules.check_new_lesson(fields)
    evidence = _evidence(fields.get("evidence_metric_ids"), fields.get("evidence_episode_ids"))
    await _check_evidence(tx, evidence, principal.client_id)
    props = stored | rules.initial_state(stored, now=now, threshold=policy.retire_threshold)
    props |= {
        "id": new_id(),
        "client_id": principal.client_id,
        "evidence_refs": json_text(evidence, field="evidence_refs"),
        "created_at": now,
        "updated_at": now,
    }
    await tx.run(CREATE_LESSON, {"props": props})
    note_change(principal.client_id, "Lesson", props["id"], ChangeAction.CREATED)
    params = evidence | {"id": props["id"], "client_id": principal.client_id, "changes": {}}
    rows = await tx.run(LINK_EVIDENCE, params)
    return lesson_record(rows[0]["lesson"])


async def create_lesson(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any], policy: LessonPolicy
) -> dict[str, Any]:
    """A lesson with its evidence (metrics and episodes of the caller's client)."""
    principal.require_writer()

    async def work(tx: Tx) -> dict[str, Any]:
        return await _create(tx, principal, fields, policy, datetime.now(UTC))

    return await graph.in_transaction(work)


async def add_lesson_evidence(
    graph: GraphExecutor,
    *,
    principal: Principal,
    lesson_id: str,
    metric_ids: list[str] | None,
    episode_ids: list[str] | None,
    policy: LessonPolicy,
) -> dict[str, Any]:
    """Link more evidence; new evidence restarts the decay clock and raises the confidence."""
    principal.require_writer()
    evidence = _evidence(metric_ids, episode_ids)
    if not evidence["metric_ids"] and not evidence["episode_ids"]:
        rules.require_some_evidence()
    scope = {"id": check_id(lesson_id), "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        current = await locked_one(tx, LOCK_LESSON, scope, key="lesson", what="lesson")
        rules.check_can_take_evidence(current)
        await _check_evidence(tx, evidence, principal.client_id)
        known = set(current["evidence_ids"])
        fresh = {k: [i for i in ids if i not in known] for k, ids in evidence.items()}
        now = datetime.now(UTC)
        changes = rules.evidence_changes(
            current,
            new_evidence=sum(len(ids) for ids in fresh.values()),
            now=now,
            boost=policy.evidence_boost,
            threshold=policy.retire_threshold,
        )
        if changes:
            refs = decoded(current, JSON_FIELDS).get("evidence_refs") or {}
            merged = {k: [*(refs.get(k) or []), *fresh[k]] for k in fresh}
            changes |= {"evidence_refs": json_text(merged, field="evidence_refs")}
            changes |= {"updated_at": now}
        rows = await tx.run(LINK_EVIDENCE, scope | fresh | {"changes": changes})
        if changes:
            note_change(principal.client_id, "Lesson", scope["id"], ChangeAction.UPDATED)
        else:
            unrecorded()  # the lesson's lock only: every piece of evidence was linked already
        return lesson_record(rows[0]["lesson"])

    return await graph.in_transaction(work)


async def supersede_lesson(
    graph: GraphExecutor,
    *,
    principal: Principal,
    old_id: str,
    fields: dict[str, Any],
    note: str | None,
    policy: LessonPolicy,
) -> dict[str, Any]:
    """A new lesson that supersedes (and CONTRADICTS) the old one; the old one is kept, valid
    until now."""
    principal.require_writer()
    scope = {"id": check_id(old_id, field="old_id"), "client_id": principal.client_id}
    rules.check_note(note)

    async def work(tx: Tx) -> dict[str, Any]:
        old = await locked_one(tx, LOCK_LESSON, scope, key="lesson", what="lesson")
        rules.check_can_supersede(old)
        now = datetime.now(UTC)
        new = await _create(tx, principal, fields, policy, now)
        link = link_props(principal, note=note, now=now)
        params = {"old_id": scope["id"], "new_id": new["id"], "client_id": principal.client_id}
        await tx.run(SUPERSEDE, params | {"link": link, "now": now})
        note_change(principal.client_id, "Lesson", scope["id"], ChangeAction.UPDATED)
        return new

    return await graph.in_transaction(work)


async def active_lessons(
    graph: GraphExecutor,
    *,
    principal: Principal,
    where: dict[str, Any],
    include_retired: bool,
    first: int,
    policy: LessonPolicy,
) -> list[dict[str, Any]]:
    """Lessons by effective confidence, highest first: by default only the active ones (not
    retired, not superseded, at or above the threshold). Lessons found below the threshold but
    not yet marked are retired on the way (lazy sweep, whoever reads)."""
    if not 1 <= first <= MAX_ACTIVE:
        raise ValidationFailed(f"first must be from 1 to {MAX_ACTIVE}", field="first")
    params = rules.check_lesson_filter(where) | {
        "client_id": principal.client_id,
        "include_retired": include_retired,
        "first": first,
        "threshold": policy.retire_threshold,
        "now": datetime.now(UTC),
    }
    row = (await graph.read(ACTIVE, params))[0]
    swept: set[str] = set()
    if row["stale"]:
        swept = set(await _sweep(graph, principal, policy, row["stale"]))
    lessons = [lesson_record(lesson) for lesson in row["lessons"]]
    for lesson in lessons:
        lesson["retired"] = lesson["retired"] or lesson["id"] in swept
    return lessons


async def retire_stale_lessons(
    graph: GraphExecutor, *, principal: Principal, policy: LessonPolicy
) -> list[str]:
    """Mark every lesson below the threshold retired (admins); the ids it retired."""
    principal.require(Role.ADMIN)
    return await _sweep(graph, principal, policy, None)


async def _sweep(
    graph: GraphExecutor, principal: Principal, policy: LessonPolicy, ids: list[str] | None
) -> list[str]:
    params = {
        "client_id": principal.client_id,
        "ids": ids,
        "threshold": policy.retire_threshold,
        "now": datetime.now(UTC),
    }
    rows = await graph.write(SWEEP, params, changed=partial(retired, principal.client_id))
    return list(rows[0]["ids"])


def retired(client_id: str, rows: list[dict[str, Any]]) -> list[Changed]:
    """The lessons SWEEP retired."""
    return [
        Changed(client_id, "Lesson", lesson_id, ChangeAction.UPDATED)
        for lesson_id in rows[0]["ids"]
    ]

"""PromptArtifact repository: immutable records of the prompts behind generated assets.

The prompt text lives in object storage (written before the node); the node keeps its URI,
SHA-256 and size, and `GENERATED` relationships to the assets and variants it produced.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import (
    MAX_NAME,
    MAX_UPLOAD,
    check_ids,
    check_text,
    decoded,
    enum_value,
    json_text,
)
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, missing
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, TaskClass

JSON_FIELDS = ("params", "input_refs", "output_refs")
PROMPT_CONTENT_TYPE = "text/plain; charset=utf-8"
MISSING_OUTPUTS = """
RETURN
  [id IN $asset_ids WHERE NOT EXISTS { MATCH (:Asset {id: id, client_id: $client_id}) }]
    AS assets,
  [id IN $variant_ids WHERE NOT EXISTS { MATCH (:AssetVariant {id: id, client_id: $client_id}) }]
    AS variants
"""
CREATE_PROMPT = """
CREATE (p:PromptArtifact $props)
WITH p
CALL (p) {
  UNWIND $asset_ids AS asset_id
  MATCH (a:Asset {id: asset_id, client_id: $client_id})
  CREATE (p)-[:GENERATED]->(a)
  RETURN count(a) AS assets
}
CALL (p) {
  UNWIND $variant_ids AS variant_id
  MATCH (v:AssetVariant {id: variant_id, client_id: $client_id})
  CREATE (p)-[:GENERATED]->(v)
  RETURN count(v) AS variants
}
RETURN p {.*} AS prompt, assets, variants
"""
PROMPT = OwnedNode("PromptArtifact", "prompt", what="prompt artifact")


async def create_prompt(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
    prompt_text: str,
) -> dict[str, Any]:
    """`fields["output_refs"]` is {"asset_ids": [...], "variant_ids": [...]} of the caller's."""
    principal.require_writer()
    task_class = enum_value(TaskClass, fields.get("task_class"), field="task_class")
    for name in ("provider", "model"):
        check_text(fields, name, limit=MAX_NAME, required=True)
    refs = fields.get("output_refs") or {}
    unknown = refs.keys() - {"asset_ids", "variant_ids"}
    if unknown:
        raise ValidationFailed("output_refs takes asset_ids and variant_ids", field="output_refs")
    asset_ids = check_ids(refs.get("asset_ids") or [], field="output_refs.asset_ids")
    variant_ids = check_ids(refs.get("variant_ids") or [], field="output_refs.variant_ids")
    data = prompt_text.encode("utf-8") if isinstance(prompt_text, str) else b""
    if not data.strip() or len(data) > MAX_UPLOAD:
        raise ValidationFailed(f"prompt_text must be 1-{MAX_UPLOAD} bytes", field="prompt_text")
    scope = {"client_id": principal.client_id, "asset_ids": asset_ids, "variant_ids": variant_ids}
    props = {
        "task_class": task_class.value,
        "provider": fields["provider"],
        "model": fields["model"],
        "params": json_text(fields.get("params"), field="params"),
        "input_refs": json_text(fields.get("input_refs"), field="input_refs", kinds=(dict, list)),
        "output_refs": json_text(
            {"asset_ids": asset_ids, "variant_ids": variant_ids}, field="output_refs"
        ),
    }
    absent = (await graph.read(MISSING_OUTPUTS, scope))[0]
    _raise_missing(absent["assets"], absent["variants"])
    prompt_id = new_id()
    parts = ("prompts", prompt_id, "prompt.txt")

    async def work(tx: Tx) -> dict[str, Any]:
        row = (await tx.run(CREATE_PROMPT, scope | {"props": props}))[0]
        if row["assets"] != len(asset_ids) or row["variants"] != len(variant_ids):
            gone = (await tx.run(MISSING_OUTPUTS, scope))[0]
            _raise_missing(gone["assets"], gone["variants"])
        note_change(principal.client_id, "PromptArtifact", prompt_id, ChangeAction.CREATED)
        return decoded(plain(row["prompt"]), JSON_FIELDS)

    async with staged_uploads(artifacts, principal) as uploads:
        stored = await uploads.put(parts, data, content_type=PROMPT_CONTENT_TYPE)
        now = datetime.now(UTC)
        props |= {
            "id": prompt_id,
            "client_id": principal.client_id,
            "prompt_text_uri": stored.uri,
            "prompt_sha256": stored.sha256,
            "prompt_size": stored.size,
            "created_at": now,
            "updated_at": now,
        }
        return await graph.in_transaction(work)


def _raise_missing(asset_ids: list[str], variant_ids: list[str]) -> None:
    if asset_ids:
        raise missing("asset", asset_ids[0])
    if variant_ids:
        raise missing("variant", variant_ids[0])


async def prompt_text(
    artifacts: ArtifactStore, *, principal: Principal, prompt: dict[str, Any]
) -> str:
    """The prompt text read back from object storage (hydration)."""
    try:
        data = await artifacts.get(principal, prompt["prompt_text_uri"])
    except NotFound:
        raise missing("prompt artifact", prompt["id"]) from None
    return data.decode("utf-8")


async def prompt_text_url(
    artifacts: ArtifactStore, *, principal: Principal, prompt: dict[str, Any], expires_s: int = 900
) -> str:
    """A presigned GET URL for the prompt text, valid for `expires_s` seconds."""
    return await artifacts.presigned_url(principal, prompt["prompt_text_uri"], expires_s=expires_s)

"""Constraint documents for tests: one of each kind, so that a plan can be approved."""

from __future__ import annotations

from typing import Any

from app.model.enums import ConstraintKind
from tests.integration.conftest import Caller

CREATE = """mutation($input: CreateConstraintDocumentInput!) {
  createConstraintDocument(input: $input) { id kind currentVersion currentVersionId } }"""
EDIT = """mutation($id: ID!, $input: EditConstraintDocumentInput!) {
  editConstraintDocument(id: $id, input: $input) { id currentVersion currentVersionId } }"""
CONTENT: dict[str, dict[str, Any]] = {
    "BRANDKIT": {"name": "Acme Plumbing", "voice": "Warm, plain, expert.", "tone": ["warm"]},
    "KNOWLEDGE_BASE": {
        "facts": [
            {"key": "warranty", "statement": "Tankless heaters carry a 12-year warranty."},
            {"key": "hours", "statement": "Emergency calls are answered 24/7.", "topic": "service"},
        ]
    },
    "AUTONOMY_POLICIES": {
        "policies": [
            {"action": "publish", "mode": "needs_approval"},
            {"action": "reply_dm", "mode": "autonomous"},
        ]
    },
    "PROVIDER_CONFIG": {"providers": [{"name": "writer", "capability": "text", "model": "m-1"}]},
    "BLUEPRINT_SET": {
        "blueprints": [{"key": "reel", "name": "Short reel", "overrides": {"max_seconds": 30}}]
    },
}

# Frozen and current versions are listed by kind, in the order of the stored (lower-case) values.
KIND_ORDER = [kind.name for kind in sorted(ConstraintKind, key=lambda kind: kind.value)]


def create_documents(caller: Caller) -> dict[str, dict[str, Any]]:
    """The caller's client gets one document of each kind (version 1); kind -> document. The
    caller needs role reviewer or admin."""
    made = {}
    for kind, content in CONTENT.items():
        given = {"kind": kind, "title": f"{kind.title()} document", "content": content}
        document = caller.data(CREATE, {"input": given | {"reason": "first version"}})
        made[kind] = document["createConstraintDocument"]
    return made


def edit(caller: Caller, document_id: str, content: Any, **more: Any) -> dict[str, Any]:
    given = {"content": content, "reason": more.pop("reason", "an edit")} | more
    return caller.data(EDIT, {"id": document_id, "input": given})["editConstraintDocument"]

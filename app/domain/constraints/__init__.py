"""Constraint documents (seed 000, 0.5 and 3.3): BrandKit, knowledge base, autonomy policies,
provider config and blueprint set, each client's one per kind, edited by new immutable versions,
frozen by plan approvals; the knowledge base's facts searchable."""

from app.domain.constraints.content import read_content
from app.domain.constraints.documents import DocumentVersion, document_of_kind, list_documents
from app.domain.constraints.edits import edit_document
from app.domain.constraints.freeze import FREEZE, SNAPSHOT_FIELD, versions_to_freeze
from app.domain.constraints.reads import InForce, VersionDiff, constraints_in_force, diff_versions
from app.domain.constraints.repository import create_document
from app.domain.constraints.schemas import check_content, json_schema

__all__ = [
    "FREEZE",
    "SNAPSHOT_FIELD",
    "InForce",
    "DocumentVersion",
    "VersionDiff",
    "check_content",
    "constraints_in_force",
    "create_document",
    "diff_versions",
    "document_of_kind",
    "edit_document",
    "json_schema",
    "list_documents",
    "read_content",
    "versions_to_freeze",
]

"""The rules agents work under (seed 000, 0.5 and 3.3): one document per kind and client
(BrandKit, knowledge base, autonomy policies, provider config, blueprint set), each edit a new
immutable numbered version; the knowledge base's facts as searchable records that know the
versions they belong to."""

from __future__ import annotations

from neomodel import ArrayProperty, IntegerProperty, JSONProperty, StringProperty, ZeroOrOne

from app.model import enums as e
from app.model.facts import LabelFacts, Searchable
from app.model.nodes import Record, enum_property
from app.model.relationships import RelationshipFrom, RelationshipTo


class ConstraintDocument(Record):
    """The stable identity of a document; its content is in its versions."""

    facts = LabelFacts(
        graphql="app.api.types.constraints",
        roots=("constraint_document", "constraint_documents"),
    )

    kind = enum_property(e.ConstraintKind, required=True)
    title = StringProperty(required=True)
    current_version = IntegerProperty(required=True)
    current_version_id = StringProperty(required=True)

    versions = RelationshipTo(
        "ConstraintVersion", "HAS_VERSION", doc="Every version, the first one first."
    )
    current = RelationshipTo(
        "ConstraintVersion", "CURRENT_VERSION", ZeroOrOne, doc="The version in force now."
    )
    knowledge_facts = RelationshipTo(
        "KnowledgeFact", "HAS_FACT", doc="A knowledge base's facts, of every version."
    )


class ConstraintVersion(Record):
    """One immutable state of a document: who made it, when and why. Its content is JSON
    inline (inline_content) or, when large, in object storage (content_uri), with its SHA-256
    either way."""

    facts = LabelFacts(
        graphql="app.api.types.constraints",
        roots=("constraint_version", "constraint_versions"),
    )

    document_id = StringProperty(required=True, index=True)
    kind = enum_property(e.ConstraintKind, required=True)
    version = IntegerProperty(required=True)
    title = StringProperty(required=True)  # the document's title as of this version
    inline_content = JSONProperty()  # small content; else content_uri
    content_uri = StringProperty()
    content_sha256 = StringProperty(required=True)
    content_size = IntegerProperty(required=True)
    author = StringProperty(required=True)
    reason = StringProperty(required=True)

    document = RelationshipFrom(
        "ConstraintDocument", "HAS_VERSION", ZeroOrOne, doc="The document it is a version of."
    )
    frozen_by = RelationshipFrom(
        "ConstraintsSnapshot", "FREEZES", doc="Approval snapshots that froze this version."
    )
    introduced = RelationshipTo(
        "KnowledgeFact", "INTRODUCED", doc="Knowledge base facts new or changed in it."
    )


class KnowledgeFact(Record):
    """A fact of a knowledge base, in force from version `from_version` until the version
    that changed or removed it (`to_version`, exclusive); found by search (seed 000, 3.4)."""

    facts = LabelFacts(
        graphql="app.api.types.constraints",
        roots=("knowledge_fact", "knowledge_facts"),
        searchable=Searchable(("topic", "statement", "tags")),
    )

    document_id = StringProperty(required=True, index=True)
    key = StringProperty(required=True)
    topic = StringProperty()
    statement = StringProperty(required=True)
    source = StringProperty()
    tags = ArrayProperty(StringProperty())
    from_version = IntegerProperty(required=True)
    to_version = IntegerProperty()
    status = enum_property(e.FactStatus, required=True)

    introduced_in = RelationshipFrom(
        "ConstraintVersion", "INTRODUCED", ZeroOrOne, doc="The version that introduced it."
    )


CONSTRAINTS_MODEL: tuple[type[Record], ...] = (ConstraintDocument, ConstraintVersion, KnowledgeFact)

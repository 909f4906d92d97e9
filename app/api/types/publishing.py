"""Publishing types (seed 000, 4.2.5 and section 10); fields from app/model."""

from __future__ import annotations

from app.api.types.base import NodeType, node_type
from app.api.types.downloads import download_url_field


@node_type("PublishPackage", "A bundle of variants ready to publish (seed 000, 4.2.5).")
class PublishPackage(NodeType): ...


@node_type("PublishRun", "One attempt to publish a package on a platform.")
class PublishRun(NodeType): ...


@node_type("EvidenceArtifact", "Evidence of a publish run, stored in object storage.")
class EvidenceArtifact(NodeType):
    __needs__ = frozenset({"uri"})  # downloadUrl

    uri: str
    download_url: str = download_url_field()

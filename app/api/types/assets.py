"""Asset graph types (seed 000, 4.2); fields from app/model."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.context import Info
from app.api.types.base import NodeType, node_type
from app.domain.assets import prompts


@node_type("Asset", "A logical creative object (seed 000, 4.2.1).")
class Asset(NodeType): ...


@node_type("AssetVariant", "A concrete version of an asset for a platform (seed 000, 4.2.2).")
class AssetVariant(NodeType): ...


@node_type("PromptArtifact", "A prompt used for generation; text in object storage (4.2.3).")
class PromptArtifact(NodeType):
    __needs__ = frozenset({"prompt_text_uri"})  # promptText, promptTextUrl

    prompt_text_uri: str

    @strawberry.field(description="The prompt text, read back from object storage.")
    async def prompt_text(self, info: Info) -> str:
        return await prompts.prompt_text(
            info.context.services.artifacts, principal=info.context.caller(), prompt=self._stored()
        )

    @strawberry.field(description="A presigned GET URL for the prompt text (15 minutes).")
    async def prompt_text_url(self, info: Info) -> str:
        return await prompts.prompt_text_url(
            info.context.services.artifacts, principal=info.context.caller(), prompt=self._stored()
        )

    def _stored(self) -> dict[str, Any]:
        return {"id": str(self.id), "prompt_text_uri": self.prompt_text_uri}


@node_type("ApprovalRecord", "A human approval gate for an asset or variant (4.2.4).")
class ApprovalRecord(NodeType):
    reviewer_user_id: str | None  # a person's, not a record's

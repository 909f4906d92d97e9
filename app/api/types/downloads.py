"""The download link of a node that stands for one object in storage (its `uri`)."""

from __future__ import annotations

from typing import Any

import strawberry

from app.api.context import Info


async def _download_url(self: Any, info: Info) -> str:
    artifacts = info.context.services.artifacts
    return str(await artifacts.presigned_url(info.context.caller(), self.uri))


def download_url_field() -> Any:
    """`downloadUrl`: a presigned GET URL valid for 15 minutes (the type needs `uri`)."""
    return strawberry.field(
        resolver=_download_url, description="A presigned download URL, valid for 15 minutes."
    )

"""What asset mutations return besides the read types (app/api/types): the variant payload."""

from __future__ import annotations

import strawberry

from app.api.types.assets import AssetVariant


@strawberry.type(description="The created variant, or the existing one with its checksum.")
class CreateAssetVariantPayload:
    variant: AssetVariant
    deduplicated: bool = strawberry.field(
        description="True when a variant with this checksum already existed and is returned."
    )

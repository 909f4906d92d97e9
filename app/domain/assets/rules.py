"""Asset graph and publishing rules: the status machines and the approval gate, checked before
anything is written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TypeVar

from app.domain.kernel.errors import ApprovalRequired
from app.domain.kernel.status_machine import check_transition as check_transition
from app.model.enums import (
    ApprovalStatus,
    AssetStatus,
    PackageStatus,
    PublishRunStatus,
    VariantStatus,
)

E = TypeVar("E", bound=StrEnum)

A = AssetStatus
ASSET_TRANSITIONS: dict[AssetStatus, frozenset[AssetStatus]] = {
    A.DRAFT: frozenset({A.GENERATED, A.RETIRED}),
    A.GENERATED: frozenset({A.EDITED, A.APPROVED, A.RETIRED}),
    A.EDITED: frozenset({A.APPROVED, A.GENERATED, A.RETIRED}),
    A.APPROVED: frozenset({A.PUBLISHED, A.EDITED, A.RETIRED}),
    A.PUBLISHED: frozenset({A.RETIRED}),
    A.RETIRED: frozenset(),
}
V = VariantStatus
VARIANT_TRANSITIONS: dict[VariantStatus, frozenset[VariantStatus]] = {
    V.PENDING: frozenset({V.READY, V.FAILED}),
    V.READY: frozenset({V.APPROVED, V.FAILED}),
    V.FAILED: frozenset({V.PENDING}),
    V.APPROVED: frozenset({V.PUBLISHED, V.FAILED}),
    V.PUBLISHED: frozenset(),
}
R = ApprovalStatus
APPROVAL_TRANSITIONS: dict[ApprovalStatus, frozenset[ApprovalStatus]] = {
    R.PENDING: frozenset({R.APPROVED, R.REJECTED}),
    R.APPROVED: frozenset(),
    R.REJECTED: frozenset(),
}
P = PackageStatus
PACKAGE_TRANSITIONS: dict[PackageStatus, frozenset[PackageStatus]] = {
    P.QUEUED: frozenset({P.SCHEDULED, P.PUBLISHING, P.FAILED}),
    P.SCHEDULED: frozenset({P.PUBLISHING, P.QUEUED, P.FAILED}),
    P.PUBLISHING: frozenset({P.PUBLISHED, P.FAILED}),
    P.FAILED: frozenset({P.QUEUED}),
    P.PUBLISHED: frozenset(),
}
U = PublishRunStatus
RUN_TRANSITIONS: dict[PublishRunStatus, frozenset[PublishRunStatus]] = {
    U.RUNNING: frozenset({U.SUCCEEDED, U.FAILED}),
    U.SUCCEEDED: frozenset(),
    U.FAILED: frozenset(),
}


def blocked_variants(required_statuses: Mapping[str, Sequence[str]]) -> list[str]:
    """Variant ids with a policy-required approval (on the variant or its asset) not approved.

    `required_statuses` maps each variant id of a package to the statuses of the approvals with
    required_by_policy=true that target the variant or its asset. A variant with none passes.
    """
    return sorted(
        variant_id
        for variant_id, statuses in required_statuses.items()
        if any(status != ApprovalStatus.APPROVED.value for status in statuses)
    )


def check_publishable(required_statuses: Mapping[str, Sequence[str]]) -> None:
    """APPROVAL_REQUIRED, listing the blocked variants, unless every required approval passed."""
    blocked = blocked_variants(required_statuses)
    if blocked:
        raise ApprovalRequired(
            "every approval required by policy must be approved before publishing; "
            f"still pending or rejected for variants: {', '.join(blocked)}",
            variant_ids=blocked,
        )

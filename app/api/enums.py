"""Registers the model's closed vocabularies as GraphQL enums (the same classes, not copies)."""

from __future__ import annotations

import strawberry

from app.model import enums

for _enum in (enums.Role, enums.PlanStatus, enums.ObjectiveTag, enums.Platform, enums.CreatedBy):
    strawberry.enum(_enum)

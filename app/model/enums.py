"""Closed vocabularies of the graph model, shared by validation, Cypher and GraphQL."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    AGENT = "agent"
    REVIEWER = "reviewer"
    ANALYST = "analyst"
    ADMIN = "admin"


class PlanStatus(StrEnum):
    DRAFT = "draft"
    REVIEWED = "reviewed"
    APPROVED = "approved"
    EXECUTING = "executing"
    COMPLETE = "complete"
    ARCHIVED = "archived"


class ObjectiveTag(StrEnum):
    LEADGEN = "leadgen"
    AUTHORITY = "authority"
    COMMUNITY = "community"
    RETENTION = "retention"


class Platform(StrEnum):
    IG = "ig"
    FB = "fb"
    TIKTOK = "tiktok"
    LINKEDIN = "linkedin"
    X = "x"
    YOUTUBE = "youtube"
    SKOOL = "skool"


class CreatedBy(StrEnum):
    HUMAN = "human"
    AGENT = "agent"

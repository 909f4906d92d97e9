"""What each kind of constraint document may hold: one small schema per kind, strict (an unknown
field is an error, so a typo never passes silently). `check_content` turns the first violation
into a typed error naming the field's path, e.g. `content.facts[2].statement`."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from app.domain.kernel.errors import ValidationFailed
from app.model.enums import ConstraintKind

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4_000)]
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$")]
Hex = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]
Names = Annotated[list[Name], Field(max_length=200)]
Settings = dict[str, Any]
Mode = Literal["autonomous", "needs_approval", "forbidden"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Color(Strict):
    name: Name
    hex: Hex


class BrandKit(Strict):
    """Voice, look and words of the brand."""

    name: Name
    voice: Text | None = None
    audience: Text | None = None
    tone: Names = []
    do: Annotated[list[Text], Field(max_length=200)] = []
    dont: Annotated[list[Text], Field(max_length=200)] = []
    banned_terms: Names = []
    hashtags: Names = []
    colors: Annotated[list[Color], Field(max_length=50)] = []
    fonts: Names = []


class Fact(Strict):
    key: Key
    statement: Text
    topic: Name | None = None
    tags: Names = []
    source: Text | None = None


class KnowledgeBase(Strict):
    """Facts about the client's business; each one a searchable record."""

    facts: Annotated[list[Fact], Field(max_length=5_000)]


class Policy(Strict):
    action: Key
    mode: Mode
    limit: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    unit: Name | None = None
    notes: Text | None = None


class AutonomyPolicies(Strict):
    """What agents may do alone, only with an approval, or never."""

    default_mode: Mode = "needs_approval"
    policies: Annotated[list[Policy], Field(max_length=500)]


class Provider(Strict):
    name: Key
    capability: Name
    model: Name | None = None
    enabled: bool = True
    settings: Settings = {}


class ProviderConfig(Strict):
    """Which model or service does which work (never secrets: keys stay in the vault)."""

    providers: Annotated[list[Provider], Field(max_length=200)]


class Blueprint(Strict):
    key: Key
    name: Name
    node_type: Name | None = None
    description: Text | None = None
    overrides: Settings = {}


class BlueprintSet(Strict):
    """The blueprints plans are made from, with this client's overrides of each."""

    blueprints: Annotated[list[Blueprint], Field(max_length=500)]


SCHEMAS: dict[ConstraintKind, type[Strict]] = {
    ConstraintKind.BRANDKIT: BrandKit,
    ConstraintKind.KNOWLEDGE_BASE: KnowledgeBase,
    ConstraintKind.AUTONOMY_POLICIES: AutonomyPolicies,
    ConstraintKind.PROVIDER_CONFIG: ProviderConfig,
    ConstraintKind.BLUEPRINT_SET: BlueprintSet,
}
# The top-level lists whose items have an identity (the field named): unique within its list,
# and what a diff matches items by.
UNIQUE_LISTS = {"facts": "key", "policies": "action", "providers": "name", "blueprints": "key"}


def check_content(kind: ConstraintKind, content: Any) -> dict[str, Any]:
    """The content as stored (as given, whitespace trimmed); VALIDATION naming the first
    field that does not fit."""
    if not isinstance(content, dict):
        raise ValidationFailed("content must be a JSON object", field="content")
    try:
        checked = SCHEMAS[kind].model_validate(content).model_dump(mode="json", exclude_unset=True)
    except ValidationError as error:
        first = error.errors()[0]
        path = field_path(("content", *first["loc"]))
        raise ValidationFailed(f"{path}: {first['msg']}", field=path) from None
    _check_json(content)
    _check_unique(checked)
    return checked


def _check_json(content: dict[str, Any]) -> None:
    """Plain JSON only: the schema would turn NaN in free-form settings into null silently."""
    try:
        json.dumps(content, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValidationFailed(
            f"content must be plain JSON (no Infinity, NaN or other values): {error}",
            field="content",
        ) from None


def field_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _check_unique(content: dict[str, Any]) -> None:
    for name, identity in UNIQUE_LISTS.items():
        seen: set[str] = set()
        for n, item in enumerate(content.get(name, ())):
            if item[identity] in seen:
                path = f"content.{name}[{n}].{identity}"
                raise ValidationFailed(f"{path}: {item[identity]!r} appears twice", field=path)
            seen.add(item[identity])


def json_schema(kind: ConstraintKind) -> dict[str, Any]:
    """The kind's JSON Schema (the CLI prints it; the README describes it)."""
    return SCHEMAS[kind].model_json_schema()

"""jarvis_memory lines (seed 004): one user per line. The user becomes a MemorySubject (its
profile data and preferences, set where the subject has none yet); entity knowledge, the
interaction history and the skill states become records in the subject's namespace, under the
path of their memory type, each keyed by what identifies it in the legacy store (the entity's
name, a hash of the interaction, the skill's name)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.kernel.field_rules import json_text
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.legacy import values as v
from app.domain.legacy.units import Planned, Unit, planned
from app.domain.memory import check_segment
from app.model.enums import MemoryType

INTERACTION_FIELDS = ("content", "text", "timestamp")


def jarvis_unit(
    row: dict[str, Any], *, line: int, principal: Principal, agent: str | None, now: datetime
) -> Unit:
    user = check_segment(row.get("user_id"), field="user_id")
    created = v.legacy_time(row.get("created_at"), field="created_at", now=now, default=now)
    subject = {
        "external_ref": user,
        "props": {
            "id": new_id(),
            "client_id": principal.client_id,
            "external_ref": user,
            "profile": json_text(row.get("profile_data"), field="profile_data"),
            "preferences": json_text(row.get("preferences"), field="preferences"),
            "active": True,
            "created_at": created,
            "updated_at": created,
        },
    }
    base = {"subject": user, "agent": agent}
    build = _Builder(base, principal=principal, now=now, created=created)
    records = [
        *build.entities(row.get("entity_knowledge")),
        *build.interactions(row.get("interaction_history")),
        *build.skill_states(row.get("skill_states")),
    ]
    return Unit(line, records=records, subjects=[subject])


class _Builder:
    """The records of one user's line."""

    def __init__(
        self, base: dict[str, Any], *, principal: Principal, now: datetime, created: datetime
    ) -> None:
        self.base, self.principal, self.now, self.created = base, principal, now, created

    def record(
        self, memory_type: MemoryType, key: str, text: Any, content: Any, at: datetime | None = None
    ) -> Planned:
        fields = self.base | {
            "path": [memory_type.value],
            "key": key,
            "memory_type": memory_type.value,
            "text": text,
            "content": content,
        }
        return planned(
            fields, principal=self.principal, now=self.now, created_at=at or self.created
        )

    def entities(self, value: Any) -> list[Planned]:
        """{name: text or object}: what the assistant knows about each entity."""
        out = []
        for name, known in (v.json_object(value, field="entity_knowledge") or {}).items():
            with v.at(f"entity_knowledge[{name!r}]"):
                if isinstance(known, dict):
                    text = known.get("text", known.get("description"))
                    out.append(
                        self.record(
                            MemoryType.ENTITY,
                            name,
                            text if isinstance(text, str) else None,
                            known,
                        )
                    )
                else:
                    out.append(self.record(MemoryType.ENTITY, name, known, None))
        return out

    def interactions(self, value: Any) -> list[Planned]:
        """[{timestamp, text or content, ...}]: keyed by a hash of the whole item, so a longer
        history imported later adds only its new items."""
        out = []
        for index, item in enumerate(v.json_list(value, field="interaction_history")):
            with v.at(f"interaction_history[{index}]"):
                item = v.required_object(item, field="item")
                at = v.legacy_time(
                    item.get("timestamp"), field="timestamp", now=self.now, default=self.created
                )
                text, content = v.said(item, known=INTERACTION_FIELDS)
                out.append(self.record(MemoryType.INTERACTION, v.digest(item), text, content, at))
        return out

    def skill_states(self, value: Any) -> list[Planned]:
        """{skill: state object}: each skill's saved state."""
        out = []
        for skill, state in (v.json_object(value, field="skill_states") or {}).items():
            with v.at(f"skill_states[{skill!r}]"):
                state = v.required_object(state, field="state")
                out.append(self.record(MemoryType.AGENT_STATE, skill, None, state))
        return out

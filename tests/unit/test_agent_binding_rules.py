"""Principal.acting_agent / require_agent (app/domain/kernel/principal.py) and the idempotency
result codec (app/domain/kernel/result_codec.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.kernel.errors import Forbidden
from app.domain.kernel.principal import Principal
from app.domain.kernel.result_codec import decode, encode, fingerprint
from app.domain.sessions.repository import SessionStart
from app.model.enums import MemoryKind, Role

AGENT = Principal(client_id="c", role=Role.AGENT, key_id="k", agent_name="brad")
REVIEWER = Principal(client_id="c", role=Role.REVIEWER, key_id="r", agent_name="rita")


def test_an_agent_key_acts_only_as_its_own_agent() -> None:
    assert AGENT.acting_agent(None) == "brad" and AGENT.acting_agent("brad") == "brad"
    with pytest.raises(Forbidden) as refused:
        AGENT.acting_agent("sue")
    assert refused.value.details == {"bound_agent": "brad", "agent": "sue"}
    assert "bound to agent 'brad'" in refused.value.message
    AGENT.require_agent(None)  # what no agent owns is anyone's


def test_reviewers_act_for_any_agent() -> None:
    assert REVIEWER.bound_agent is None
    assert REVIEWER.acting_agent("sue") == "sue" and REVIEWER.acting_agent(None) == "rita"


def test_results_round_trip_exactly() -> None:
    now = datetime(2027, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    value = {
        "record": {"id": "x", "created_at": now, "tags": ["a"], "content": {"n": [1, 2.5, None]}},
        "kind": MemoryKind.SEMANTIC,
        "pair": ("a", 1),
        "raw": b"\x00\xff",
        "started": SessionStart(session={"id": "s", "at": now}, created=True),
    }
    assert decode(encode(value)) == value
    with pytest.raises(TypeError):
        encode({"unsupported": object()})


def test_fingerprints_tell_requests_apart() -> None:
    assert fingerprint("remember", "brad", {"text": "a"}) == fingerprint(
        "remember", "brad", {"text": "a"}
    )
    assert fingerprint("remember", "brad", {"text": "a"}) != fingerprint(
        "remember", "brad", {"text": "b"}
    )
    assert fingerprint("remember", "brad", {}) != fingerprint("remember", "sue", {})

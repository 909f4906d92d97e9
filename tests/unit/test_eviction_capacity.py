"""Priority eviction's limits from the settings: the per-namespace ones come first (narrowest),
and a prefix that is not whole canonical segments stops start-up naming the variable."""

from __future__ import annotations

import pytest

from app.domain.memory import Capacity
from app.settings import Settings


def test_namespace_limits_go_before_the_client_limit() -> None:
    settings = Settings(memory_capacity=100, memory_namespace_capacity={"subject:alice": 10})
    assert Capacity.of(settings).scopes() == [("subject:alice", 10), (None, 100)]
    assert Capacity.of(Settings()).scopes() == []  # no limit by default


@pytest.mark.parametrize("prefix", ["subject:alice/", "", "a b", "/x"])
def test_a_bad_prefix_names_the_variable(prefix: str) -> None:
    settings = Settings(memory_namespace_capacity={prefix: 5})
    with pytest.raises(ValueError, match="AGENTMEM_MEMORY_NAMESPACE_CAPACITY"):
        Capacity.of(settings)


def test_a_capacity_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        Settings(memory_capacity=0)
    with pytest.raises(ValueError):
        Settings(memory_namespace_capacity={"subject:alice": 0})

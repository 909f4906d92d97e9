"""Helpers for search tests: wait for the embedding worker, run a search."""

from __future__ import annotations

import time
from typing import Any

from tests.integration.conftest import Caller

STATUS = "{ searchStatus { pending lagSeconds model } }"
SEARCH = """query($input: SearchInput!) { search(input: $input) {
  embedMs searchMs
  hits { recordId recordType score vectorScore vectorRank keywordScore keywordRank graphDistance why
    record { __typename ... on ConversationEvent { id text threadId }
             ... on Lesson { id statement scope } ... on Plan { id name summary }
             ... on PlanNode { id title planId } } } } }"""


def wait_indexed(caller: Caller, timeout_s: float = 120.0) -> None:
    """Polls until the worker has indexed every record the caller wrote."""
    deadline = time.monotonic() + timeout_s
    while caller.data(STATUS)["searchStatus"]["pending"] > 0:
        assert time.monotonic() < deadline, "the embedding worker did not catch up"
        time.sleep(0.2)


def search(caller: Caller, text: str, **options: Any) -> list[dict[str, Any]]:
    result = caller.data(SEARCH, {"input": {"text": text, **options}})["search"]
    return list(result["hits"])

"""Tool results sized for a model's context: nulls and empty lists left out (they say nothing a
model needs), and a result over its token budget cut from the end of its longest lists (lists
are ranked or ordered, so the end matters least) until it fits, with `truncated: true` and how
many items went in `omittedItems`. Tokens are counted as the context tools count them
(app/retrieval/budget.py)."""

from __future__ import annotations

from typing import Any

from app.retrieval.budget import estimate_tokens


def compact(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {k: compact(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v is not None and v != []}
    if isinstance(value, list):
        return [compact(item) for item in value]
    return value


def fit(value: Any, budget: int) -> Any:
    """`value` compacted and, when it is over `budget` tokens, cut to fit (see module doc)."""
    value = compact(value)
    omitted = 0
    while estimate_tokens(value) > budget:
        longest = _longest_list(value)
        if longest is None or not longest:
            break
        longest.pop()
        omitted += 1
    if omitted and isinstance(value, dict):
        value = {**value, "truncated": True, "omittedItems": omitted}
    return value


def _longest_list(value: Any) -> list[Any] | None:
    """The list in `value` whose JSON is the longest (the one cutting saves most from)."""
    best: list[Any] | None = None
    best_size = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            size = estimate_tokens(item)
            if item and size > best_size:
                best, best_size = item, size
            stack.extend(item)
    return best

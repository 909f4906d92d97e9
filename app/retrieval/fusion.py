"""Rank fusion and diversity, as pure functions (unit-tested without a database)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """score(d) = sum over signals of weight / (k + rank), ranks from 1 (Cormack et al. 2009)."""
    fused: dict[str, float] = {}
    for signal, ranked in rankings.items():
        weight = (weights or {}).get(signal, 1.0)
        for rank, record_id in enumerate(ranked, start=1):
            fused[record_id] = fused.get(record_id, 0.0) + weight / (k + rank)
    return fused


def neighbour_boost(
    scores: Mapping[str, float], neighbours: Mapping[str, Sequence[str]], *, weight: float
) -> dict[str, float]:
    """score(d) + weight * the best score among d's neighbours (records next to it in a
    sequence, e.g. the turns before and after a conversation turn): an answer often sits next
    to the turn whose words match the question. With weight < 1 a record still outranks its
    neighbour when it matches better itself."""
    return {
        rid: score
        + weight * max((scores[n] for n in neighbours.get(rid, ()) if n in scores), default=0.0)
        for rid, score in scores.items()
    }


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def maximal_marginal_relevance(
    ranked: Sequence[str],
    relevance: dict[str, float],
    vectors: Mapping[str, Sequence[float]],
    *,
    k: int,
    trade_off: float,
) -> list[str]:
    """Greedy MMR: trade_off * relevance - (1 - trade_off) * max similarity to those chosen.

    Relevance is rescaled to [0, 1] first so both terms weigh alike; records without a vector
    keep their relevance and count as dissimilar to everything.
    """
    if not ranked:
        return []
    top, bottom = max(relevance.values()), min(relevance.values())
    spread = (top - bottom) or 1.0
    scaled = {rid: (relevance[rid] - bottom) / spread for rid in ranked}
    chosen: list[str] = []
    remaining = list(ranked)
    while remaining and len(chosen) < k:

        def marginal(rid: str) -> float:
            overlap = max(
                (
                    cosine(vectors[rid], vectors[c])
                    for c in chosen
                    if rid in vectors and c in vectors
                ),
                default=0.0,
            )
            return trade_off * scaled[rid] - (1 - trade_off) * overlap

        best = max(remaining, key=marginal)
        chosen.append(best)
        remaining.remove(best)
    return chosen

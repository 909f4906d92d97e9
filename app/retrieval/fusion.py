"""Rank fusion and diversity, as pure functions (unit-tested without a database)."""

from __future__ import annotations

import math
import operator
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


def demote_repeats(
    scores: Mapping[str, float], sources: Mapping[str, Sequence[str]], *, factor: float
) -> dict[str, float]:
    """A record derived from one other record alone (an observation of one conversation turn)
    says what that record says: when both are candidates, the lower scored of the two keeps
    `factor` of its score, so that a top k holds more than one account of the same thing.
    `sources`: each candidate's DERIVED_FROM records."""
    demoted = dict(scores)
    for record_id, derived_from in sources.items():
        if len(derived_from) != 1 or record_id not in scores or derived_from[0] not in scores:
            continue
        pair = (record_id, derived_from[0])
        lower = min(pair, key=lambda rid: (scores[rid], rid))
        demoted[lower] = scores[lower] * factor
    return demoted


def lift_summaries(
    scores: Mapping[str, float], sources: Mapping[str, Sequence[str]], *, weight: float
) -> dict[str, float]:
    """A record derived from two or more records (a session's summary, derived from its turns)
    gains `weight` times the best score among its sources that are candidates too: turns that
    match the question speak for the summary that covers them, whose own words and vector are
    spread over all of them (parent-document retrieval). As neighbour_boost, from the scores
    given, so a summary lifts no other summary; a summary passes its best source only when its
    own score is above (1 - weight) of that source's. `sources`: each candidate's DERIVED_FROM
    records."""
    lifted = dict(scores)
    for record_id, derived_from in sources.items():
        if len(derived_from) < 2 or record_id not in scores:
            continue
        best = max((scores[source] for source in derived_from if source in scores), default=0.0)
        lifted[record_id] = scores[record_id] + weight * best
    return lifted


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return _cosine(a, b, _norm(a), _norm(b))


def _norm(a: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in a))


def _cosine(a: Sequence[float], b: Sequence[float], norm_a: float, norm_b: float) -> float:
    norm = norm_a * norm_b
    return sum(map(operator.mul, a, b)) / norm if norm else 0.0


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
    keep their relevance and count as dissimilar to everything. Each record's largest
    similarity is updated only against the record chosen last (n * k cosines, not n * k^2).
    """
    if not ranked:
        return []
    top, bottom = max(relevance.values()), min(relevance.values())
    spread = (top - bottom) or 1.0
    scaled = {rid: (relevance[rid] - bottom) / spread for rid in ranked}
    norms = {rid: _norm(vectors[rid]) for rid in ranked if rid in vectors}
    overlap: dict[str, float] = {}
    chosen: list[str] = []
    remaining = list(ranked)
    while remaining and len(chosen) < k:
        best = max(
            remaining,
            key=lambda rid: trade_off * scaled[rid] - (1 - trade_off) * overlap.get(rid, 0.0),
        )
        chosen.append(best)
        remaining.remove(best)
        if best in norms:
            for rid in remaining:
                if rid in norms:
                    similarity = _cosine(vectors[rid], vectors[best], norms[rid], norms[best])
                    overlap[rid] = max(overlap.get(rid, similarity), similarity)
    return chosen

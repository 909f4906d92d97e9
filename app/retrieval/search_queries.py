"""The Cypher of search: fixed fragments chosen by which filters are set; values as parameters."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache
from typing import Any

from app.graph.fragments import DB_CLOCK, fact_in_force, live, record_projection
from app.graph.identifiers import Label, cypher_label, cypher_rel_type
from app.model.enums import MemoryRelation
from app.retrieval.vector_index import VectorIndex, is_vector_property, legacy_slot

VECTOR_INDEX = "searchable_embedding"
TEXT_INDEX = "searchable_text"
PROJECTION = record_projection("n")
# What ranking needs of a candidate: conversation turns find their neighbours by thread and
# sequence; the records it is DERIVED_FROM (up to SOURCES_READ) tell a repeat of one record
# (fusion.demote_repeats) from a summary of several (fusion.lift_summaries). The records kept
# are read once ranked, as the caller selected them (Shown) or in full: records are costly to
# hydrate.
DERIVED_FROM = cypher_rel_type(MemoryRelation.DERIVED_FROM.upper())
# A summary derived from more records is lifted by this many of them only (LoCoMo's session
# summaries: 17-32 turns each).
SOURCES_READ = 64
RANKED = (
    "n {.id, .record_type, .thread_id, .sequence, derived_from: "
    f"[(n)-[:{DERIVED_FROM}]->(source) WHERE source.client_id = $client_id | source.id]"
    f"[..{SOURCES_READ}]}}"
)
# Search spans labels without the `active` flag, and its queries carry no clock of their own.
LIVE = live("n", DB_CLOCK, flagless=True)
# The index of a search without the registry (searchable_embedding), and the vector properties
# of the other models a search leaves out of the records it returns.
LEGACY = legacy_slot("")


@dataclass(frozen=True)
class SearchFilters:
    created_after: datetime | None = None
    created_before: datetime | None = None
    statuses: tuple[str, ...] | None = None
    platform: str | None = None
    thread_id: str | None = None
    plan_id: str | None = None
    agent: str | None = None
    scope: str | None = None
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    namespace_prefix: str | None = None
    session_id: str | None = None
    min_priority: int | None = None
    kb_version_id: str | None = None
    exclude_id: str | None = None  # similar: the record whose neighbours are asked for


# Knowledge base facts in force at the knowledge base version $kb_version_id (of the client).
KB_VERSION = (
    "EXISTS { MATCH (kb:ConstraintVersion {id: $kb_version_id, client_id: $client_id}) "
    f"WHERE n.document_id = kb.document_id AND {fact_in_force('n', 'kb.version')} }}"
)
_FRAGMENTS = {
    "created_after": "n.created_at >= $created_after",
    "created_before": "n.created_at < $created_before",
    "statuses": "n.status IN $statuses",
    "platform": "n.platform = $platform",
    "thread_id": "n.search_thread_id = $thread_id",
    "plan_id": "n.search_plan_id = $plan_id",
    "agent": "n.search_agent = $agent",
    "scope": "n.search_scope = $scope",
    "kinds": "n.kind IN $kinds",
    "tags": "all(tag IN $tags WHERE tag IN coalesce(n.tags, []))",
    "namespace_prefix": "n.namespace STARTS WITH $namespace_prefix",
    "session_id": "n.session_id = $session_id",
    "min_priority": "n.priority >= $min_priority",
    "kb_version_id": KB_VERSION,
    "exclude_id": "n.id <> $exclude_id",
}


def filter_clause(filters: SearchFilters) -> tuple[str, dict[str, Any]]:
    """The WHERE conditions (after client and type) of the filters that are set."""
    conditions, params = [LIVE], {}
    for item in fields(SearchFilters):
        value = getattr(filters, item.name)
        if value is not None:
            conditions.append(_FRAGMENTS[item.name])
            params[item.name] = list(value) if isinstance(value, tuple) else value
    return " AND ".join(conditions), params


def has_filters(filters: SearchFilters) -> bool:
    """Whether filters may thin the index's candidates (search asks it for more). Leaving one
    record out does not: a vector search's pool holds k + 10 candidates at least."""
    return any(
        getattr(filters, item.name) is not None
        for item in fields(SearchFilters)
        if item.name != "exclude_id"
    )


def projection(hidden: tuple[str, ...] = ()) -> str:
    """PROJECTION, with the vectors of the models in `hidden` (vector_index.py names) nulled
    too; the same text when there are none."""
    extra = "".join(f", {name}: null" for name in hidden if is_vector_property(name))
    return f"{PROJECTION[:-1]}{extra}}}" if extra else PROJECTION


@dataclass(frozen=True)
class Shown:
    """What a search returns of each record it keeps, instead of every property: a Cypher map of
    the record `n` holding at least its id and record_type (the caller's GraphQL selection,
    compiled: app/api/search/shown.py), and the parameters it uses."""

    projection: str
    params: Mapping[str, Any] = field(default_factory=dict)
    # Own properties only, no related records: cheap enough for every candidate, so the signal
    # queries return it beside what ranking needs (`ranked`) and no read follows the ranking
    # (LoCoMo, 25 hits of one field each: hybrid p50 16.7 -> 15.5 ms turns only, 19.8 -> 18.1
    # all records, in process). Else the records kept are read once ranked.
    per_candidate: bool = False


# Where a candidate ranked with `ranked` holds the caller's projection.
SHOWN_KEY = "shown"


def ranked(shown: Shown | None) -> str:
    """What the signal queries return of each candidate: RANKED, and the caller's projection
    under SHOWN_KEY when it is read per candidate."""
    if shown is None or not shown.per_candidate:
        return RANKED
    return f"{RANKED[:-1]}, {SHOWN_KEY}: {shown.projection}}}"


def found(shown: str) -> str:
    """The ranked records and their scores as one row, best first: the driver spends about
    70 us on each row it receives, most of a vector search's time when each is a row of its
    own (75 candidates: 6.3 ms as rows, 2.2 ms as one)."""
    return f"RETURN collect({{record: {shown}, score: score}}) AS found"


def vector_query(where: str, *, typed: bool, shown: str | None, index: VectorIndex = LEGACY) -> str:
    """In-index client (and record type) filter; the other filters after, on the candidates.
    $pool candidates are asked of `index` (the client's active model's) and the best $keep
    returned (FOUND), each as `shown`: the caller's projection when nothing else ranks them (a
    plain vector search), else `ranked`'s (RANKED when None)."""
    type_filter = " AND n.record_type = record_type" if typed else ""
    search = (
        f"MATCH (n:Searchable) SEARCH n IN (VECTOR INDEX {index.index} FOR $vector "
        f"WHERE n.client_id = $client_id{type_filter} LIMIT $pool) SCORE AS score"
    )
    if typed:
        return (
            "CYPHER 25 UNWIND $record_types AS record_type CALL (record_type) { "
            f"{search} RETURN n, score }} WITH n, score WHERE {where} "
            f"WITH n, score ORDER BY score DESC LIMIT $keep {found(shown or RANKED)}"
        )
    return (
        f"CYPHER 25 {search} WITH n, score WHERE {where} "
        f"WITH n, score ORDER BY score DESC LIMIT $keep {found(shown or RANKED)}"
    )


def exact_vector_query(
    where: str, *, typed: bool, shown: str | None, index: VectorIndex = LEGACY
) -> str:
    """Exact cosine over the client's records: the fallback when filters thin the candidates."""
    type_filter = " AND n.record_type IN $record_types" if typed else ""
    return (
        f"MATCH (n:Searchable) WHERE n.client_id = $client_id{type_filter} AND {where} "
        f"WITH n, vector.similarity.cosine(n.{index.property}, $vector) AS score "
        f"ORDER BY score DESC LIMIT $keep {found(shown or RANKED)}"
    )


_CLIENT_RECORD = "MATCH ({v}:Searchable {{id: id}}) WHERE {v}.client_id = $client_id "
EMBEDDINGS = "UNWIND $ids AS id " + _CLIENT_RECORD.format(v="n")
EMBEDDINGS += "RETURN n.id AS id, n[$property] AS embedding"


def records_query(shown: str) -> str:
    """The kept records as `shown`, one row of all of them (cheaper on the driver than a row
    each)."""
    return "UNWIND $ids AS id " + _CLIENT_RECORD.format(v="n") + f"RETURN collect({shown}) AS found"


@cache
def graph_distance_query() -> str:
    """Hops from the anchor (any of the caller's records, found through each label's unique id
    index) to each found record. shortestPath refuses a path from a node to itself (an anchor
    among the hits), so the anchor itself never reaches it."""
    anchors = " UNION ".join(
        f"MATCH (a:{cypher_label(label)} {{id: $anchor_id}}) RETURN a" for label in Label
    )
    return (
        f"CALL () {{ {anchors} }} WITH a WHERE a.client_id = $client_id "
        "UNWIND $ids AS id " + _CLIENT_RECORD.format(v="m") + "RETURN id, "
        "CASE WHEN a = m THEN 0 ELSE COLLECT { WITH a, m WHERE a <> m "
        "MATCH p = shortestPath((a)-[*..3]-(m)) "
        "WHERE all(x IN nodes(p) WHERE x.client_id = $client_id) RETURN length(p) }[0] "
        "END AS distance"
    )


# Letters and digits of any script: none of them is Lucene syntax.
_WORD = re.compile(r"[^\W_]+")
# A query's function words, which the English analyzer keeps (its stop set is Lucene's 33
# words): question words and pronouns match most records and only add noise to BM25. The
# Snowball English stop list, minus "not"/"no" (they carry meaning, though the index holds
# neither: INDEX_STOP_WORDS).
STOP_WORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which who
    whom this that these those am is are was were be been being have has had having do does
    did doing would should could ought a an the and but if or because as until while of at by
    for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all
    any both each few more most other some such nor only own same so than too very s t can
    will just don""".split()
)
# The English analyzer's own stop set (Lucene's EnglishAnalyzer): the index holds none of these,
# and a clause of one of them alone analyses to nothing, which Lucene then drops: a query for
# "not" inside the client would match every record of the client.
INDEX_STOP_WORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with""".split()
)
# Distinct words a keyword search looks for: each costs one full-text query of up to
# keyword.DF_LIMIT records. Questions of the LoCoMo benchmark have at most 10.
MAX_QUERY_WORDS = 16


def content_words(text: str) -> str:
    """The text's words without stop words (all of them when nothing else is left)."""
    words = _WORD.findall(text)
    kept = [word for word in words if word.lower() not in STOP_WORDS]
    return " ".join(kept or words)


def query_words(text: str) -> list[str]:
    """The words a keyword search looks for: the content words the index can hold, lower case,
    in order, repeats kept (a repeated word counts again, as in Lucene); the first
    MAX_QUERY_WORDS distinct ones only."""
    words = [w.lower() for w in _WORD.findall(content_words(text))]
    distinct = dict.fromkeys(word for word in words if word not in INDEX_STOP_WORDS)
    kept = set(list(distinct)[:MAX_QUERY_WORDS])
    return [word for word in words if word in kept]


def word_lucene(word: str, *, client_key: str, record_types: tuple[str, ...]) -> str:
    """One query word (from query_words: letters and digits only, never Lucene syntax) inside
    the client and the record types. Quoted: a word the analyser splits (CJK) stays one."""
    query = f'+search_client:{client_key} +search_text:"{word}"'
    if record_types:
        query += f" +record_type:({' '.join(record_types)})"
    return query

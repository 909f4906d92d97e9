"""BM25 from one client's own records: the keyword ranking a client sees must not depend on
what other clients wrote (issue 11, finding 10). The full-text index scores with statistics of
every client's records, so its scores and order told a client how often other clients used a
word; here the index only finds candidates and these pure functions score them.

Which records hold a query word is the index's answer (its English analyser stems, so
"dogs" finds "dog"); how often a record says it is counted here on the first TF_TEXT_CHARS
characters of the stored text (a bounded cost per record, however long), with a plural fold
only (a record the index says holds the word counts it at least once). Lengths are in
characters of the whole indexed text, for the record and the client's mean alike: the database
can average those over a client's records without the analyser.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Lucene's defaults, so that scores read as before.
K1 = 1.2
B = 0.75
# The characters of a record in which its query words are counted, so that a candidate costs
# at most what 1,000 characters cost (about 10-50 us), however long the record.
TF_TEXT_CHARS = 1_000


@dataclass(frozen=True)
class ClientStats:
    """The client's searchable records: how many, and their mean indexed length."""

    docs: int
    mean_length: float


@dataclass(frozen=True)
class WordStats:
    """How many of the client's records hold a query word (df), and which of the candidates do.
    holders is None when df reached the counting limit: then the candidates' text decides."""

    df: int
    holders: frozenset[str] | None


@dataclass(frozen=True)
class Candidate:
    record_id: str
    text: str
    length: int


def fold(word: str) -> str:
    """Lower case without one plural 's': counts "dogs" where the query says "dog"."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def idf(df: int, docs: int) -> float:
    """Lucene's BM25 idf; a client count read before its latest writes never goes below df."""
    docs = max(docs, df)
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class Spotter:
    """The lower-case forms a text may use for the query's words ("dogs" for "dog"), each with
    the fold it counts for."""

    forms: Mapping[str, str]


def spotter(words: Sequence[str]) -> Spotter:
    folds = {fold(word) for word in words}
    return Spotter({form: f for f in folds for form in (f, f + "s") if fold(form) == f})


def word_counts(text: str, spotted: Spotter) -> Counter[str]:
    """How often the text's first TF_TEXT_CHARS characters say each query word (by its fold).
    Substring searches in C: most forms are absent from most candidates, and the few places a
    form occurs are checked for word boundaries. One regex of all the query's words cost 7 ms
    per 32 KB text with 64 words (issue 11)."""
    head = text[:TF_TEXT_CHARS].lower()
    counts: Counter[str] = Counter()
    for form, folded in spotted.forms.items():
        if said := _whole_words(head, form):
            counts[folded] += said
    return counts


def _whole_words(text: str, form: str) -> int:
    """Occurrences of `form` with no letter or digit on either side, as a split of the text
    into runs of letters and digits would find them."""
    found, at = 0, text.find(form)
    while at >= 0:
        end = at + len(form)
        if not (at and text[at - 1].isalnum()) and not (end < len(text) and text[end].isalnum()):
            found += 1
        at = text.find(form, end)
    return found


def term_frequency(counts: Mapping[str, int], record_id: str, word: str, stats: WordStats) -> int:
    said = counts.get(fold(word), 0)
    if stats.holders is None:
        return said
    return max(said, 1) if record_id in stats.holders else 0


def score(
    candidate: Candidate,
    words: Sequence[str],
    stats: Mapping[str, WordStats],
    client: ClientStats,
    spotted: Spotter | None = None,
) -> float:
    """Sum over the query's words (a repeated word counts again, as in Lucene)."""
    counts = word_counts(candidate.text, spotted or spotter(words))
    mean = client.mean_length if client.mean_length > 0 else max(candidate.length, 1)
    norm = K1 * (1 - B + B * candidate.length / mean)
    total = 0.0
    for word, times in Counter(words).items():
        word_stats = stats.get(word)
        if word_stats is None or word_stats.df == 0:
            continue
        tf = term_frequency(counts, candidate.record_id, word, word_stats)
        if tf:
            total += times * idf(word_stats.df, client.docs) * tf / (tf + norm)
    return total


def rank(
    candidates: Sequence[Candidate],
    words: Sequence[str],
    stats: Mapping[str, WordStats],
    client: ClientStats,
) -> list[tuple[str, float]]:
    """(record id, score) best first. Ties go by record id: the index's own order of equals
    depends on its segments, which other clients' writes reshape."""
    spotted = spotter(words)
    scored = [(c.record_id, score(c, words, stats, client, spotted)) for c in candidates]
    return sorted(scored, key=lambda item: (-item[1], item[0]))

"""The search-scale benchmark's synthetic data and recall on small hand-made cases."""

from __future__ import annotations

from collections import Counter

import numpy as np

from bench import _search_data as data
from bench._search_measure import recall


def test_recall_is_the_share_of_the_exact_top_10_found_in_the_first_10() -> None:
    exact = [f"r{i}" for i in range(10)]
    assert recall(exact[::-1], exact) == 1.0
    assert recall(exact[:9] + ["x"], exact) == 0.9
    assert recall(["x"] * 10 + exact, exact) == 0.0
    # A client with fewer records than k: the reference is shorter, and all of it counts.
    assert recall(["a", "b"], ["b", "a"]) == 1.0
    assert recall(["a"], ["a", "b"]) == 0.5


def test_records_spread_over_the_big_client_and_998_regular_ones() -> None:
    counts = Counter(data.client_of(i) for i in range(100_000))
    assert counts[data.BIG] == 10_000
    regular = [n for client, n in counts.items() if client != data.BIG]
    assert len(regular) == data.REGULAR
    assert max(regular) - min(regular) <= 1
    # With the small client: 1,000 clients, all under the bench prefix.
    assert len(counts) + 1 == 1_000
    assert all(client.startswith(data.PREFIX) for client in counts)


def test_vectors_are_unit_length_clustered_and_reproducible() -> None:
    source = data.VectorSource()
    first, again = source.records(0, 200), data.VectorSource().records(0, 200)
    assert [r["embedding"] for r in first] == [r["embedding"] for r in again]
    vectors = np.array([r["embedding"] for r in first])
    assert vectors.shape == (200, data.DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    points, clusters = source.sample(np.random.default_rng(1), 2_000)
    similarity = points @ points.T
    same = clusters[:, None] == clusters[None, :]
    np.fill_diagonal(same, False)
    other = clusters[:, None] != clusters[None, :]
    # Same topic: clearly similar; other topics: about orthogonal (as MiniLM's ranges).
    assert similarity[same].mean() > 0.3
    assert abs(similarity[other].mean()) < 0.05


def test_small_client_has_twenty_records_apart_from_the_numbered_ones() -> None:
    rows = data.VectorSource().small_records()
    assert len(rows) == data.SMALL_SIZE
    assert {row["client_id"] for row in rows} == {data.SMALL}
    assert all(row["key"].startswith("r-") for row in rows)

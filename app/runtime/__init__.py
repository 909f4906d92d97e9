"""Wiring in one place: settings -> the Neo4j driver (GraphExecutor), object storage
(ArtifactStore), the embedder and embedding worker (services.py), and the API process's
background work on stored data (background.py). The Starlette lifespan, the CLI's commands, the
embedding worker, `reembed`, `sweep` and the demo generator open and close through here."""

from app.runtime.background import MemoryBackground, run_sweep, start_memory_background
from app.runtime.services import (
    Services,
    close_services,
    connected,
    open_driver,
    open_services,
    stored_text_loader,
)

__all__ = [
    "MemoryBackground",
    "Services",
    "close_services",
    "connected",
    "open_driver",
    "open_services",
    "run_sweep",
    "start_memory_background",
    "stored_text_loader",
]

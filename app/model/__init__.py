"""The graph model: seed 000's records (nodes.py) and the general agent memory (memory.py)."""

from app.model.memory import MEMORY_MODEL
from app.model.nodes import SEED_MODEL, Record

MODEL: tuple[type[Record], ...] = SEED_MODEL + MEMORY_MODEL

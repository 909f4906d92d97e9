"""The graph model: seed 000's records (nodes.py), the constraint documents (constraints.py) and
the general agent memory (memory.py), each class with its label's facts (facts.py); the per-label
lists derived from them (labels.py) and the search index's own properties (search_index.py)."""

from app.model.constraints import CONSTRAINTS_MODEL
from app.model.memory import MEMORY_MODEL
from app.model.nodes import SEED_MODEL, Record

MODEL: tuple[type[Record], ...] = SEED_MODEL + CONSTRAINTS_MODEL + MEMORY_MODEL

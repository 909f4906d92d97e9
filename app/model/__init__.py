"""The graph model: seed 000's records (nodes.py), the constraint documents (constraints.py) and
the general agent memory (memory.py), each class with its label's facts (facts.py); the per-label
lists derived from them (labels.py) and the search index's own properties (search_index.py)."""

from app.model.agent_config import AGENT_CONFIG_MODEL
from app.model.constraints import CONSTRAINTS_MODEL
from app.model.memory import MEMORY_MODEL
from app.model.nodes import SEED_MODEL, Record
from app.model.personas import PERSONAS_MODEL
from app.model.session_state import SESSION_STATE_MODEL
from app.model.workspace_memory import WORKSPACE_MEMORY_MODEL
from app.model.workspaces import WORKSPACES_MODEL

MODEL: tuple[type[Record], ...] = (
    SEED_MODEL
    + CONSTRAINTS_MODEL
    + MEMORY_MODEL
    + PERSONAS_MODEL
    + AGENT_CONFIG_MODEL
    + WORKSPACES_MODEL
    + WORKSPACE_MEMORY_MODEL
    + SESSION_STATE_MODEL
)

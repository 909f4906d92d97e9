"""Memory records (seeds 001-004): remember, recall, forget, history, lists, search, semantic
documents and procedures, attachments, the expiry sweeper, and the memory access log (who
read or wrote which record: access_log*.py)."""

from app.domain.memory.access_log import Audit, audited
from app.domain.memory.access_log_reads import list_access_log
from app.domain.memory.access_log_writer import AccessLogWriter
from app.domain.memory.artifacts import attach_artifact
from app.domain.memory.content import (
    ContentPolicy,
    StoredContent,
    content_bytes,
    decode_inline,
    hydrate_all,
    purge_record,
    remove_unreferenced,
)
from app.domain.memory.documents import (
    procedure_namespace,
    procedure_prefix,
    put_procedure,
    put_semantic_document,
    semantic_namespace,
)
from app.domain.memory.eviction import Capacity, Eviction, evict_over_capacity
from app.domain.memory.fields import MemoryPolicy, PreparedMemory, check_memory, prepare_memory
from app.domain.memory.lists import list_records
from app.domain.memory.locate import LIVE, RECORD_MAP
from app.domain.memory.records import forget, history, recall, remember
from app.domain.memory.rules import DEFAULT_PRIORITY, check_segment, join_namespace
from app.domain.memory.search import search_memories
from app.domain.memory.sweeper import MemorySweeper
from app.domain.memory.write import write_memory

__all__ = [
    "AccessLogWriter",
    "Audit",
    "ContentPolicy",
    "Capacity",
    "DEFAULT_PRIORITY",
    "Eviction",
    "LIVE",
    "MemoryPolicy",
    "MemorySweeper",
    "PreparedMemory",
    "RECORD_MAP",
    "StoredContent",
    "attach_artifact",
    "audited",
    "check_memory",
    "check_segment",
    "content_bytes",
    "decode_inline",
    "evict_over_capacity",
    "forget",
    "history",
    "hydrate_all",
    "join_namespace",
    "list_access_log",
    "list_records",
    "prepare_memory",
    "procedure_namespace",
    "procedure_prefix",
    "purge_record",
    "put_procedure",
    "put_semantic_document",
    "recall",
    "remember",
    "remove_unreferenced",
    "search_memories",
    "semantic_namespace",
    "write_memory",
]

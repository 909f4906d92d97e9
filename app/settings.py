"""One settings object, read once at start-up from AGENTMEM_* variables and an optional .env."""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from limits import RateLimitItem, parse_many
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.model.enums import SCHEDULED_PERIODS, Role, SnapshotPeriod

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
ORIGIN = re.compile(r"https?://[^/\s?#]+")  # what a browser sends in Origin
NEO4J_SCHEMES = frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"})
# About 330 requests a second: far above an agent's pace or the test suite's (a few hundred
# requests per key), and 5x `bench load`, whose clients all share one key.
DEFAULT_KEY_RATE_LIMIT = "20000/minute"
# The longest time to live a record, session or thread may be given (ten years).
MAX_TTL_S = 10 * 366 * 86_400


def rate_limit_items(text: str) -> list[RateLimitItem]:
    """Limits in the `limits` library's notation ("6000/minute", "10/second;5000/hour"); none
    for an empty string (no limit). ValueError for any other text."""
    items = parse_many(text) if text.strip() else []
    if any(item.amount < 1 for item in items):
        raise ValueError(f"a limit of 0 requests refuses everything: {text!r}")
    return items


class Settings(BaseSettings):
    """Every tunable of the service; see README "Configuration" for the variable names."""

    model_config = SettingsConfigDict(
        env_prefix="AGENTMEM_", env_file=".env", extra="ignore", frozen=True
    )

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("agentmem-local")
    neo4j_database: str = "neo4j"
    neo4j_http_port: int = Field(default=7474, ge=1, le=65535)
    # None: start a local Neo4j exactly when neo4j_uri points at this machine.
    local_neo4j: bool | None = None
    neo4j_version: str = "2026.08.1"
    neo4j_heap: str = "768m"
    neo4j_pagecache: str = "512m"
    # Where the local server lives (default: cache_dir/neo4j-<version>). `test` gives the suite
    # its own home and ports, so a large development store never slows or breaks the tests.
    neo4j_home_dir: Path | None = None
    # A server killed mid-write replays its log and then waits for Lucene index merges before it
    # opens; on a store with hundreds of thousands of vectors that takes minutes.
    neo4j_start_timeout_s: float = Field(default=900, gt=0)
    neo4j_stop_timeout_s: float = Field(default=600, gt=0)
    java25_home: str = "/usr/lib/jvm/temurin-25-jdk-amd64"

    s3_endpoint: str = "127.0.0.1:9000"
    s3_access_key: str = "agentmem"
    s3_secret_key: SecretStr = SecretStr("agentmem-local-secret")
    s3_bucket: str = "agentmem"
    s3_region: str = "us-east-1"
    s3_secure: bool = False
    local_s3: bool | None = None
    s3proxy_version: str = "4.1.0"
    # Where the local s3proxy lives, its buckets included (default: its jar, configuration and
    # logs in cache_dir/s3proxy-<version>, buckets in cache_dir/s3data). `bench faults` runs its
    # own server, which it kills and restarts, beside the shared one.
    s3_home_dir: Path | None = None
    # How long a request waits for Neo4j and object storage, all its calls together (each
    # connect, pooled connection, transaction with its retries, S3 connect and read is also
    # bounded by it), before it is answered UNAVAILABLE (HTTP 503); also the Retry-After hint.
    dependency_timeout_s: float = Field(default=5.0, gt=0, le=300)

    # The model of a new deployment and the default of `reembed` (seeds 001, 004): a local
    # folder or an installed package (app/retrieval/model_source.py). Its dimension, when set,
    # is checked as the model loads; search uses each scope's active index
    # (app/retrieval/memory_index.py), looked up again after `embedding_index_refresh_s`.
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dimensions: int | None = Field(default=None, ge=1, le=4096)
    embedding_index_refresh_s: float = Field(default=2.0, gt=0, le=600)
    # The embedding worker: records per indexing batch, idle poll interval, and whether the API
    # process runs it (false when `python -m app embed-worker` runs as its own process).
    embedding_batch_size: int = Field(default=128, ge=1, le=2_000)
    embedding_poll_s: float = Field(default=0.5, gt=0, le=60)
    embedding_worker_in_process: bool = True
    # Many workers share the graph (issue 13): a worker claims the records it embeds for this
    # long; the claims of a worker that died expire and another takes them.
    embedding_claim_s: float = Field(default=60.0, gt=0, le=3_600)
    # What runs the embedding model: "onnx" (onnxruntime, about a third of torch's CPU per
    # query, the same vectors) for a model of Transformer + mean Pooling + Normalize with a
    # tokenizer.json, as the default model is, exported once per model's files at start-up into
    # cache_dir/onnx (app/retrieval/onnx_encoder.py); any other model, or a failed export, runs
    # on "torch" (sentence-transformers), with the reason logged. "torch": every model there.
    embedding_backend: Literal["onnx", "torch"] = "onnx"
    # Threads of one embedding model call: onnxruntime's intra-op threads per model, or torch's
    # (process-wide).
    embedding_threads: int = Field(default=1, ge=1, le=64)
    # Threads that run the model, off the event loop (app/retrieval/encode_pool.py), shared by
    # query batches (served first) and the worker's records, which go `embedding_record_chunk`
    # to a model call so that a search waits for one chunk at most.
    embedding_pool_size: int = Field(default=1, ge=1, le=64)
    # The pool's threads that embed records run at this nice value (Linux): under a full CPU,
    # requests and a local Neo4j go before them (`bench load`: throughput 144 -> 172 requests/s
    # at 32 clients, when query texts ran there too).
    embedding_nice: int = Field(default=10, ge=0, le=19)
    # Those that embed query texts, on the path of the searches waiting for them, at this one:
    # LoCoMo hybrid search p50 15.8 against 16.6-17.1 ms at 10 (`bench locomo`, interleaved
    # runs); `bench load` at 32 clients 190-206 against 195-199 requests/s (issue 19).
    embedding_query_nice: int = Field(default=0, ge=0, le=19)
    embedding_record_chunk: int = Field(default=8, ge=1, le=2_000)
    # Query texts of concurrent requests share one model call (app/retrieval/query_batcher.py):
    # the first waits this long for others, a call takes at most `_max_batch` texts; an LRU
    # cache of this many recent query vectors (0: none). No wait by default: texts that come
    # while the model is busy join the next call anyway, and a lone search waited 5 ms for none.
    embedding_query_wait_ms: float = Field(default=0.0, ge=0, le=1_000)
    embedding_query_max_batch: int = Field(default=32, ge=1, le=1_024)
    embedding_query_cache_size: int = Field(default=1024, ge=0, le=1_000_000)
    # Searches per process whose graph phase runs at once; the rest wait their turn
    # (app/retrieval/search_slots.py). 0: no bound.
    search_concurrency: int = Field(default=4, ge=0, le=1_000)

    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8000, ge=1, le=65535)
    max_body_bytes: int = Field(default=1_000_000, ge=1024)
    # Browser origins that may call the API (CORS; none by default). Comma-separated.
    cors_allowed_origins: Annotated[tuple[str, ...], NoDecode] = ()
    max_query_depth: int = Field(default=12, ge=2)
    max_aliases: int = Field(default=30, ge=1)
    max_tokens: int = Field(default=2_000, ge=50)
    # Fields an operation selects once every fragment spread is expanded (a fragment spread
    # twice counts twice), and how deep a JSON scalar input may nest.
    max_fields: int = Field(default=5_000, ge=10)
    max_json_depth: int = Field(default=32, ge=1, le=64)
    # Introspection without an API key: requests per minute per remote address (429 beyond).
    keyless_introspection_per_minute: int = Field(default=30, ge=1)
    # Requests per API key, by the key's role, in `limits` notation (a role left out keeps the
    # default, "" switches its limit off), counted in fixed windows; and where the counts live:
    # memory:// is per process, several API processes need a storage `limits` shares (redis://).
    key_rate_limits: dict[Role, str] = Field(
        default_factory=lambda: dict.fromkeys(Role, DEFAULT_KEY_RATE_LIMIT)
    )
    rate_limit_storage_uri: str = "memory://"
    # Slow clients: a connection whose request headers, or a request whose body, have not all
    # arrived within these many seconds is answered 408 and closed.
    header_timeout_s: float = Field(default=10.0, gt=0, le=600)
    body_timeout_s: float = Field(default=30.0, gt=0, le=3_600)
    # A request's URL, and its request line and headers together, may hold this many bytes
    # (414 and 431 beyond).
    max_header_bytes: int = Field(default=65_536, ge=8_192, le=1_048_576)
    # Performance metric ingest: metrics per UNWIND transaction, and per request.
    metric_batch_size: int = Field(default=1_000, ge=1, le=10_000)
    metric_ingest_max: int = Field(default=10_000, ge=1)
    # Agent episodes: tool-call lines appended while an episode runs (pending S3 chunks) are
    # capped in bytes and in appends, which bounds the memory a close needs.
    episode_log_max_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    episode_log_max_chunks: int = Field(default=1_000, ge=1, le=10_000)
    log_level: str = "INFO"
    # OpenTelemetry traces (app/runtime/telemetry.py): a span per request and per Cypher call,
    # sent over OTLP/HTTP where the SDK's OTEL_EXPORTER_OTLP_* variables say.
    otel_enabled: bool = False
    # Conversation memory (seed 000, 5): event text longer than this goes to object storage;
    # a thread needs a summary every N events, or when hot (K events within W seconds).
    event_inline_text_max: int = Field(default=1_000, ge=1, le=100_000)
    summary_every_n_events: int = Field(default=6, ge=1)
    hot_thread_events: int = Field(default=5, ge=2)
    hot_thread_window_s: float = Field(default=300.0, gt=0)
    # Expiry (seed 002, app/domain/expiry): default TTLs in seconds (0: never) of sessions and
    # threads (slid forward by each entry or event) and of session entries, and the events a
    # new thread keeps (0: all); each overridable per call, purged by the memory sweeper.
    session_ttl_s: int = Field(default=0, ge=0, le=MAX_TTL_S)
    session_entry_ttl_s: int = Field(default=0, ge=0, le=MAX_TTL_S)
    conversation_ttl_s: int = Field(default=0, ge=0, le=MAX_TTL_S)
    conversation_max_events: int = Field(default=0, ge=0, le=1_000_000)
    # Lessons (seed 000, 8.4): retired when their effective (decayed) confidence falls below the
    # threshold; each new evidence record raises confidence by `boost` of its distance to 1.
    lesson_retire_threshold: float = Field(default=0.2, ge=0, le=1)
    lesson_evidence_boost: float = Field(default=0.1, ge=0, lt=1)
    # Memory records (issue 6): content JSON above this many bytes goes to object storage; the
    # sweeper purges expired records every interval in batches; the access log is written in
    # batches every flush interval (or when a batch is full), and can be switched off.
    memory_inline_content_max: int = Field(default=8_000, ge=0, le=1_000_000)
    memory_max_content_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    # Bytes one GraphQL request may read from object storage, all reads together (record
    # content, event and prompt text...); beyond it reads are refused with VALIDATION.
    request_read_max_bytes: int = Field(default=32 * 1024 * 1024, ge=1024 * 1024)
    memory_sweep_interval_s: float = Field(default=60.0, gt=0)
    memory_sweep_batch: int = Field(default=500, ge=1, le=10_000)
    # Priority eviction (seed 004): each client keeps at most this many live memory records
    # (None: no limit), and at most the given number under each canonical namespace prefix
    # (a JSON object, e.g. {"subject:alice": 1000}); beyond it the sweeper (and `import`)
    # purges the lowest priority, then oldest, first.
    memory_capacity: int | None = Field(default=None, ge=1)
    memory_namespace_capacity: dict[str, Annotated[int, Field(ge=1)]] = {}
    # Session transcripts (seed 003) older than this are purged by the sweeper, node and object.
    transcript_retention_days: float = Field(default=365.0, gt=0, le=36_500)
    # The sweeper and the idempotency key purge run once per interval across all API processes
    # (issue 13): the process that takes a job's turn holds its lease this long, renewed while
    # the job runs; the lease of a process that died expires and another takes the next turn.
    job_lease_s: float = Field(default=30.0, gt=0, le=3_600)
    # Client snapshots on a schedule (issue 14): how often the job looks for each client's last
    # completed window of these periods (comma-separated; empty: no job) and writes it if missing.
    client_snapshot_interval_s: float = Field(default=3_600.0, gt=0)
    client_snapshot_periods: Annotated[tuple[SnapshotPeriod, ...], NoDecode] = SCHEDULED_PERIODS
    access_log_enabled: bool = True
    access_log_flush_ms: int = Field(default=200, ge=1, le=60_000)
    access_log_batch: int = Field(default=500, ge=1, le=10_000)
    # Access log entries older than this are deleted by the memory sweeper (0: kept for ever).
    access_log_retention_days: float = Field(default=365.0, ge=0, le=36_500)
    # The change feed (issue 17): entries older than this are deleted by the memory sweeper (0:
    # kept for ever); a cursor older than what was deleted is answered CURSOR_EXPIRED.
    change_retention_days: float = Field(default=30.0, ge=0, le=36_500)
    # Off, writes record no change (no feed, no subscriptions' events): only for measuring what
    # the feed costs on the write path (bench/change_feed.py).
    change_feed: bool = True
    # How often a process reads the feed positions its subscribers wait on (writes of other
    # processes reach a subscriber within about this; this process's own at once).
    change_poll_s: float = Field(default=0.1, gt=0, le=60)
    # Idempotent creates (issue 11): how long a retry with the same idempotencyKey gets the
    # first result; expired keys are purged by the memory sweeper's schedule.
    idempotency_retention_s: float = Field(default=86_400.0, gt=0, le=30 * 86_400)
    # GraphQL fast path (app/api/read/fast_path): completes node-type results straight from the
    # compiled query's rows instead of field by field in graphql-core; same responses. Off:
    # every field goes through graphql-core (for comparison or if a difference is suspected).
    graphql_fast_path: bool = True

    cache_dir: Path = Path.home() / ".cache" / "agentmem"

    @field_validator("neo4j_uri")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        scheme = urlsplit(value).scheme
        if scheme not in NEO4J_SCHEMES:
            raise ValueError(f"neo4j_uri scheme must be one of {sorted(NEO4J_SCHEMES)}")
        return value

    @field_validator("s3_endpoint")
    @classmethod
    def _host_and_port(cls, value: str) -> str:
        if "://" in value or "/" in value:
            raise ValueError(
                "s3_endpoint is host[:port] without scheme or path, e.g. 127.0.0.1:9000"
            )
        return value

    @field_validator("embedding_backend", mode="before")
    @classmethod
    def _backend_name(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("key_rate_limits", mode="before")
    @classmethod
    def _roles_left_out_keep_the_default(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {**dict.fromkeys(Role, DEFAULT_KEY_RATE_LIMIT), **value}

    @field_validator("key_rate_limits")
    @classmethod
    def _in_limits_notation(cls, value: dict[Role, str]) -> dict[Role, str]:
        for role, text in value.items():
            try:
                rate_limit_items(text)
            except ValueError as error:
                raise ValueError(
                    f"the {role.value} limit {text!r} is not a usable rate limit ({error}); "
                    "write e.g. '6000/minute' or '10/second;5000/hour', or '' for none"
                ) from None
        return value

    @field_validator("client_snapshot_periods", "cors_allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip().lower() for part in value.split(",") if part.strip())
        return value

    @field_validator("cors_allowed_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            if origin != "*" and not ORIGIN.fullmatch(origin):
                raise ValueError(
                    f"{origin!r} is no origin: write scheme://host[:port] (no path), e.g. "
                    "'https://app.example.com,http://localhost:5173', or '*'"
                )
        return value

    @field_validator("client_snapshot_periods")
    @classmethod
    def _calendar_periods(cls, value: tuple[SnapshotPeriod, ...]) -> tuple[SnapshotPeriod, ...]:
        if not set(value) <= set(SCHEDULED_PERIODS):
            names = ", ".join(SCHEDULED_PERIODS)
            raise ValueError(f"periods with a schedule are {names} (custom windows are asked for)")
        return tuple(dict.fromkeys(value))

    @model_validator(mode="after")
    def _one_read_fits_the_request_budget(self) -> Settings:
        """A request must be able to read the largest object the service itself stores."""
        largest = max(self.memory_max_content_bytes, self.episode_log_max_bytes)
        if self.request_read_max_bytes < largest:
            raise ValueError(
                f"request_read_max_bytes ({self.request_read_max_bytes}) must be at least "
                f"memory_max_content_bytes and episode_log_max_bytes ({largest})"
            )
        return self

    @cached_property
    def neo4j_bolt_port(self) -> int:
        return urlsplit(self.neo4j_uri).port or 7687

    @cached_property
    def s3_port(self) -> int:
        _, _, port = self.s3_endpoint.rpartition(":")
        return int(port) if port.isdigit() else (443 if self.s3_secure else 80)

    @cached_property
    def manages_local_neo4j(self) -> bool:
        if self.local_neo4j is not None:
            return self.local_neo4j
        return urlsplit(self.neo4j_uri).hostname in LOOPBACK_HOSTS

    @cached_property
    def manages_local_s3(self) -> bool:
        if self.local_s3 is not None:
            return self.local_s3
        return self.s3_endpoint.rpartition(":")[0] in LOOPBACK_HOSTS

    @cached_property
    def neo4j_home(self) -> Path:
        return self.neo4j_home_dir or self.cache_dir / f"neo4j-{self.neo4j_version}"

    @cached_property
    def s3_home(self) -> Path:
        return self.s3_home_dir or self.cache_dir / f"s3proxy-{self.s3proxy_version}"

    @cached_property
    def s3_data_dir(self) -> Path:
        return self.s3_home_dir / "data" if self.s3_home_dir else self.cache_dir / "s3data"


def load_settings() -> Settings:
    return Settings()

"""Starts and stops whichever of the local Neo4j and S3 servers the settings say we manage."""

from __future__ import annotations

import sys

from app.devenv.neo4j import provision_neo4j, start_neo4j, stop_neo4j
from app.devenv.s3 import provision_s3, start_s3, stop_s3
from app.settings import Settings


def say(message: str) -> None:
    print(f"[agentmem] {message}", file=sys.stderr, flush=True)


# The test suite's own local Neo4j: ports beside the development server's, home beside its home.
SUITE_NEO4J_BOLT_PORT = 7688
SUITE_NEO4J_HTTP_PORT = 7475


def suite_environment(settings: Settings) -> dict[str, str]:
    """AGENTMEM_* variables that point the test suite at its own local Neo4j.

    Empty when the caller chose a Neo4j (AGENTMEM_NEO4J_URI or .env) or manages none here:
    then the suite runs against that one.
    """
    if "neo4j_uri" in settings.model_fields_set or not settings.manages_local_neo4j:
        return {}
    home = settings.cache_dir / f"neo4j-{settings.neo4j_version}-test"
    return {
        "AGENTMEM_NEO4J_URI": f"bolt://127.0.0.1:{SUITE_NEO4J_BOLT_PORT}",
        "AGENTMEM_NEO4J_HTTP_PORT": str(SUITE_NEO4J_HTTP_PORT),
        "AGENTMEM_NEO4J_HOME_DIR": str(home),
    }


def start_local_services(settings: Settings) -> list[str]:
    """Provision (first run only) and start the managed servers.

    Returns the servers this call started, so the caller stops only those and leaves alone
    servers that were already running (another `up`, or `services start`).
    """
    started = []
    if settings.manages_local_neo4j:
        provision_neo4j(settings)
        if start_neo4j(settings):
            started.append("neo4j")
    else:
        say(f"using the Neo4j at {settings.neo4j_uri} (not managed here)")
    if settings.manages_local_s3:
        provision_s3(settings)
        if start_s3(settings):
            started.append("s3")
    else:
        say(f"using the S3 endpoint {settings.s3_endpoint} (not managed here)")
    return started


def stop_local_services(settings: Settings, only: list[str] | None = None) -> None:
    """Stop the managed servers (or just those named in `only`)."""
    if settings.manages_local_neo4j and (only is None or "neo4j" in only):
        if stop_neo4j(settings):
            say("stopped local Neo4j")
    if settings.manages_local_s3 and (only is None or "s3" in only):
        if stop_s3(settings):
            say("stopped local S3 server")

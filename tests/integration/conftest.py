"""Integration fixtures: the real local Neo4j and S3 servers, and the API served over HTTP."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from neo4j import GraphDatabase

from app.cli.admin import create_key
from app.graph import change_feed
from app.model.enums import Role
from app.settings import Settings, load_settings
from app.web.app import create_app
from app.web.serve import server_config

# A caller's write that changes the graph without noting it for the change feed fails the test.
change_feed.STRICT = True


@pytest.fixture(scope="session")
def settings() -> Settings:
    settings = load_settings()
    try:
        with GraphDatabase.driver(
            settings.neo4j_uri,
            auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
        ) as driver:
            driver.verify_connectivity()
    except Exception as error:
        pytest.fail(
            f"Neo4j at {settings.neo4j_uri} is not answering ({error}); run the suite with "
            "`bash app/services/env.sh test`, which starts the local servers first"
        )
    return settings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def api_url(settings: Settings) -> Iterator[str]:
    yield from serve_in_thread(settings)


def serve_in_thread(settings: Settings, **app_options: Any) -> Iterator[str]:
    """The real app served by uvicorn, as `serve` configures it, on a free loopback port in a
    background thread; yields its base URL and stops it after. `app_options` go to create_app."""
    port = _free_port()
    app = create_app(settings, **app_options)
    config = server_config(app, settings, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the API did not start; see the log above")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@dataclass
class Caller:
    """A GraphQL client holding one API key."""

    http: httpx.Client
    key: str
    client_id: str

    def gql(self, query: str, variables: dict[str, Any] | None = None, **headers: str) -> Any:
        response = self.http.post(
            "/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {self.key}", **headers},
        )
        assert response.status_code == 200, response.text
        return response.json()

    def data(self, query: str, variables: dict[str, Any] | None = None) -> Any:
        body = self.gql(query, variables)
        assert not body.get("errors"), body["errors"]
        return body["data"]


def new_caller(
    settings: Settings, api_url: str, *, role: Role = Role.AGENT, agent_name: str = "tester"
) -> Caller:
    """A caller with a new client; an agent key acts only as `agent_name` (README, auth)."""
    client = f"test-{uuid.uuid4().hex[:12]}"
    issued = asyncio.run(create_key(settings, client=client, role=role, agent_name=agent_name))
    return Caller(
        http=httpx.Client(base_url=api_url, timeout=30),
        key=issued.secret,
        client_id=issued.principal.client_id,
    )


CALLERS_MARK = (
    "callers(role=Role.AGENT, agent_name='tester'): the keys that a module's or test's alice "
    "and bob fixtures hold (each its own new client), e.g. reviewer keys for tests that act "
    "for several agents"
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", CALLERS_MARK)


def marked_caller(request: pytest.FixtureRequest, settings: Settings, api_url: str) -> Caller:
    """A new caller as the closest `callers` mark says (new_caller's defaults without one)."""
    mark = request.node.get_closest_marker("callers")
    return new_caller(settings, api_url, **(mark.kwargs if mark else {}))


@pytest.fixture
def alice(request: pytest.FixtureRequest, settings: Settings, api_url: str) -> Caller:
    return marked_caller(request, settings, api_url)


@pytest.fixture
def bob(request: pytest.FixtureRequest, settings: Settings, api_url: str) -> Caller:
    return marked_caller(request, settings, api_url)


@pytest.fixture
def neo4j_session(settings: Settings) -> Iterator[Any]:
    with GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
    ) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            yield session

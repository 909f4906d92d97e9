"""Agent keys act only as their own agent (issue 11, finding 8), over real HTTP, Neo4j and S3:
every write that names another agent, and every change to what another agent owns (its memory,
episodes, cycles, sessions), is FORBIDDEN for an agent key and writes nothing; a reviewer key of
the same client may do each; an omitted agent name is the key's own; reads are not bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.model.enums import Role
from app.settings import Settings
from tests.integration.agent_memory_helpers import counted
from tests.integration.asset_helpers import create_asset, error_code
from tests.integration.client_helpers import client_state, colleague
from tests.integration.conftest import Caller

Attempt = tuple[str, dict[str, Any]]
MEMORY = "id namespace key sourceAgent version"
REMEMBER = f"mutation($i: RememberInput!) {{ remember(input: $i) {{ {MEMORY} }} }}"


def one(caller: Caller, document: str, variables: dict[str, Any] | None = None) -> Any:
    return next(iter(caller.data(document, variables).values()))


def brads_world(brad: Caller, tester: Caller) -> dict[str, str]:
    """What agent brad owns: memory (in his namespace, and shared but his), an episode, a cycle,
    a session with an entry, a procedure, a relationship."""
    mine = {"kind": "SEMANTIC", "namespace": {"agent": "brad"}}
    episode = 'mutation { startEpisode(input: {taskClass: "t", trigger: PLANNER_TICK}) { id } }'
    session = 'mutation { startSession(input: {agent: "brad"}) { session { id } } }'
    entry = 'mutation($s: ID!) { putSessionEntry(input: {sessionId: $s, text: "hi"}) { id } }'
    procedure = """mutation { putProcedure(input: {agent: "brad", name: "greet",
      procedureType: TEMPLATE, text: "Hello"}) { id } }"""
    tester.data('mutation { upsertSubject(input: {externalRef: "ada"}) { id } }')
    brad.data('mutation { setRelationship(input: {subject: "ada", type: "friend"}) { type } }')
    document = 'putSemanticDocument(objectId: "voice", document: {a: 1}, agent: "brad") { id }'
    brad.data(f"mutation {{ {document} }}")
    world = {
        "record": one(brad, REMEMBER, {"i": mine | {"key": "diet", "text": "vegetarian"}})["id"],
        "keyed": one(brad, REMEMBER, {"i": mine | {"key": "sport", "text": "tennis"}})["id"],
        "shared": one(brad, REMEMBER, {"i": {"kind": "SEMANTIC", "key": "tone", "text": "warm"}})[
            "id"
        ],
        "episode": one(brad, episode)["id"],
        "cycle": one(brad, 'mutation { recordCycle(input: {thoughts: "go"}) { id } }')["id"],
        "session": one(brad, session)["session"]["id"],
        "asset": create_asset(tester)["id"],
    }
    world["entry"] = one(brad, entry, {"s": world["session"]})["id"]
    brad.data(procedure)
    return world


ATTEMPTS: list[Callable[[dict[str, str]], Attempt]] = [
    lambda w: ('mutation { saveAgentState(agentName: "brad", state: {a: 1}) { name } }', {}),
    lambda w: (
        'mutation { learnFromFeedback(input: {agentName: "brad", taskType: "x", success: true}) '
        "{ event { id } } }",
        {},
    ),
    lambda w: (
        'mutation { startEpisode(input: {agentName: "brad", taskClass: "t", '
        "trigger: PLANNER_TICK}) { id } }",
        {},
    ),
    lambda w: ('mutation { recordCycle(input: {agentName: "brad", thoughts: "x"}) { id } }', {}),
    lambda w: ('mutation { ensureAgent(input: {name: "brad", description: "mine"}) { id } }', {}),
    lambda w: (
        'mutation { setRelationship(input: {subject: "ada", agentName: "brad", type: "foe"}) '
        "{ type } }",
        {},
    ),
    lambda w: (
        'mutation { touchRelationship(input: {subject: "ada", agentName: "brad"}) { sessions } }',
        {},
    ),
    lambda w: ('mutation { startSession(input: {agent: "brad"}) { created } }', {}),
    lambda w: (
        'mutation { putProcedure(input: {agent: "brad", name: "greet", procedureType: TEMPLATE, '
        'text: "Yo"}) { id } }',
        {},
    ),
    lambda w: (
        'mutation { putSemanticDocument(objectId: "voice", document: {a: 2}, agent: "brad") '
        "{ id } }",
        {},
    ),
    lambda w: (REMEMBER, {"i": {"kind": "SEMANTIC", "text": "x", "sourceAgent": "brad"}}),
    lambda w: (REMEMBER, {"i": {"kind": "SEMANTIC", "text": "x", "namespace": {"agent": "brad"}}}),
    lambda w: (REMEMBER, {"i": {"kind": "SEMANTIC", "key": "tone", "text": "cold"}}),
    lambda w: (
        'mutation($id: ID!) { attachMemoryArtifact(recordId: $id, kind: "notes", '
        'contentBase64: "aGk=") { id } }',
        {"id": w["record"]},
    ),
    lambda w: (
        "mutation($id: ID!) { completeCycle(id: $id, input: {status: SUCCEEDED}) { id } }",
        {"id": w["cycle"]},
    ),
    lambda w: (
        'mutation($id: ID!) { appendToolCalls(id: $id, entries: [{tool: "x"}]) { id } }',
        {"id": w["episode"]},
    ),
    lambda w: (
        "mutation($id: ID!, $a: ID!) { linkEpisodeRecords(id: $id, "
        'reads: [{id: $a, role: "brief"}]) { id } }',
        {"id": w["episode"], "a": w["asset"]},
    ),
    lambda w: (
        "mutation($id: ID!) { closeEpisode(id: $id, input: {status: SUCCESS}) { id } }",
        {"id": w["episode"]},
    ),
    lambda w: (
        'mutation($s: ID!) { putSessionEntry(input: {sessionId: $s, text: "x"}) { id } }',
        {"s": w["session"]},
    ),
    lambda w: (
        'mutation($s: ID!) { attachSessionTranscript(input: {sessionId: $s, text: "x"}) { id } }',
        {"s": w["session"]},
    ),
    lambda w: (
        "mutation($id: ID!) { deleteSessionEntry(id: $id) { count } }",
        {"id": w["entry"]},
    ),
    lambda w: (
        'mutation($s: ID!) { deleteSessionTimeline(sessionId: $s, timeline: "main") { count } }',
        {"s": w["session"]},
    ),
    lambda w: (
        "mutation($id: ID!) { endSession(id: $id) { entriesSummarized } }",
        {"id": w["session"]},
    ),
    lambda w: ("mutation($id: ID!) { forgetMemory(id: $id) { id } }", {"id": w["shared"]}),
    lambda w: (
        'mutation { forgetMemory(namespace: {agent: "brad"}, key: "sport") { id } }',
        {},
    ),
    lambda w: ('mutation { deleteProcedure(agent: "brad", name: "greet") { id } }', {}),
    lambda w: ('mutation { deleteSemanticDocument(objectId: "voice", agent: "brad") { id } }', {}),
    lambda w: (
        "mutation($id: ID!) { forgetMemory(id: $id, hard: true) { id } }",
        {"id": w["record"]},
    ),
]


@pytest.fixture
def team(settings: Settings, alice: Caller, neo4j_session: Any) -> dict[str, Caller]:
    """alice's agent key (agent tester), agent brad's key and a reviewer, of one client."""
    return {
        "tester": alice,
        "brad": colleague(settings, neo4j_session, alice, Role.AGENT, "brad"),
        "reviewer": colleague(settings, neo4j_session, alice, Role.REVIEWER, "reviewer-1"),
    }


def test_an_agent_key_may_not_act_for_another_agent_and_writes_nothing(
    team: dict[str, Caller], neo4j_session: Any
) -> None:
    tester, client = team["tester"], team["tester"].client_id
    world = brads_world(team["brad"], tester)
    before = client_state(neo4j_session, client)
    for attempt in ATTEMPTS:
        document, variables = attempt(world)
        body = tester.gql(document, variables)
        assert error_code(body) == "FORBIDDEN", (document, body)
        extensions = body["errors"][0]["extensions"]
        assert (extensions["bound_agent"], extensions["agent"]) == ("tester", "brad"), document
        assert "bound to agent 'tester'" in body["errors"][0]["message"]
    assert client_state(neo4j_session, client) == before
    # A reviewer key of the client may do every one of them, in this order.
    for attempt in ATTEMPTS:
        document, variables = attempt(world)
        body = team["reviewer"].gql(document, variables)
        assert not body.get("errors"), (document, body)


def test_an_omitted_agent_is_the_keys_own_and_reads_are_not_bound(team: dict[str, Caller]) -> None:
    tester, brad = team["tester"], team["brad"]
    saved = one(tester, "mutation { saveAgentState(state: {a: 1}) { name } }")
    assert saved["name"] == "tester"
    mine = one(tester, REMEMBER, {"i": {"kind": "SEMANTIC", "text": "a note"}})
    assert mine["sourceAgent"] == "tester"
    own = {
        "kind": "SEMANTIC",
        "text": "mine",
        "namespace": {"agent": "tester"},
        "sourceAgent": "tester",
    }
    assert one(tester, REMEMBER, {"i": own})["namespace"] == "agent:tester"
    theirs = one(
        brad, REMEMBER, {"i": {"kind": "SEMANTIC", "namespace": {"agent": "brad"}, "text": "b"}}
    )
    recall = "query($id: ID!) { recallMemory(id: $id) { id sourceAgent } }"
    assert one(tester, recall, {"id": theirs["id"]}) == {"id": theirs["id"], "sourceAgent": "brad"}
    patterns = 'query { agentPatterns(agentName: "brad") { agentName totalTasks } }'
    assert one(tester, patterns) == {"agentName": "brad", "totalTasks": 0}
    # brad's key is bound the other way round just the same.
    body = brad.gql('mutation { saveAgentState(agentName: "tester", state: {}) { name } }')
    assert error_code(body) == "FORBIDDEN"


def test_an_agent_keys_attach_reads_the_owner_only_when_refused(team: dict[str, Caller]) -> None:
    """The binding costs an agent key no round trip on the way that succeeds."""
    tester, reviewer = team["tester"], team["reviewer"]
    attach = (
        'mutation($id: ID!) { attachMemoryArtifact(recordId: $id, kind: "notes", '
        'contentBase64: "aGk=") { id } }'
    )
    own = one(tester, REMEMBER, {"i": {"kind": "SEMANTIC", "text": "mine"}})["id"]
    _, agent_trips = counted(tester, attach, {"id": own})
    _, reviewer_trips = counted(reviewer, attach, {"id": own})
    assert agent_trips == reviewer_trips

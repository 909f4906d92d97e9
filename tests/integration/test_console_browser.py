"""The web console at /console (issue 17) in a real headless Chromium against the real services,
with data made through the GraphQL API: the page asks for a key (a wrong one shows
UNAUTHENTICATED), then

- "why was this published?" draws a variant's trace as SVG boxes (one per record, with its type
  and id) and shows a box's fields on click, the screenshot evidence loaded as an image from its
  presigned URL;
- the live thread shows a thread's summary and events, then appends an event written through
  the API without a reload, and after its socket drops resubscribes from the last cursor it saw,
  missing nothing written meanwhile;
- "what a persona knows" shows the persona's context and the memories about a subject, an error
  as its code and message, and Forget removes the memory from the page and from the API.

Screenshots: tests/artifacts/console-trace.png, console-thread.png, console-persona.png."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import httpx
import pytest

from app.demo.publish import tiny_png
from app.model.enums import Role
from app.settings import Settings
from tests.integration import acceptance_flow as af
from tests.integration.asset_helpers import (
    ADD_EVIDENCE,
    FINISH_RUN,
    TRANSITION_ASSET,
    TRANSITION_PACKAGE,
    TRANSITION_VARIANT,
    b64,
    same_client_caller,
)
from tests.integration.browser import chromium, screenshot
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import listed, remember
from tests.integration.test_acceptance_section10 import build_plan, make_asset, start_publishing
from tests.integration.test_personas_api import CORE, CREATE

# The persona speaks as the key's agent (an agent key acts only as itself).
pytestmark = pytest.mark.callers(agent_name="brad")

TIMEOUT_MS = 30_000
PNG_SIZE = (24, 16)
SUBJECT = """mutation($ref: String!) {
  upsertSubject(input: {externalRef: $ref, displayName: "Dana"}) { id } }"""
CHANGES = """query($after: String) {
  changes(after: $after, types: [CONVERSATION_EVENT], first: 200) {
    changes { cursor recordId } } }"""
# An <img> that finished loading a real image.
LOADED = """selector => {
  const img = document.querySelector(selector);
  return img !== null && img.complete && img.naturalWidth > 0;
}"""
TRACED = [
    ("Plan", "plan"),
    ("PlanNode", "blueprint"),
    ("ConstraintsSnapshot", "snapshot"),
    ("Asset", "asset"),
    ("AssetVariant", "variant"),
    ("PromptArtifact", "prompt"),
    ("ApprovalRecord", "approval"),
    ("PublishPackage", "package"),
    ("PublishRun", "run"),
    ("EvidenceArtifact", "evidence"),
]


def _publish_with_a_screenshot(alice: Caller, ids: dict[str, str]) -> None:
    """The variant's package published by a run whose evidence is a real PNG screenshot."""
    package, run_id = start_publishing(alice, ids)
    png = tiny_png(size=PNG_SIZE, bands=((40, 80, 200), (250, 250, 250)), text="posted")
    shot = {
        "runId": run_id,
        "kind": "SCREENSHOT",
        "contentBase64": b64(png),
        "contentType": "image/png",
    }
    evidence = alice.data(ADD_EVIDENCE, {"input": shot})["addPublishEvidence"]
    finish = {"status": "SUCCEEDED", "externalRef": "ig:console"}
    alice.data(FINISH_RUN, {"id": run_id, "input": finish})
    alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"})
    alice.data(TRANSITION_VARIANT, {"id": ids["variant"], "to": "PUBLISHED"})
    alice.data(TRANSITION_ASSET, {"id": ids["asset"], "to": "PUBLISHED"})
    ids |= {"package": package["id"], "run": run_id, "evidence": evidence["id"]}


def _thread(alice: Caller) -> str:
    """A comment thread with its comments and a summary."""
    thread_input = {
        "platform": "INSTAGRAM",
        "threadType": "COMMENT_THREAD",
        "externalThreadRef": f"ig:media:{uuid.uuid4().hex[:8]}:comments",
        "participantExternalRef": "ig:user:dana",
    }
    made = alice.data(af.CREATE_THREAD, {"input": thread_input})["createConversationThread"]
    thread_id = str(made["thread"]["id"])
    events = [
        {k: v for k, v in e.items() if k != "media"} for e in af.comment_events(thread_id, b"")
    ]
    alice.data(af.APPEND_EVENTS, {"events": events})
    alice.data(af.SUMMARIZE, {"t": thread_id})
    return thread_id


def _say(alice: Caller, thread_id: str, text: str) -> str:
    event = {
        "threadId": thread_id,
        "direction": "INBOUND",
        "eventType": "COMMENT",
        "externalRef": f"ig:comment:{uuid.uuid4().hex}",
        "text": text,
    }
    appended = alice.data(af.APPEND_EVENTS, {"events": [event]})["appendConversationEvents"]
    return str(appended["results"][0]["event"]["id"])


def test_the_console_is_served_without_a_key(api_url: str) -> None:
    page = httpx.get(f"{api_url}/console")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/console/console.js">' in page.text
    for asset, kind in (("console.js", "javascript"), ("console.css", "text/css")):
        answer = httpx.get(f"{api_url}/console/{asset}")
        assert answer.status_code == 200 and kind in answer.headers["content-type"], asset
    assert httpx.get(f"{api_url}/console/").text == page.text
    assert httpx.get(f"{api_url}/console/nothing.js").status_code == 404


def test_trace_live_thread_and_persona_memories_in_the_console(
    settings: Settings, api_url: str, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    ids = build_plan(alice, reviewer)
    make_asset(settings, alice, reviewer, ids)
    _publish_with_a_screenshot(alice, ids)
    thread_id = _thread(alice)
    subject = f"dana-{uuid.uuid4().hex[:8]}"
    alice.data(CREATE, {"input": CORE})
    alice.data(SUBJECT, {"ref": subject})
    kept = remember(alice, namespace={"subject": subject}, text="Lives in Springfield")
    doomed = remember(alice, namespace={"subject": subject}, text="Prefers Saturday installs")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        page.set_default_timeout(TIMEOUT_MS)
        sockets = _recorded_sockets(page)
        _enter_key(page, api_url, alice)
        _trace(page, ids)
        _live_thread(page, alice, thread_id, sockets)
        _persona(page, alice, subject, kept["id"], doomed["id"])
        assert page.evaluate("window.consoleNeverReloaded") is True
        page.close()


def _recorded_sockets(page: Any) -> list[dict[str, Any]]:
    """The page's WebSockets to /graphql, passed through a route that records what the page sends
    (`sent`) and can drop a connection (`route`, `server`)."""
    sockets: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        socket: dict[str, Any] = {"route": ws, "server": server, "sent": []}

        def forward(message: str | bytes) -> None:
            socket["sent"].append(json.loads(message))
            server.send(message)

        ws.on_message(forward)
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/graphql$"), route)
    return sockets


def _enter_key(page: Any, api_url: str, alice: Caller) -> None:
    page.goto(f"{api_url}/console")
    page.evaluate("window.consoleNeverReloaded = true")
    page.fill("#api-key", "am_00000000_not-a-key-at-all-xxxxxxxxxx")
    page.click("#key-form button[type=submit]")
    page.locator("#key-error").get_by_text("UNAUTHENTICATED").wait_for()
    page.fill("#api-key", alice.key)
    page.click("#key-form button[type=submit]")
    viewer = page.locator("#viewer")
    viewer.get_by_text(alice.client_id).wait_for()
    assert "agent brad" in viewer.inner_text()
    assert page.evaluate("sessionStorage.getItem('agentmem.console.apiKey')") == alice.key


def _trace(page: Any, ids: dict[str, str]) -> None:
    page.fill("#variant-filter", "tankless")
    page.click(f"#variants button[data-id='{ids['variant']}']")
    picture = page.locator("#trace-svg")
    picture.locator(f"g.box[data-type=EvidenceArtifact][data-id='{ids['evidence']}']").wait_for()
    for record_type, name in TRACED:
        box = picture.locator(f"g.box[data-type={record_type}][data-id='{ids[name]}']")
        assert box.count() == 1, (record_type, ids[name])
    assert picture.locator("path.link").count() >= len(TRACED) - 1
    picture.locator(f"g.box[data-type=AssetVariant][data-id='{ids['variant']}']").click()
    details = page.locator("#details-body")
    details.locator("h3[data-type=AssetVariant]").wait_for()
    assert details.locator("dd[data-field=id]").inner_text() == ids["variant"]
    assert details.locator("dd[data-field=platform]").inner_text() == "IG"
    assert details.locator("dd[data-field=status]").inner_text() == "PUBLISHED"
    picture.locator(f"g.box[data-type=PromptArtifact][data-id='{ids['prompt']}']").click()
    details.locator("pre.prompt").get_by_text("cold showers are optional").wait_for()
    shown = f"#evidence-strip img.evidence[data-id='{ids['evidence']}']"
    page.wait_for_function(LOADED, arg=shown)
    size = page.locator(shown).evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert size == list(PNG_SIZE)
    screenshot(page, "console-trace")


def _live_thread(page: Any, alice: Caller, thread_id: str, sockets: list[dict[str, Any]]) -> None:
    page.click("#tabs button[data-tab=thread]")
    page.click(f"#threads button[data-id='{thread_id}']")
    page.locator("#thread-summary").get_by_text("Dana").first.wait_for()
    page.wait_for_selector("#thread-state[data-state=live]")
    page.wait_for_function(
        f"document.querySelectorAll('#events li.event').length === {len(af.COMMENTS)}"
    )
    live_id = _say(alice, thread_id, "Is Saturday possible for the install?")
    page.wait_for_selector("#events li.event:has-text('Is Saturday possible for the install?')")
    assert page.locator(f"#events li.event[data-id='{live_id}']").count() == 1
    screenshot(page, "console-thread")
    # The connection drops: the page resubscribes after the last cursor it saw, losing nothing.
    live_cursor = _cursor_of(alice, live_id)
    first = sockets[-1]
    first["route"].close(code=4000, reason="dropped by the test")
    first["server"].close()
    page.wait_for_selector("#thread-state[data-state=reconnecting]")
    _say(alice, thread_id, "Written while the socket was down")
    page.wait_for_selector("#events li.event:has-text('Written while the socket was down')")
    page.wait_for_selector("#thread-state[data-state=live]")
    assert sockets[-1] is not first
    resubscribe = [m for m in sockets[-1]["sent"] if m["type"] == "subscribe"][0]
    after = resubscribe["payload"]["variables"]["after"]
    assert after is not None and int(after) >= int(live_cursor)
    assert page.locator("#events li.event").count() == len(af.COMMENTS) + 2


def _cursor_of(alice: Caller, event_id: str) -> str:
    changes = alice.data(CHANGES, {"after": "0"})["changes"]["changes"]
    return str(next(c["cursor"] for c in changes if c["recordId"] == event_id))


def _persona(page: Any, alice: Caller, subject: str, kept: str, doomed: str) -> None:
    page.click("#tabs button[data-tab=persona]")
    page.fill("#persona-name", "nobody")
    page.fill("#persona-subject", subject)
    page.click("#persona-form button[type=submit]")
    page.locator("#persona-error").get_by_text("NOT_FOUND").wait_for()
    page.fill("#persona-name", "brad")
    page.click("#persona-form button[type=submit]")
    page.locator("#persona-context .persona-section").first.wait_for()
    assert page.locator("#persona-error").inner_text() == ""
    context = page.locator("#persona-context").inner_text()
    assert "You are Brad" in context and "Prefers Saturday installs" in context
    row = page.locator(f"#memories li.memory[data-id='{doomed}']")
    row.wait_for()
    assert page.locator(f"#memories li.memory[data-id='{kept}']").count() == 1
    screenshot(page, "console-persona")
    row.locator("button.forget").click()
    row.wait_for(state="detached")
    assert page.locator(f"#memories li.memory[data-id='{kept}']").count() == 1
    ids = {m["id"] for m in listed(alice, {"subject": subject})["nodes"]}
    assert ids == {kept}

"""The request edge on its own: bounded JSON bodies, input text checks, and the middleware that
answers what escapes or arrives too slowly (rate limits: test_rate_limit.py)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from typing import Any

import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.edge.introspection import introspection_document
from app.api.edge.request_body import MAX_NESTING, BadBody, nests_deeper, parse_json, request_json
from app.api.edge.text_input import InputRefused, check_json, check_text
from app.web.middleware import RequestEdge

JSON_SCOPE: Scope = {"type": "http", "headers": [(b"content-type", b"application/json")]}


def test_json_nesting_is_measured_outside_strings() -> None:
    assert not nests_deeper("[" * 3 + "]" * 3, 3)
    assert nests_deeper("[" * 4 + "]" * 4, 3)
    assert not nests_deeper(json.dumps({"a": "[[[[[[{{{{", "b": ['\\"[[[[']}), 3)
    assert nests_deeper('{"a": {"b": [{"c": 1}]}}', 3)


def test_an_unterminated_string_is_measured_in_one_pass() -> None:
    """Review E1: the string pattern restarted at every quote after an unterminated string
    (4.2 s at 32 KB, quadratic). Brackets after such a string are inside it."""
    assert not nests_deeper("[" * 3 + '"' + "[" * 10, 3)
    assert nests_deeper("[" * 4 + '"' + "[" * 10, 3)
    assert not nests_deeper('["a\\", "\\"' + "]" * 10 + "[" * 3, 3)
    hostile = ["[" * 101 + '"' + '\\"' * 32_000, "[" * 101 + '"' + '\\"' * 32_000 + "\\"]
    for text in hostile:  # 64 KB each
        started = time.perf_counter()
        with pytest.raises(BadBody, match=f"nests deeper than {MAX_NESTING}"):
            parse_json(text.encode())
        assert time.perf_counter() - started < 0.25  # one pass: ~2 ms; before: ~17 s


def _depth(value: Any) -> int:
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max(map(_depth, children), default=0)
    return 0


def test_nesting_agrees_with_the_parsed_value_whatever_the_strings_hold() -> None:
    rng = random.Random(11)
    tricky = ['"', "\\", "[", "]", "{", "}", "\\u0022", "a", " "]

    def value(depth: int) -> Any:
        text = "".join(rng.choice(tricky) for _ in range(rng.randrange(6)))
        if depth == 0 or rng.random() < 0.3:
            return text
        children = [value(depth - 1) for _ in range(rng.randrange(1, 4))]
        return (
            children if rng.random() < 0.5 else {text + str(n): c for n, c in enumerate(children)}
        )

    for _ in range(300):
        sample = value(rng.randrange(8))
        text = json.dumps(sample, ensure_ascii=rng.random() < 0.5)
        for limit in (0, 2, 4):
            assert nests_deeper(text, limit) == (_depth(sample) > limit), text


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"[" * 5_000 + b"]" * 5_000, f"nests deeper than {MAX_NESTING} levels"),
        (b'{"query": "\xff"}', "not UTF-8 text (byte 11)"),
        (b"{nope", "not valid JSON"),
        (b'{"query": "{ a }", "variables": {"x": NaN}}', "NaN is not a JSON number"),
        (b'{"variables": {"x": ' + b"1" * 5_000 + b"}}", "not valid JSON"),
    ],
)
def test_unusable_bodies_are_refused_with_what_to_fix(body: bytes, says: str) -> None:
    with pytest.raises(BadBody, match=re.escape(says)):
        parse_json(body)


@pytest.mark.parametrize("body", [b"null", b"1", b'"s"', b"true"])
def test_a_json_body_must_be_an_object_or_a_batch(body: bytes) -> None:
    with pytest.raises(BadBody, match="send one JSON object"):
        request_json(dict(JSON_SCOPE), body)
    assert request_json(dict(JSON_SCOPE), b"[]") == []


def test_a_body_is_parsed_once_per_request_and_only_when_it_says_json() -> None:
    scope: Scope = dict(JSON_SCOPE)
    body = b'{"query": "{ a }"}'
    first = request_json(scope, body)
    assert request_json(scope, body) is first
    assert request_json({"type": "http", "headers": []}, b"{nope") is None


def test_text_refuses_surrogates_and_control_characters_but_keeps_free_text() -> None:
    kept = "tab\there\nnew line\r\n\x1b[31mred\x1b[0m \u00e9\U0001f600"
    assert check_text(kept) == kept
    for bad, code_point in [("x\ud800y", "U+D800"), ("a\x00", "U+0000"), ("\x07", "U+0007")]:
        with pytest.raises(InputRefused, match=re.escape(code_point)) as refused:
            check_text(bad)
        assert refused.value.extensions == {"code": "VALIDATION"}


def test_json_values_are_checked_in_keys_values_and_depth() -> None:
    fine = {"a": [1, 2.5, None, True, {"b": "c\n"}]}
    assert check_json(fine, max_depth=3) is fine
    with pytest.raises(InputRefused, match=re.escape("U+DC00")):
        check_json({"k\udc00": 1}, max_depth=3)
    with pytest.raises(InputRefused, match=re.escape("U+0001")):
        check_json([[["\x01"]]], max_depth=3)
    with pytest.raises(InputRefused, match="deeper than 3 levels"):
        check_json([[[[]]]], max_depth=3)
    deep: Any = []
    for _ in range(100_000):  # no recursion: any depth is measured
        deep = [deep]
    with pytest.raises(InputRefused, match="deeper than 32 levels"):
        check_json(deep, max_depth=32)


def test_keyless_introspection_is_recognised_from_the_parsed_body() -> None:
    assert introspection_document({"query": "{ __schema { queryType { name } } }"})
    assert not introspection_document({"query": "{ __typename viewer { clientId } }"})
    assert not introspection_document([{"query": "{ __typename }"}])
    assert not introspection_document({"query": "{ __typename " + "a " * 2_000 + "}"})


def _run(app: Any, receive: Receive) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/graphql", "headers": []}
    asyncio.run(app(scope, receive, send))
    return sent


def _edge(app: ASGIApp, *, body_timeout_s: float = 30.0, max_body_bytes: int = 1_000) -> ASGIApp:
    return RequestEdge(
        app, max_body_bytes=max_body_bytes, body_timeout_s=body_timeout_s, deadline_s=5.0
    )


def test_an_escaping_exception_is_answered_json_500(caplog: pytest.LogCaptureFixture) -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("secret detail")

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    sent = _run(_edge(broken), receive)
    assert sent[0]["status"] == 500
    body = json.loads(sent[1]["body"])
    assert body["errors"][0]["extensions"] == {"code": "INTERNAL"}
    assert "secret detail" not in sent[1]["body"].decode() and "secret detail" in caplog.text


def test_a_body_that_stalls_is_answered_408_and_closes_the_connection() -> None:
    async def echo(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    chunks = [{"type": "http.request", "body": b"{", "more_body": True}]

    async def slow_receive() -> Message:
        if chunks:
            return chunks.pop()
        await asyncio.sleep(10)
        raise AssertionError("the timeout should have fired")

    started = time.monotonic()
    sent = _run(_edge(echo, body_timeout_s=0.2), slow_receive)
    assert time.monotonic() - started < 2
    assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["errors"][0]["extensions"] == {"code": "REQUEST_TIMEOUT"}

    async def prompt_receive() -> Message:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    assert _run(_edge(echo, body_timeout_s=0.2), prompt_receive)[1]["body"] == b"ok"


def test_graphiql_introspection_with_its_fragments_needs_no_key() -> None:
    from graphql import get_introspection_query

    assert introspection_document({"query": get_introspection_query(descriptions=True)})
    spread_at_root = "{ ...Q } fragment Q on Query { viewer { clientId } }"
    assert not introspection_document({"query": spread_at_root})


def test_refused_input_is_answered_validation_naming_the_variable() -> None:
    from app.api.schema import build_schema
    from app.settings import Settings

    schema = build_schema(Settings.model_construct())
    query = "query($n: String!) { __type(name: $n) { name } }"
    result = asyncio.run(schema.execute(query, variable_values={"n": "Query\ud800"}))
    assert result.errors is not None and result.data is None
    error = result.errors[0]
    assert error.extensions == {"code": "VALIDATION"}
    assert error.message.startswith("Variable '$n' has invalid value: text holds an unpaired")
    literal = asyncio.run(schema.execute('{ __type(name: "Query\\u0007") { name } }'))
    assert literal.errors is not None and literal.errors[0].extensions == {"code": "VALIDATION"}
    fine = asyncio.run(schema.execute(query, variable_values={"n": "Query"}))
    assert fine.data == {"__type": {"name": "Query"}}


def test_refused_literals_name_their_argument_and_the_path_inside_it() -> None:
    """Review E5: a literal's refusal names where it is, as a variable's does."""
    from app.api.schema import build_schema
    from app.settings import Settings

    schema = build_schema(Settings.model_construct())
    cases = {
        '{ __type(name: "Query\\u0007") { name } }': "Argument 'name' has invalid value: ",
        'query($n: String = "Q\\u0001") { __type(name: $n) { name } }': (
            "Default value of variable '$n' has invalid value: "
        ),
        'mutation { startSession(input: {agent: "a\\u0002"}) { __typename } }': (
            "Argument 'input' has invalid value at .agent: text holds a control character"
        ),
        'mutation { saveAgentState(agentName: "a", state: ' + "[" * 40 + "]" * 40 + ") { id } }": (
            "Argument 'state' has invalid value: JSON value nests deeper than 32 levels"
        ),
    }
    for query, says in cases.items():
        result = asyncio.run(schema.execute(query))
        assert result.errors is not None and len(result.errors) == 1, result.errors
        error = result.errors[0]
        assert error.message.startswith(says), error.message
        assert error.extensions == {"code": "VALIDATION"} and error.locations


@pytest.mark.parametrize(
    "body", [b'{"a": 1e999}', b'{"v": [-1E+400]}', b'{"v": 1' + b"0" * 400 + b".5}"]
)
def test_numbers_too_large_for_a_float_are_refused_in_the_body(body: bytes) -> None:
    """Second review E-5: `1e999` was read as infinity and stored, later answers were not JSON."""
    with pytest.raises(BadBody, match="is too large; numbers must be finite"):
        parse_json(body)
    kept = parse_json(b'{"a": [1e308, -2.5e-999, "1e999", 12345678901234567890]}')
    assert kept == {"a": [1e308, -0.0, "1e999", 12345678901234567890]}


def test_json_inputs_refuse_numbers_that_are_not_finite_naming_the_argument() -> None:
    from app.api.schema import build_schema
    from app.settings import Settings

    with pytest.raises(InputRefused, match="holds the number inf; send finite numbers"):
        check_json({"a": [1.5, float("inf")]}, max_depth=3)
    schema = build_schema(Settings.model_construct())
    query = 'mutation { saveAgentState(agentName: "a", state: {a: [1, 1e999]}) { id } }'
    result = asyncio.run(schema.execute(query))
    assert result.errors is not None and len(result.errors) == 1
    error = result.errors[0]
    assert error.extensions == {"code": "VALIDATION"}
    assert error.message.startswith("Argument 'state' has invalid value: JSON value holds the")

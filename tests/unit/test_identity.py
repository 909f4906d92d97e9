import pytest

from app.domain.kernel.errors import Forbidden, ValidationFailed
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.keys.repository import generate_secret, hash_secret, looks_like_key
from app.graph.identifiers import cypher_label, cypher_rel_type
from app.model.enums import Role


def test_generated_keys_are_unique_and_well_formed() -> None:
    keys = {generate_secret() for _ in range(200)}
    assert len(keys) == 200
    assert all(looks_like_key(key) for key in keys)


def test_hash_is_stable_hex_and_hides_the_secret() -> None:
    secret = generate_secret()
    digest = hash_secret(secret)
    assert digest == hash_secret(secret) and len(digest) == 64
    assert secret not in digest and hash_secret(secret + "x") != digest


@pytest.mark.parametrize("bad", ["", "am_", "Bearer am_x", "am_00000000_short", "x" * 60])
def test_malformed_keys_are_recognised(bad: str) -> None:
    assert not looks_like_key(bad)


def test_labels_and_relationship_types_come_from_closed_enums() -> None:
    assert cypher_label("Plan") == "`Plan`"
    assert cypher_rel_type("HAS_KEY") == "`HAS_KEY`"
    for hostile in ["Plan` {x:1}) DETACH DELETE n //", "plan", "Nope", ""]:
        with pytest.raises(ValueError):
            cypher_label(hostile)
    with pytest.raises(ValueError):
        cypher_rel_type("KNOWS]->(x) DELETE x//")


def test_ids_are_validated_against_the_uuid_pattern() -> None:
    fresh = new_id()
    assert check_id(fresh.upper()) == fresh
    for bad in ["", "123", "' OR 1=1 //", fresh + "0"]:
        with pytest.raises(ValidationFailed, match="UUID"):
            check_id(bad, field="planId")


def test_roles_gate_writes() -> None:
    analyst = Principal(client_id=new_id(), role=Role.ANALYST, key_id=new_id())
    with pytest.raises(Forbidden, match="analyst"):
        analyst.require_writer()
    Principal(client_id=new_id(), role=Role.AGENT, key_id=new_id()).require_writer()


def test_only_pure_introspection_passes_without_a_key() -> None:
    import json

    from app.api.edge.introspection import introspection_document
    from app.api.edge.request_body import BadBody, request_json

    def body(query: str) -> bytes:
        return json.dumps({"query": query}).encode()

    def only_introspection(body: bytes) -> bool:
        """What RequireApiKey decides for a POST without a key (app/web/auth.py)."""
        try:
            parsed = request_json({"headers": [(b"content-type", b"application/json")]}, body)
        except BadBody:
            return False
        return introspection_document(parsed) is not None

    assert only_introspection(body("query IntrospectionQuery { __schema { types { name } } }"))
    assert only_introspection(body("{ __typename }"))
    assert not only_introspection(body("{ __typename viewer { clientId } }"))
    assert not only_introspection(body("{ __schema { types { name } } } mutation { x }"))
    assert not only_introspection(body("{ plans { totalCount } }"))
    assert not only_introspection(b"not json")
    assert not only_introspection(body("{ __schema "))

"""`agentmem constraints export|import|list|schema` against the real Neo4j and S3: an edited
export imports as the next version, a stale export or a schema violation writes nothing, and
one client's name never reaches another client's document."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.admin import create_key
from app.cli.commands import main
from app.cli.constraint_files import FIELDS, parse
from app.domain.kernel.errors import ValidationFailed
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.constraint_helpers import edit

BRANDKIT = {"name": "Acme Plumbing", "voice": "Warm, plain, expert.", "tone": ["warm"]}
VERSIONS = """MATCH (v:ConstraintVersion {document_id: $id})
RETURN v.version AS version, v.reason AS reason, v.author AS author,
  v.inline_content AS inline, v.content_uri AS uri ORDER BY v.version"""


def _client(settings: Settings) -> str:
    name = f"test-cli-{uuid.uuid4().hex[:12]}"
    asyncio.run(create_key(settings, client=name, role=Role.ADMIN, agent_name=None))
    return name


def _write(path: Path, data: dict[str, Any]) -> Path:
    text = json.dumps(data) if path.suffix == ".json" else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(["constraints", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _created(capsys: Any, tmp_path: Path, client: str, content: Any = BRANDKIT) -> str:
    """The client's new brandkit document (imported from a file naming no document); its id."""
    new = {"kind": "brandkit", "title": "Brand", "content": content}
    code, out, err = _run(
        capsys,
        "import",
        _write(tmp_path / "new.yaml", new),
        "--client",
        client,
        "--reason",
        "first version",
    )
    assert code == 0, err
    return out.split(" document ")[1].split(":")[0]


def _versions(neo4j_session: Any, document_id: str) -> list[dict[str, Any]]:
    return [dict(row) for row in neo4j_session.run(VERSIONS, id=document_id)]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_edited_export_imports_as_the_next_version_and_a_stale_one_is_refused(
    settings: Settings, tmp_path: Path, capsys: Any, neo4j_session: Any, suffix: str
) -> None:
    client = _client(settings)
    document_id = _created(capsys, tmp_path, client)
    exported = tmp_path / f"brandkit{suffix}"
    code, _, err = _run(
        capsys, "export", "--client", client, "--kind", "brandkit", "--output", exported
    )
    assert code == 0, err
    data = _load(exported)
    assert list(data) == list(FIELDS) and data["content"] == BRANDKIT
    assert (data["document_id"], data["kind"], data["version"]) == (document_id, "brandkit", 1)
    if suffix == ".yaml":
        assert "agentmem constraints import" in exported.read_text().splitlines()[2]
    edited = BRANDKIT | {"voice": "Warmer.", "banned_terms": ["cheap"]}
    _write(exported, data | {"content": edited})
    code, out, err = _run(capsys, "import", exported, "--client", client, "--reason", "no cheap")
    assert code == 0 and "version 2" in out, err
    versions = _versions(neo4j_session, document_id)
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[1]["reason"] == "no cheap" and versions[1]["author"].startswith("admin:cli:")
    assert json.loads(versions[1]["inline"]) == edited
    code, out, _ = _run(capsys, "export", "--client", client, "--kind", "brandkit", "--version", 1)
    assert code == 0 and yaml.safe_load(out)["content"] == BRANDKIT
    assert "Version 2 is the current one" in out
    # The same file again (a re-run): version 2 holds its content, so nothing to save.
    code, out, err = _run(capsys, "import", exported, "--client", client, "--reason", "again")
    assert code == 0 and "unchanged: version 2" in out, err
    # Another change made from version 1, now that the document is at version 2: stale.
    _write(exported, data | {"content": edited | {"voice": "Colder."}})
    code, out, err = _run(capsys, "import", exported, "--client", client, "--reason", "stale")
    assert code == 1 and "CONFLICT" in err and "export it again" in err and not out
    assert len(_versions(neo4j_session, document_id)) == 2


@pytest.mark.callers(role=Role.REVIEWER)
def test_an_api_edit_after_the_export_makes_the_import_refused(
    alice: Caller, tmp_path: Path, capsys: Any, neo4j_session: Any
) -> None:
    client = neo4j_session.run(
        "MATCH (c:Client {id: $id}) RETURN c.name AS name", id=alice.client_id
    ).single()["name"]
    document_id = _created(capsys, tmp_path, client)
    exported = tmp_path / "brandkit.yml"
    assert (
        _run(capsys, "export", "--client", client, "--kind", "brandkit", "--output", exported)[0]
        == 0
    )
    assert edit(alice, document_id, BRANDKIT | {"tone": ["bold"]})["currentVersion"] == 2
    _write(exported, _load(exported) | {"content": BRANDKIT | {"tone": ["calm"]}})
    code, _, err = _run(capsys, "import", exported, "--client", client, "--reason", "calm")
    assert code == 1 and "is at version 2" in err and "from version 1" in err
    versions = _versions(neo4j_session, document_id)
    assert [v["author"].startswith("reviewer:") for v in versions] == [False, True]


def test_a_schema_violation_names_the_field_and_writes_nothing(
    settings: Settings, tmp_path: Path, capsys: Any, neo4j_session: Any
) -> None:
    client = _client(settings)
    document_id = _created(capsys, tmp_path, client)
    exported = tmp_path / "brandkit.yaml"
    assert (
        _run(capsys, "export", "--client", client, "--kind", "brandkit", "--output", exported)[0]
        == 0
    )
    data = _load(exported)
    wrong = {
        "content.colors[0].hex": data
        | {"content": BRANDKIT | {"colors": [{"name": "r", "hex": "red"}]}},
        "content.voise": data | {"content": BRANDKIT | {"voise": "typo"}},
        "contnet": {**data, "contnet": data["content"]},
    }
    for field, given in wrong.items():
        _write(exported, given)
        code, _, err = _run(capsys, "import", exported, "--client", client, "--reason", "bad")
        assert code == 1 and "VALIDATION" in err and field in err, (field, err)
    assert [v["version"] for v in _versions(neo4j_session, document_id)] == [1]


def test_a_client_name_reaches_only_that_clients_documents(
    settings: Settings, tmp_path: Path, capsys: Any, neo4j_session: Any
) -> None:
    alice, bob = _client(settings), _client(settings)
    alice_document = _created(capsys, tmp_path, alice)
    exported = tmp_path / "alice.json"
    assert (
        _run(capsys, "export", "--client", alice, "--kind", "brandkit", "--output", exported)[0]
        == 0
    )
    _write(exported, _load(exported) | {"content": BRANDKIT | {"name": "Bob's"}})
    code, _, err = _run(capsys, "import", exported, "--client", bob, "--reason", "take over")
    assert code == 1 and "NOT_FOUND" in err
    code, _, err = _run(capsys, "export", "--client", bob, "--kind", "brandkit")
    assert code == 1 and "NOT_FOUND" in err
    assert len(_run(capsys, "list", "--client", bob)[1].splitlines()) == 1  # the header alone
    assert [v["version"] for v in _versions(neo4j_session, alice_document)] == [1]
    # A second document of a kind is refused: the file must start from the existing one.
    code, _, err = _run(capsys, "import", tmp_path / "new.yaml", "--client", alice, "--reason", "x")
    assert code == 1 and "CONFLICT" in err and alice_document in err
    missing = f"test-cli-missing-{uuid.uuid4().hex[:8]}"
    code, _, err = _run(capsys, "list", "--client", missing)
    assert code == 1 and f"no client named {missing!r}" in err
    found = neo4j_session.run("MATCH (c:Client {name: $name}) RETURN count(c) AS n", name=missing)
    assert found.single()["n"] == 0


def test_large_content_goes_through_object_storage_and_lists_and_schema_help(
    settings: Settings, tmp_path: Path, capsys: Any, neo4j_session: Any
) -> None:
    client = _client(settings)
    facts = [{"key": f"fact-{n}", "statement": f"Fact number {n} " + "x" * 100} for n in range(200)]
    new = {"kind": "knowledge_base", "title": "What we know", "content": {"facts": facts}}
    code, out, err = _run(
        capsys, "import", _write(tmp_path / "kb.json", new), "--client", client, "--reason", "first"
    )
    assert code == 0, err
    document_id = out.split(" document ")[1].split(":")[0]
    assert _versions(neo4j_session, document_id)[0]["uri"] is not None
    code, out, _ = _run(capsys, "export", "--client", client, "--kind", "knowledge_base")
    assert code == 0 and yaml.safe_load(out)["content"] == {"facts": facts}
    code, out, _ = _run(capsys, "list", "--client", client)
    assert code == 0 and out.splitlines()[1].split()[:2] == ["knowledge_base", "What"]
    assert document_id in out.splitlines()[1]
    code, out, _ = _run(capsys, "schema", "blueprint_set")
    assert code == 0 and json.loads(out)["required"] == ["blueprints"]


def test_the_file_keeps_dates_as_text_and_names_what_is_wrong() -> None:
    parsed = parse("kind: brandkit\ncontent: {name: A, voice: 2026-01-31}\n", fmt="yaml", name="f")
    assert parsed.content == {"name": "A", "voice": "2026-01-31"} and parsed.version is None
    cases = {
        "version": '{"document_id": "x", "kind": "brandkit", "content": {}}',
        "kind": '{"kind": "brand", "content": {}}',
        "file": "[1, 2]",
    }
    for field, text in cases.items():
        with pytest.raises(ValidationFailed) as raised:
            parse(text, fmt="json", name="f.json")
        assert raised.value.details["field"] == field

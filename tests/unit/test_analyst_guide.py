"""The Neo4j Browser guide and style (app/analyst/): one slide per query file with its exact
text, parameters that match what each query uses, placeholders the guide knows how to fill,
and a style rule with a meaningful caption for every label of the model."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from app.analyst.guide import ORDER, params_command, render_guide
from app.analyst.query_files import QUERIES_DIR, load_query_files, parse_query_file
from app.analyst.samples import BY_PARAMETER, PLACEHOLDERS
from app.analyst.style import STYLED, caption_properties, grass
from app.model import MODEL

SLIDE = re.compile(r'<slide class="row-fluid" data-query="([a-z0-9_]+)">(.*?)</slide>', re.S)
QUERY_BLOCK = re.compile(r'<pre class="code runnable query">(.*?)</pre>', re.S)
PARAMS_BLOCK = re.compile(r'<pre class="code runnable params">(.*?)</pre>', re.S)
FILES = load_query_files()


def _slides(page: str) -> dict[str, str]:
    return {name: body for name, body in SLIDE.findall(page)}


def test_every_query_file_has_a_slide_with_its_exact_query() -> None:
    page = render_guide(FILES, samples={}, style_url="http://localhost:1/s.grass", client=None)
    slides = _slides(page)
    assert set(slides) == {path.stem for path in QUERIES_DIR.glob("*.cypher")}
    for file in FILES:
        (query,) = QUERY_BLOCK.findall(slides[file.name])
        assert unescape(query) == file.query
        text = (QUERIES_DIR / f"{file.name}.cypher").read_text()
        assert text.rstrip().endswith(file.query)  # the whole query, from CYPHER 25 on


def test_a_new_query_file_gets_a_slide(tmp_path: Path) -> None:
    new = tmp_path / "fresh_traversal.cypher"
    new.write_text(
        "// What a fresh traversal finds.\n"
        "// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<lesson id>'\n"
        "CYPHER 25\nMATCH (n {id: $id, client_id: $client_id}) RETURN n\n"
    )
    file = parse_query_file(new)
    page = render_guide([*FILES, file], samples={}, style_url="http://x/s", client=None)
    assert "fresh_traversal" in _slides(page)
    assert file.name not in ORDER  # ordered last, still shown


def test_browser_parameters_are_exactly_those_each_query_uses() -> None:
    for file in FILES:
        named = [param.name for param in file.params]
        assert len(named) == len(set(named)), file.name
        assert set(named) == file.used_parameters, file.name


def test_every_placeholder_can_be_filled_from_a_client() -> None:
    for file in FILES:
        for param in file.params:
            if "<" in param.value:
                assert param.value in PLACEHOLDERS, (file.name, param.value)
            assert file.explanation and not file.explanation.startswith("Neo4j"), file.name


def test_params_command_uses_the_clients_values_and_keeps_the_rest() -> None:
    (trace,) = [file for file in FILES if file.name == "trace"]
    samples = {"client_id": "'c-1'", "variant": "'v-1'"}
    command = params_command(trace.params, samples)
    assert command.startswith(":params {client_id: 'c-1', id: 'v-1'")
    assert "<" not in command
    (rollup,) = [file for file in FILES if file.name == "metric_rollup_platform"]
    window = {"from": "datetime('2026-01-01T00:00:00Z')"}
    filled = params_command(rollup.params, window)
    assert "from: datetime('2026-01-01T00:00:00Z')" in filled
    assert "to: datetime('2026-03-01T00:00:00Z')" in filled  # the file's example, unfilled
    assert "client_id: '<client uuid>'" in filled
    assert set(BY_PARAMETER) <= {param.name for file in FILES for param in file.params}


@pytest.mark.parametrize("cls", MODEL, ids=lambda cls: cls.__name__)
def test_every_label_has_a_colour_and_a_caption_of_its_own_properties(cls: Any) -> None:
    assert cls.__name__ in STYLED
    properties = set(cls.defined_properties(rels=False, aliases=False))
    assert caption_properties(cls.__name__) <= properties
    assert caption_properties(cls.__name__) - {"created_at", "id"}  # says what the record is
    assert ":" not in STYLED[cls.__name__][1]  # Browser's GraSS parser would cut it there


def test_the_style_sheet_has_one_rule_per_label() -> None:
    sheet = grass()
    rules = re.findall(r"^node\.([A-Za-z]+) \{", sheet, re.M)
    assert rules == [cls.__name__ for cls in MODEL]
    assert "node.AssetVariant {" in sheet and "caption: '{platform} {format}';" in sheet
    assert set(STYLED) == {cls.__name__ for cls in MODEL}

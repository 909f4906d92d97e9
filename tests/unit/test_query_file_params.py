"""The query files of cypher/queries/ as Neo4j Browser runs them, read by the guide's parser
(app/analyst/query_files.py; tests/unit/test_analyst_guide.py checks that each file's
`:param` items are exactly the $names its query uses): continued comments parse, and the
graph-shaped files end with a `graph` column that the API switches off (api_params)."""

from __future__ import annotations

import re

import pytest

from app.analyst.query_files import QueryFile, load_query_files
from app.graph.cypher_files import api_params

FILES = {file.name: file for file in load_query_files()}
TABLES = {name for name in FILES if name.startswith("metric_rollup_")}


def _params(file: QueryFile) -> dict[str, str]:
    return {param.name: param.value for param in file.params}


def test_there_are_query_files() -> None:
    assert {"trace", "upstream", "constraints_in_force", "metric_rollup_plan"} <= set(FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_graph_shaped_files_end_with_a_graph_column_browser_switches_on(name: str) -> None:
    file = FILES[name]
    if name in TABLES:
        assert "graph" not in _params(file) and "$graph" not in file.query
        return
    assert _params(file)["graph"] == "true"
    tail = "\n".join(file.query.rstrip().splitlines()[-6:])
    assert re.search(r"CASE WHEN \$graph THEN .* END AS graph$", tail, re.S), name


def test_the_parser_reads_continued_comments() -> None:
    assert _params(FILES["neighbourhood"]) == {
        "client_id": "'<client uuid>'",
        "id": "'<record id>'",
        "hops": "2",
        "relations": "['SUPPORTS', 'CONTRADICTS', 'CAUSED', 'DERIVED_FROM', 'VALIDATES', "
        "'REPLY_TO', 'REFERENCE', 'FOLLOW_UP']",
        "labels": "null",
        "first": "100",
        "graph": "true",
    }
    assert _params(FILES["metric_rollup_plan"])["bucket"] == "null"  # "(or 'day', 'week')": a hint
    assert FILES["episode_tree"].used_parameters == {"client_id", "id", "max_depth", "graph"}


def test_api_params_switch_the_graph_column_off() -> None:
    given = {"id": "x", "client_id": "c"}
    assert api_params(given) == {"id": "x", "client_id": "c", "graph": False}
    assert given == {"id": "x", "client_id": "c"}

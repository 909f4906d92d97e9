"""The GraphiQL page `up` serves locally (app/api/edge/graphiql_page.py): strawberry's template
with the demo key in its fetcher's and editor's headers and our example operations; a template
without the lines it changes is an error."""

from __future__ import annotations

import json

import pytest

from app.api.edge.graphiql_assets import ide_html
from app.api.edge.graphiql_page import EXAMPLES, with_demo_key

KEY = "am_12345678_abcdefghijklmnopqrstuvwxyz"


def test_the_page_sends_and_shows_the_key_and_opens_on_the_examples() -> None:
    page = with_demo_key(ide_html(), KEY)
    assert f"const defaultHeaders = {json.dumps({'Authorization': f'Bearer {KEY}'})};" in page
    assert "React.useState(parameters.headers || " in page and f"Bearer {KEY}" in page
    assert "query RecentPlans" in page and "Welcome to GraphiQL" not in page
    assert "`" not in EXAMPLES  # the examples sit in a JS template literal
    assert page.count(KEY) == 2


def test_a_changed_template_is_an_error_not_an_unauthenticated_page() -> None:
    with pytest.raises(ValueError, match="GraphiQL's page changed"):
        with_demo_key(ide_html().replace("const defaultHeaders = {};", "let h = {};"), KEY)

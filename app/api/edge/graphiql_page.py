"""The GraphiQL page as `agentmem up` serves it on this machine: the demo key already in the
request headers (so the schema loads and the docs and autocomplete work at once, and the first
query answers instead of `UNAUTHENTICATED`), and example operations in the editor.

Only with Settings.graphiql_demo_key, which `up` sets for the API it serves on a loopback
address; `serve` never does. The page's script is strawberry's: the two lines changed here are
found by their exact text, and a template that no longer has them is an error, not a page
quietly left unauthenticated (tests/unit/test_graphiql_page.py).
"""

from __future__ import annotations

import json

DEFAULT_HEADERS = "const defaultHeaders = {};"
EDITOR_HEADERS = "React.useState(parameters.headers)"
EXAMPLE_START = "const EXAMPLE_QUERY = `"
EXAMPLES = """# agentmem: the demo client's admin key is in the Headers tab (local 'up' only).
# Pick an operation with the run button's menu, or put the cursor in one and press Ctrl-Enter.

query Viewer {
  viewer { clientId role agentName }
}

query RecentPlans {
  plans(first: 5) { totalCount edges { node { id name status createdAt } } }
}

mutation Remember {
  remember(input: {kind: SEMANTIC, text: "Dana prefers short captions", tags: ["preference"]}) {
    id kind text createdAt
  }
}

query Search {
  search(input: {text: "short captions", k: 5}) { hits { recordId recordType score why } }
}
"""


def with_demo_key(html: str, key: str) -> str:
    """strawberry's GraphiQL page with `key` sent on every request and shown in the Headers
    tab, and EXAMPLES as the editor's default document."""
    headers = {"Authorization": f"Bearer {key}"}
    shown = json.dumps(json.dumps(headers, indent=2))  # a JS string holding the headers' JSON
    for marker in (DEFAULT_HEADERS, EDITOR_HEADERS, EXAMPLE_START):
        if html.count(marker) != 1:
            raise ValueError(f"GraphiQL's page changed: {marker!r} is not found once in it")
    html = html.replace(DEFAULT_HEADERS, f"const defaultHeaders = {json.dumps(headers)};")
    html = html.replace(EDITOR_HEADERS, f"React.useState(parameters.headers || {shown})")
    start = html.index(EXAMPLE_START) + len(EXAMPLE_START)
    end = html.index("`;", start)
    return html[:start] + EXAMPLES + html[end:]

"""The named queries of cypher/queries/ as analysts meet them: each file's explanation (its first
comment sentence), the parameters its `// Neo4j Browser: :param NAME => VALUE; ...` comment
names (placeholders such as '<variant id>' included), and the query text from `CYPHER 25` on.
Parsed from the very files the API runs, so the guide cannot drift from them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from app.graph.cypher_files import CYPHER_DIR

QUERIES_DIR = CYPHER_DIR / "queries"
BROWSER_MARK = "Neo4j Browser:"
PARAM = re.compile(r":param\s+([a-z_][a-z0-9_]*)\s*=>\s*(.+?)\s*(?=;?\s*:param\s|;?\s*$)", re.S)
# "null (or ['impressions'])": the value, then a hint of other values for the reader.
HINT = re.compile(r"\s+\(or\s.*\)$", re.S)
QUERY_START = re.compile(r"^CYPHER\s+\d+\s*$", re.M)
PARAMETER_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


@dataclass(frozen=True)
class BrowserParam:
    name: str
    value: str  # Cypher expression text, e.g. "'<variant id>'" or "datetime('2026-02-01...')"


@dataclass(frozen=True)
class QueryFile:
    name: str
    explanation: str
    params: tuple[BrowserParam, ...]
    query: str

    @property
    def used_parameters(self) -> set[str]:
        """The $names the query text uses (comment lines and strings left out)."""
        code = "\n".join(
            line for line in self.query.splitlines() if not line.strip().startswith("//")
        )
        return set(PARAMETER_USE.findall(STRING.sub("''", code)))


@cache
def load_query_files(directory: Path = QUERIES_DIR) -> tuple[QueryFile, ...]:
    """Read once per process, as named_query reads the files the API runs."""
    return tuple(parse_query_file(path) for path in sorted(directory.glob("*.cypher")))


def parse_query_file(path: Path) -> QueryFile:
    text = path.read_text(encoding="utf-8")
    start = QUERY_START.search(text)
    if start is None:
        raise ValueError(f"{path.name}: the query must start with a `CYPHER 25` line")
    header = [_uncomment(line) for line in text[: start.start()].splitlines()]
    return QueryFile(
        name=path.stem,
        explanation=_first_sentence(header),
        params=_browser_params(header, path.name),
        query=text[start.start() :].strip(),
    )


def _uncomment(line: str) -> str:
    return line.strip().removeprefix("//").strip()


def _first_sentence(header: list[str]) -> str:
    """The header's text up to its first full stop (or the blank line or parameter line that
    ends its first paragraph)."""
    words: list[str] = []
    for line in header:
        if not line or line.startswith(BROWSER_MARK):
            break
        words.append(line)
    paragraph = " ".join(words)
    found = re.search(r"^(.+?[.?!])(\s|$)", paragraph)
    return (found.group(1) if found else paragraph).strip()


def _browser_params(header: list[str], file_name: str) -> tuple[BrowserParam, ...]:
    """The `:param` items of the Browser comment: its line and the lines continuing it (those
    that start with `:param` or carry on a value whose brackets are still open)."""
    block: list[str] = []
    for line in header:
        if line.startswith(BROWSER_MARK):
            block.append(line.removeprefix(BROWSER_MARK))
        elif block and (line.startswith(":param") or _open_brackets(" ".join(block))):
            block.append(line)
        elif block:
            break
    if not block:
        raise ValueError(f"{file_name}: no `// {BROWSER_MARK} :param ...` comment")
    found = PARAM.findall(" ".join(block))
    return tuple(
        BrowserParam(name, HINT.sub("", value).rstrip(";").strip()) for name, value in found
    )


def _open_brackets(text: str) -> bool:
    return text.count("[") > text.count("]") or text.count("(") > text.count(")")

"""The Neo4j Browser guide (`:guide <url>` or `:play <url>`): an opening slide that loads the
style, then one slide per file of cypher/queries/ with its explanation, a `:params` block filled
with a client's real ids, and the file's query, both click-to-run. Browser reads `<slide>`
elements and makes `pre.runnable` blocks put their text in its editor."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from app.analyst.query_files import BrowserParam, QueryFile
from app.analyst.samples import BY_PARAMETER, PLACEHOLDERS

# Slides in the order an analyst asks: why was this published, where did it come from and go,
# what did the agents do and learn, the neighbourhood, the numbers, the rules. A file not named
# here still gets its slide, after these.
ORDER = (
    "trace",
    "upstream",
    "downstream",
    "constraints_in_force",
    "replay",
    "episode_tree",
    "lessons_from_agent_platform",
    "contradictions",
    "episodes_causing_failure",
    "neighbourhood",
    "metric_rollup_platform",
    "metric_rollup_plan",
    "metric_rollup_asset",
    "metric_rollup_variant",
)


def ordered(files: Sequence[QueryFile]) -> list[QueryFile]:
    rank = {name: index for index, name in enumerate(ORDER)}
    return sorted(files, key=lambda file: (rank.get(file.name, len(ORDER)), file.name))


def params_command(params: tuple[BrowserParam, ...], samples: dict[str, str]) -> str:
    """`:params {...}` with the client's values where it has them, the file's example values
    (placeholders included) where it does not."""
    items = [f"{param.name}: {_value(param, samples)}" for param in params]
    return ":params {" + ", ".join(items) + "}"


def _value(param: BrowserParam, samples: dict[str, str]) -> str:
    sample = BY_PARAMETER.get(param.name) or PLACEHOLDERS.get(param.value)
    return samples.get(sample, param.value) if sample else param.value


def title(file: QueryFile) -> str:
    return file.name.replace("_", " ").capitalize()


def render_guide(
    files: Sequence[QueryFile], *, samples: dict[str, str], style_url: str, client: str | None
) -> str:
    slides = [_opening(files, style_url=style_url, client=client, filled=bool(samples))]
    slides += [_slide(file, samples) for file in ordered(files)]
    return (
        '<article class="guide">\n<carousel class="deck container-fluid">\n'
        + "".join(slides)
        + "</carousel>\n</article>\n"
    )


def _opening(
    files: Sequence[QueryFile], *, style_url: str, client: str | None, filled: bool
) -> str:
    whose = (
        f"Parameters are filled with real ids of the client <b>{escape(client)}</b>."
        if client and filled
        else "Parameters show placeholders: replace them with a client's ids "
        "(`up` fills them from the demo client)."
    )
    contents = "".join(f"<li>{escape(title(file))}</li>" for file in ordered(files))
    return f"""<slide class="row-fluid">
<div class="col-sm-12">
<h3>Lineage of the agents' memory</h3>
<p>Every slide is one named query of <code>cypher/queries/</code>, the same text the GraphQL API
runs. Click a block to put it in the editor, then run it: first the <code>:params</code> block,
then the query. Lineage queries return their records as a graph (<code>graph: true</code>).</p>
<p>{whose} Every query is scoped by <code>$client_id</code>.</p>
<p>First load the style (colours and captions per label):</p>
<pre class="code runnable">:style {escape(style_url)}</pre>
<ol>{contents}</ol>
</div>
</slide>
"""


def _slide(file: QueryFile, samples: dict[str, str]) -> str:
    return f"""<slide class="row-fluid" data-query="{escape(file.name)}">
<div class="col-sm-12">
<h3>{escape(title(file))}</h3>
<p class="explanation">{escape(file.explanation)}</p>
<p>1. Set its parameters:</p>
<pre class="code runnable params">{escape(params_command(file.params, samples))}</pre>
<p>2. Run it (<code>cypher/queries/{escape(file.name)}.cypher</code>):</p>
<pre class="code runnable query">{escape(file.query)}</pre>
</div>
</slide>
"""

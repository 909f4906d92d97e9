"""Episode reads that are named traversals, one Cypher query each (cypher/queries/), plus the
agent by name and a presigned URL for an episode's log."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.episodes import outputs as o
from app.api.read.nodes import load_written
from app.api.resolve import run
from app.api.types.agents import Agent, AgentEpisode
from app.domain import agents, episodes
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.ids import check_id
from app.graph.cypher_files import api_params, named_query
from app.graph.values import plain

MAX_TREE_DEPTH = 32  # the literal upper bound in cypher/queries/episode_tree.cypher


async def run_named(info: Info, name: str, record_id: str, **params: int) -> dict:
    scope = {"id": check_id(record_id), "client_id": info.context.caller().client_id}
    rows = await info.context.graph.read(named_query(name), api_params(scope | params))
    if not rows:
        raise NotFound(f"no agent episode with id {record_id}", id=record_id)
    return dict(plain(rows[0]))


@strawberry.type
class EpisodeQueries:
    @strawberry.field(description="The client's agent by name (the API key's agent by default).")
    async def agent_by_name(self, info: Info, name: str | None = None) -> Agent:
        return await load_written(info, Agent, await run(info, agents.get_agent_by_name, name=name))

    @strawberry.field(description="An episode's path to the root and its subtree, one query.")
    async def episode_tree(
        self, info: Info, id: strawberry.ID, max_depth: int = 5
    ) -> o.EpisodeTree:
        if not 1 <= max_depth <= MAX_TREE_DEPTH:
            raise ValidationFailed(f"maxDepth must be 1-{MAX_TREE_DEPTH}", field="maxDepth")
        row = await run_named(info, "episode_tree", id, max_depth=max_depth)
        path = [AgentEpisode.from_row(r) for r in row["ancestors"]]
        episode = AgentEpisode.from_row(row["episode"])
        entries = [
            o.EpisodeTreeEntry(
                depth=d["depth"],
                has_children=d["has_children"],
                episode=AgentEpisode.from_row(d["episode"]),
            )
            for d in row["descendants"]
        ]
        return o.EpisodeTree(
            episode=episode,
            path_to_root=path,
            root=path[-1] if path else episode,
            descendants=entries,
            truncated=any(e.has_children and e.depth == max_depth for e in entries),
        )

    @strawberry.field(
        description="Everything needed to replay an episode (inputs, hydrated reads flagged when "
        "changed since, writes, constraints snapshots, log location and checksum), one query."
    )
    async def replay_episode(self, info: Info, id: strawberry.ID) -> o.EpisodeReplay:
        row = await run_named(info, "replay", id)
        episode = AgentEpisode.from_row(row["episode"])
        return o.EpisodeReplay(
            episode=episode,
            agent=Agent.from_row(row["agent"]) if row["agent"] else None,
            parent=AgentEpisode.from_row(row["parent"]) if row["parent"] else None,
            children=[AgentEpisode.from_row(child) for child in row["children"]],
            input_refs=episode.input_refs,
            retrieval_refs=episode.retrieval_refs,
            reads=[o.episode_link(link) for link in row["reads"]],
            writes=[o.episode_link(link) for link in row["writes"]],
            snapshots=[o.replay_snapshot(snapshot) for snapshot in row["snapshots"]],
            log=o.ToolCallLog(
                episode_id=episode.id,
                uri=episode.tool_call_log_uri,
                sha256=episode.tool_call_log_sha256,
                tool_calls=int(row["episode"].get("tool_call_count") or 0),
            ),
        )

    @strawberry.field(description="A presigned GET URL for a closed episode's tool-call log.")
    async def episode_tool_call_log_url(
        self, info: Info, id: strawberry.ID, expires_s: int = 900
    ) -> str:
        return await run(info, episodes.tool_call_log_url, episode_id=id, expires_s=expires_s)

"""What `agentmem up` adds to serving: a ready API key for the demo client and the banner that
tells a new user where everything is."""

from __future__ import annotations

from app.cli.admin import reuse_or_issue_key
from app.model.enums import Role
from app.settings import Settings

DEMO_CLIENT = "demo"


async def demo_key(settings: Settings) -> str:
    """A ready API key for the demo client, kept in the cache folder so restarts reuse it."""
    path = settings.cache_dir / "demo-api-key"
    saved = path.read_text().strip() if path.exists() else None
    key = await reuse_or_issue_key(
        settings, saved=saved, client=DEMO_CLIENT, role=Role.ADMIN, agent_name="demo-agent"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


def print_banner(settings: Settings, key: str) -> None:
    api = f"http://{settings.api_host}:{settings.api_port}"
    lines = [
        "",
        "agentmem is starting",
        f"  GraphQL + GraphiQL  {api}/graphql   (subscriptions: ws on the same path)",
        f"  web console         {api}/console   (asks for an API key, e.g. the demo key)",
        f"  MCP (HTTP)          {api}/mcp   (stdio: agentmem mcp --key KEY)",
        f"  health / ready      {api}/healthz   {api}/readyz",
        f"  Neo4j Browser       http://127.0.0.1:{settings.neo4j_http_port}/browser/",
        f"  Bolt                {settings.neo4j_uri}  (user {settings.neo4j_user})",
        f"  S3 endpoint         http://{settings.s3_endpoint}  bucket {settings.s3_bucket}",
        f"  demo API key        {key}",
        "  GraphiQL opens with the demo key in its Headers tab and example operations;",
        f'  elsewhere send the header  {{"Authorization": "Bearer {key}"}}',
        "  Ctrl-C stops the API and the local servers.",
        "",
    ]
    print("\n".join(lines), flush=True)

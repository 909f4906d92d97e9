"""What `agentmem up` adds to serving: a ready API key for the demo client and the banner that
tells a new user where everything is."""

from __future__ import annotations

from app.cli.admin import reuse_or_issue_key
from app.demo.generator import run_demo
from app.domain.kernel.errors import Conflict
from app.model.enums import Role
from app.settings import Settings
from app.web.analyst import GUIDE_PATH

DEMO_CLIENT = "demo"
DEMO_PLANS = 20  # ~10-20 s here: enough for every slide of the Browser guide to show real data


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


async def demo_data(settings: Settings) -> None:
    """Demo plans for the demo client on the first `up` (later ones find them and go on)."""
    try:
        await run_demo(settings, client=DEMO_CLIENT, plans=DEMO_PLANS)
    except Conflict:
        return
    print(f"the demo client has {DEMO_PLANS} demo plans", flush=True)


def guide_command(settings: Settings) -> str:
    """What an analyst types in Neo4j Browser. `localhost`: the host Browser fetches guides
    from by default (its remote-content allowlist)."""
    return f":guide http://localhost:{settings.api_port}{GUIDE_PATH}"


def print_banner(settings: Settings, key: str) -> None:
    api = f"http://{settings.api_host}:{settings.api_port}"
    lines = [
        "",
        "agentmem is starting",
        f"  GraphQL + GraphiQL  {api}/graphql   (subscriptions: ws on the same path)",
        f"  web console         {api}/console   (asks for an API key, e.g. the demo key)",
        f"  MCP (HTTP)          {api}/mcp   (stdio: agentmem mcp --key KEY)",
        f"  health / ready      {api}/healthz   {api}/readyz",
        f"  Neo4j Browser       http://localhost:{settings.neo4j_http_port}/browser/",
        f"  analysts' guide     {guide_command(settings)}   (type it in Neo4j Browser)",
        f"  Bolt                {settings.neo4j_uri}  (user {settings.neo4j_user})",
        f"  S3 endpoint         http://{settings.s3_endpoint}  bucket {settings.s3_bucket}",
        f"  demo API key        {key}",
        "  GraphiQL opens with the demo key in its Headers tab and example operations;",
        f'  elsewhere send the header  {{"Authorization": "Bearer {key}"}}',
        "  Ctrl-C stops the API and the local servers.",
        "",
    ]
    print("\n".join(lines), flush=True)

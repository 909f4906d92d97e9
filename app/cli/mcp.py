"""`agentmem mcp [--key KEY]`: the MCP server on stdio (app/mcp/stdio.py)."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from app.settings import Settings

KEY_VARIABLE = "AGENTMEM_API_KEY"


def add_mcp_parser(commands: Any) -> None:
    mcp = commands.add_parser("mcp", help="serve MCP tools on stdio for a desktop agent host")
    mcp.add_argument("--key", default=None, help=f"the agent's API key (default: ${KEY_VARIABLE})")


def run_mcp(settings: Settings, args: argparse.Namespace) -> int:
    from app.mcp.stdio import serve_stdio

    key = args.key or os.environ.get(KEY_VARIABLE)
    if not key:
        raise SystemExit(f"agentmem mcp: give the agent's API key with --key or ${KEY_VARIABLE}")
    return asyncio.run(serve_stdio(settings, key))

"""The `agentmem` command (commands.py) and what its commands run: one-shot administration
(admin.py), API keys (keys.py), constraint document files (constraints.py), the search index
(index.py) and `up`'s demo key and banner."""

from app.cli.commands import main

__all__ = ["main"]

"""The asset graph and publishing (seed 000, 4): assets, variants, prompts, approvals, publish
packages and runs, with their status machines."""

from app.domain.assets.approvals import create_approval, decide_approval
from app.domain.assets.prompts import create_prompt, prompt_text, prompt_text_url
from app.domain.assets.publish_runs import add_evidence, finish_run, start_run
from app.domain.assets.publishing import create_package, transition_package, update_package
from app.domain.assets.repository import create_asset, transition_asset, update_asset
from app.domain.assets.variants import create_variant, transition_variant, update_variant

__all__ = [
    "add_evidence",
    "create_approval",
    "create_asset",
    "create_package",
    "create_prompt",
    "create_variant",
    "decide_approval",
    "finish_run",
    "prompt_text",
    "prompt_text_url",
    "start_run",
    "transition_asset",
    "transition_package",
    "transition_variant",
    "update_asset",
    "update_package",
    "update_variant",
]

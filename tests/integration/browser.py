"""A real headless Chromium for the web pages' tests: Debian's `chromium`, driven by Playwright
through its executable path (a browser download fails here), with the flags this machine needs.
Screenshots go to tests/artifacts/ (ignored by git), kept after the run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("Debian's chromium is not installed: `.ci/run` installs it (apt-get chromium)")
    return found


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser for the block. Not a fixture: Playwright's sync API keeps an event loop
    running while it is open, where `asyncio.run` (the key fixtures) cannot run, so a test
    opens it after its set-up and closes it before its end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=FLAGS
        )
        yield launched
        launched.close()


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path

"""GraphiQL's scripts and styles, served locally: strawberry's page loads them from a CDN,
which machines without general internet access cannot reach.

The packages come from the npm registry (`npm pack`) into the cache folder, once.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from strawberry.http.ides import get_graphql_ide_html

from app.settings import Settings

CDN = "https://unpkg.com/"
LOCAL_PREFIX = "/graphiql-assets/"
CDN_ASSET = re.compile(r"https://unpkg\.com/((?:@[\w.-]+/)?[\w.-]+@[\w.-]+)/([\w./-]+)")


def ide_html() -> str:
    return get_graphql_ide_html(graphql_ide="graphiql")


def assets_dir(settings: Settings) -> Path:
    return settings.cache_dir / "graphiql-assets"


def wanted_assets(html: str) -> list[tuple[str, str]]:
    """(package@version, path inside the package) for every CDN asset the page loads."""
    return sorted(set(CDN_ASSET.findall(html)))


def complete(directory: Path, html: str) -> bool:
    return all((directory / spec / path).is_file() for spec, path in wanted_assets(html))


def localised(html: str) -> str:
    return html.replace(CDN, LOCAL_PREFIX)


def local_assets(settings: Settings) -> Path | None:
    """The asset folder if it already holds everything the page needs (no fetching)."""
    directory = assets_dir(settings)
    return directory if complete(directory, ide_html()) else None


def provision_graphiql_assets(settings: Settings) -> Path | None:
    """The folder holding every asset `html` needs, fetched if missing; None if npm fails."""
    html = ide_html()
    directory = assets_dir(settings)
    if complete(directory, html):
        return directory
    if shutil.which("npm") is None:
        print(
            "[graphiql] npm not found; GraphiQL will load its assets from the CDN", file=sys.stderr
        )
        return None
    for spec in sorted({spec for spec, _ in wanted_assets(html)}):
        if not (directory / spec).is_dir():
            print(f"[graphiql] fetching {spec} from the npm registry ...", file=sys.stderr)
            try:
                _unpack(spec, directory / spec)
            except (OSError, subprocess.CalledProcessError, tarfile.TarError) as error:
                print(
                    f"[graphiql] could not fetch {spec} ({error}); using the CDN", file=sys.stderr
                )
                return None
    return directory if complete(directory, html) else None


def _unpack(spec: str, target: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            ["npm", "pack", "--silent", spec], cwd=scratch, check=True, capture_output=True
        )
        (tarball,) = Path(scratch).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(scratch) / "package"), target)

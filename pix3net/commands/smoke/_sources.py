"""Source maps of the game page's scripts, fetched from the dev server that served them
(docs/smoke.md, "Stacks"). Vite serves every transformed module with an inline map; a plain
JavaScript page usually has none, and its stacks already name the project's files.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from pix3net.commands.smoke._collect import PAGE_SCRIPT_URL
from pix3tools.smoke import (
    SourceMap,
    SourceMapError,
    decode_data_url,
    map_location,
    map_url_of,
    rewrite_stack,
    stack_urls,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["Locate", "SourceMaps"]

# (url, 1-based line, 1-based column) → the project location, or None.
Locate = Callable[[str, int, int], tuple[str, int, int] | None]

FETCH_SECONDS = 5.0
MAX_SCRIPT_BYTES = 32 * 1024 * 1024  # a script or map beyond this is not read for a stack


class SourceMaps:
    """Per invocation: each script URL is fetched once; its map (or None) is kept."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._maps: dict[str, tuple[SourceMap | None, str]] = {}

    async def _get(self, client: httpx.AsyncClient, url: str) -> str | None:
        import httpx

        try:
            reply = await client.get(url)
        except (httpx.HTTPError, OSError, ValueError):
            return None
        if not reply.is_success or len(reply.content) > MAX_SCRIPT_BYTES:
            return None
        return reply.text

    async def _load(self, client: httpx.AsyncClient, url: str) -> tuple[SourceMap | None, str]:
        script = await self._get(client, url)
        where = map_url_of(script) if script is not None else None
        if where is None:
            return None, url
        if where.startswith("data:"):
            text, map_url = decode_data_url(where), url
        else:
            map_url = urljoin(url, where)
            text = await self._get(client, map_url) if urlsplit(map_url).scheme in ("http", "https") else None
        if text is None:
            return None, url
        try:
            return SourceMap(text), map_url
        except SourceMapError:
            return None, url

    async def _ensure(self, urls: set[str], origin: str) -> None:
        """Load the maps of the scripts ``urls`` names on the dev server at ``origin`` (once each)."""
        wanted = {url for url in urls if url.startswith(origin + "/") and url not in self._maps}
        if wanted:
            import httpx  # only when a stack needs it: a clean run never loads it

            async with httpx.AsyncClient(trust_env=False, verify=False, timeout=FETCH_SECONDS) as client:
                for url in sorted(wanted):
                    self._maps[url] = await self._load(client, url)

    def _locate(self, origin: str) -> Locate:
        def locate(url: str, line: int, column: int) -> tuple[str, int, int] | None:
            source_map, map_url = self._maps.get(url, (None, url))
            return map_location(source_map, map_url, url, line, column, origin, self.root)

        return locate

    async def locator(self, urls: set[str], origin: str) -> Locate:
        """A ``locate`` for the scripts ``urls`` (their maps loaded first): the paused frames of a
        loop are named with it (``pix3tools.smoke.spin_frames``)."""
        await self._ensure(urls, origin)
        return self._locate(origin)

    async def map_stacks(self, errors: list[dict[str, Any]], origin: str) -> None:
        """Rewrite each error's ``stack`` in place to name project files (through the maps)."""
        urls = {url for error in errors if isinstance(error.get("stack"), str) for url in stack_urls(error["stack"])}
        locate = await self.locator(urls, origin)
        for error in errors:
            if isinstance(error.get("stack"), str):
                error["stack"] = rewrite_stack(error["stack"], locate, lambda url: url == PAGE_SCRIPT_URL)

"""The front door in front of a Vite with known `server.fs` bypasses (6.2.0, pinned in tests/node as
`vite-6.2.0`): every probe of docs/devserver.md's CVE table is sent to Vite's own port, where it
must leak (or the probe proves nothing), and through our port, where it must not.

Also the DNS-rebinding names against every kind of route, and the HMR socket's `vite:invoke`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import trio
import trio_websocket

from tests.support.devserver import DevServer, dev_server, hello
from tests.support.projects import make_project

pytestmark = [pytest.mark.node, pytest.mark.slow]

OLD_VITE = "vite-6.2.0"  # the npm alias in tests/node/package.json
# One marker per planted secret: seen in an answer (decoded from base64 too) means it leaked.
MARKERS = ("pix3-leak-env", "pix3-leak-pem", "pix3-leak-crt", "pix3-leak-git", "pix3-leak-out", "pix3-leak-public")


@dataclass
class OldVite:
    server: DevServer
    vite_port: int
    outside: Path

    @property
    def root(self) -> Path:
        return self.server.root


def _plant(root: Path, outside: Path) -> None:
    """A game with the secrets Vite denies by default, and secrets beside it (docs/devserver.md)."""
    make_project(
        root,
        {
            "package.json": '{"name": "game", "private": true, "type": "module"}\n',
            "index.html": '<!doctype html><script type="module" src="/src/main.js"></script>\n',
            "src/main.js": 'export const msg = "v1";\n',
            ".env": "SECRET_ENV=pix3-leak-env\n",
            "key.pem": "-----BEGIN PRIVATE KEY-----\npix3-leak-pem\n-----END PRIVATE KEY-----\n",
            "server.crt": "pix3-leak-crt\n",
            ".git/config": '[remote "origin"]\n\turl = https://pix3-leak-git@example.com/game.git\n',
            # CVE-2025-58751: a link in the public folder, and a sibling whose name starts with its name
            "public-x/.env": "SECRET=pix3-leak-public\n",
        },
    )
    (root / "public").mkdir()
    (root / "public" / "link").symlink_to("../src")
    outside.mkdir()
    (outside / "secret.txt").write_text("pix3-leak-out\n")
    (outside / "secret.html").write_text("<p>pix3-leak-out</p>\n")
    (outside / "secret.map").write_text('{"version":3,"sources":[],"mappings":"","x":"pix3-leak-out"}\n')
    # Vite 6 inlines a small SVG as a data URL, judged by the path's extension (issue 31, item 4)
    (outside / "secret.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>pix3-leak-out</text></svg>\n')


@pytest.fixture(scope="module")
def old_vite(tmp_path_factory: pytest.TempPathFactory, node_modules: Path) -> Iterator[OldVite]:
    package = node_modules / OLD_VITE
    try:
        version = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        pytest.fail(f"{OLD_VITE} is missing in {node_modules}: run `just setup` (npm ci in tests/node)")
    assert version == "6.2.0"
    base = tmp_path_factory.mktemp("old-vite")
    root, outside = base / "game", base / "outside"
    _plant(root, outside)
    (root / "node_modules").mkdir()
    (root / "node_modules" / "vite").symlink_to(package)  # what the dev server's Vite lookup finds
    with dev_server(root, wait_vite=True) as server:
        info = hello(server)
        assert info["versions"]["vite"] == "6.2.0"
        argv = Path(f"/proc/{info['vite']['pid']}/cmdline").read_bytes().split(b"\0")
        yield OldVite(server, int(argv[argv.index(b"--port") + 1]), outside)


def _get(port: int, target: str, host: str | None = None, headers: str = "") -> tuple[int, bytes]:
    """One GET with the target exactly as given (no client normalises it), read to the end."""
    host_line = f"Host: {host or f'127.0.0.1:{port}'}\r\n" if host != "" else ""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\n{host_line}{headers}Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.partition(b"\r\n\r\n")[2]


def _leaked(body: bytes) -> list[str]:
    """The markers in ``body``, also inside base64 (a data URL; `?inline` nests one in another)."""
    texts = [body]
    for _ in range(2):
        texts += [
            base64.b64decode(found + b"=" * (-len(found) % 4))
            for text in texts
            for found in re.findall(rb"base64,([A-Za-z0-9+/=]+)", text)
        ]
    joined = b"\n".join(texts).decode("utf-8", "replace")
    return [marker for marker in MARKERS if marker in joined]


# (CVE, probe); `{root}` and `{out}` are the project and the folder beside it, `{up}` the way up
# from node_modules/.vite/deps to that folder's parent.
LEAKING_PROBES = [
    ("CVE-2025-30208", "/@fs{out}/secret.txt?import&raw??"),
    ("CVE-2025-30208", "/.env?raw??"),
    ("CVE-2025-30208", "/.env?import&raw??"),
    ("CVE-2025-30208", "/.git/config?raw??"),
    ("CVE-2025-30208", "/server.crt?import&raw??"),
    ("CVE-2025-31125", "/@fs{out}/secret.txt?raw?import"),
    ("CVE-2025-31125", "/@fs{out}/secret.txt?inline&import"),
    ("CVE-2025-31125", "/@fs{out}/secret.txt?import&?inline=1.wasm?init"),
    ("CVE-2025-31125", "/.env?raw?import"),
    ("CVE-2025-31125", "{out}/secret.txt?raw?import"),
    ("CVE-2025-31125", "{out}/secret.txt?import&inline"),
    ("CVE-2025-31125", "/@id/{out}/secret.txt?import&raw??"),
    ("CVE-2025-31125", "/@id/.env?raw?import"),
    ("CVE-2025-31486", "/.env?.svg?.wasm?init"),
    ("CVE-2025-31125", "/.env?import&?inline=1.wasm?init"),
    ("CVE-2025-31486", "/src/../.env?raw?import"),
    ("CVE-2025-31486", "/src/%2e%2e/.env?raw?import"),
    ("CVE-2025-31486", "/%2eenv?raw?import"),
    ("CVE-2025-32395", "/@fs{root}/#/../../outside/secret.txt"),
    ("CVE-2025-46565", "/.env/."),
    ("CVE-2025-46565", "/key.pem/."),
    ("CVE-2025-58751", "/../public-x/.env"),
    ("CVE-2025-58751", "/%2e%2e/public-x/.env"),
    ("CVE-2025-58752", "/../outside/secret.html"),
    ("CVE-2025-58752", "/%2e%2e/outside/secret.html"),
    ("CVE-2026-39365", "/node_modules/.vite/deps/../../../../outside/secret.map"),
    # Dot segments after a `?`: Vite normalises the whole id, query and all (issue 31, item 2)
    ("dots after ?", "/@fs{root}/?/../../outside/secret.txt?import&?raw"),
    ("dots after ?", "/@fs{root}/?/%2e%2e/%2e%2e/outside/secret.txt?import&?raw"),
    # An SVG outside the project, whatever the query or the header (issue 31, item 4)
    ("outside svg", "{out}/secret.svg?import"),
    ("outside svg", "{out}/secret.svg?import&t=1"),
    ("outside svg", "/@id/{out}/secret.svg?import"),
    ("outside svg", "/{out}/secret.svg?import"),
    ("outside svg", "{out}/secret.svg?import&inline-x"),
    ("outside svg", "{out}/secret.svg?import&inline."),
    ("outside svg", "{out}/secret.svg|Sec-Fetch-Dest: script"),
]
# Probes 6.2.0 on Linux does not fall for (CVE-2025-62522 is Windows' `\`; CVE-2026-39364's plain
# queries came with a later Vite): still refused by us, as the rules say, with no control.
OTHER_PROBES = [
    ("CVE-2025-62522", "/.env\\"),
    ("CVE-2025-62522", "/key.pem\\"),
    ("CVE-2026-39364", "/.env?raw"),
    ("CVE-2026-39364", "/.env?import&raw"),
    ("CVE-2026-39364", "/.env?import&url&inline"),
    ("deny list", "/.env"),
    ("deny list", "/.git/config"),
    ("deny list", "/key.pem"),
    ("deny list", "/@fs{root}/.env"),
    ("serving roots", "/@fs{out}/secret.txt"),
    # Issue 31: 6.2.0 answers these 403 itself (its `/` and `?url` checks); refused by us all the same
    ("dots after ?", "/?/../..{out}/secret.txt?import&?raw"),
    ("outside svg", "{out}/secret.svg?import&url&inline-x"),
    ("outside svg", "/@id{out}/secret.svg?import"),
    ("outside file", "{out}/secret.txt"),
]


def _target(old: OldVite, probe: str) -> str:
    return probe.format(root=old.root, out=old.outside)


def _probe(old: OldVite, probe: str) -> tuple[str, str]:
    """The target and the header lines of a probe (`target|Name: value`)."""
    target, _, header = _target(old, probe).partition("|")
    return target, f"{header}\r\n" if header else ""


@pytest.mark.parametrize(("cve", "probe"), LEAKING_PROBES, ids=[f"{c}:{p}" for c, p in LEAKING_PROBES])
def test_a_probe_that_leaks_from_vite_leaks_nothing_through_us(old_vite: OldVite, cve: str, probe: str) -> None:
    target, headers = _probe(old_vite, probe)
    status, body = _get(old_vite.vite_port, target, headers=headers)
    assert _leaked(body), f"{cve}: the control leaked nothing on Vite's own port (HTTP {status}): {target}"
    status, body = _get(old_vite.server.port, target, headers=headers)
    assert (status, _leaked(body)) == (404, []), f"{cve}: {target}"
    assert json.loads(body) == {"error": "not_found", "message": "Not found."}


@pytest.mark.parametrize(("cve", "probe"), OTHER_PROBES, ids=[f"{c}:{p}" for c, p in OTHER_PROBES])
def test_the_other_probes_are_refused(old_vite: OldVite, cve: str, probe: str) -> None:
    target, headers = _probe(old_vite, probe)
    status, body = _get(old_vite.server.port, target, headers=headers)
    assert (status, _leaked(body)) == (404, []), cve


def test_the_project_is_still_served(old_vite: OldVite) -> None:
    """What a page loads goes through: the page, its module, Vite's client, the project's own
    files with the queries Vite itself writes."""
    port = old_vite.server.port
    status, body = _get(port, "/")
    assert status == 200 and b"/@vite/client" in body
    status, body = _get(port, "/src/main.js")
    assert status == 200 and b'export const msg = "v1"' in body
    assert _get(port, "/@vite/client")[0] == 200
    status, body = _get(port, "/src/main.js?import&raw")
    assert status == 200 and b"export const msg" in body
    assert _get(port, f"/@fs{old_vite.root}/src/main.js")[0] == 200
    assert _get(port, "/src/main.js", host=f"localhost:{port}")[0] == 200
    assert _get(port, "/src/main.js", host=f"127.0.0.2:{port}")[0] == 200


REBINDING = ("127.evil.example", "127.0.0.1.nip.io", "attacker.example")


@pytest.mark.parametrize("name", REBINDING)
@pytest.mark.parametrize(
    "target", ["/__pix3/api/hello", "/__pix3/api/file?path=src/main.js", "/", "/src/main.js", "/@vite/client"]
)
def test_rebinding_names_get_nothing(old_vite: OldVite, name: str, target: str) -> None:
    status, body = _get(old_vite.server.port, target, host=f"{name}:{old_vite.server.port}")
    assert (status, json.loads(body)["error"]) == (403, "forbidden_host"), target


def test_a_missing_or_duplicated_host_gets_nothing(old_vite: OldVite) -> None:
    """Hypercorn's parser refuses both before we see them (HTTP/1.1 needs exactly one Host); the
    dispatcher's own rule is the same (tests/unit/test_hosts.py)."""
    port = old_vite.server.port
    for answer in (_get(port, "/.env", host=""), _get(port, "/.env", headers=f"Host: 127.0.0.1:{port}\r\n")):
        assert answer[0] == 400 and not _leaked(answer[1])


async def _hmr(port: int, host: str | None, message: str | None) -> list[str]:
    """Vite's HMR socket on ``port``, `Host` ``host``: what arrives in 3 s after sending
    ``message``, then how it closed. No Origin, as the advisory's client: Vite then asks for no token."""
    got: list[str] = []
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        async with trio.open_nursery() as nursery:
            ws = await trio_websocket.wrap_client_stream(
                nursery, stream, host or f"127.0.0.1:{port}", "/", subprotocols=["vite-hmr"]
            )
            if message is not None:
                await ws.send_message(message)
            with trio.move_on_after(3), contextlib.suppress(trio_websocket.ConnectionClosed):
                while True:
                    reply = await ws.get_message()
                    got.append(reply if isinstance(reply, str) else reply.decode())
            if ws.closed is not None:
                got.append(f"closed {ws.closed.code}")
            await ws.aclose()
    finally:
        await stream.aclose()
    return got


def _invoke(module_id: str) -> str:
    call = {"id": "send:1", "name": "fetchModule", "data": [module_id]}
    return json.dumps({"type": "custom", "event": "vite:invoke", "data": call})


@pytest.mark.parametrize(
    "module_id", ["file://{out}/secret.txt?raw", "{root}/.env?raw", "/.env?raw", "/.git/config?raw"]
)
def test_vite_invoke_over_the_hmr_socket(old_vite: OldVite, module_id: str) -> None:
    """CVE-2026-39363: Vite runs `fetchModule` for any client of its socket. Through us the HMR
    socket is relayed message by message, and such a call closes it (1008) unanswered."""
    message = _invoke(module_id.format(root=old_vite.root, out=old_vite.outside))
    control = trio.run(_hmr, old_vite.vite_port, None, message)
    assert _leaked("\n".join(control).encode()), control
    ours = trio.run(_hmr, old_vite.server.port, None, message)
    assert ours[-1] == "closed 1008", ours
    assert not _leaked("\n".join(ours).encode())


def test_a_vite_invoke_our_parser_cannot_read_closes_the_socket(old_vite: OldVite) -> None:
    """Issue 31, item 3: the event name escaped (`vite\\u003ainvoke`) and a 5 000-deep array beside
    it: Python's `json` gives up (RecursionError) where Node's `JSON.parse` reads it, and Vite
    answers. A message the door cannot read is never passed on: the socket closes 1008."""
    call = {"id": "send:1", "name": "fetchModule", "data": [f"file://{old_vite.outside}/secret.txt?raw"]}
    text = json.dumps({"type": "custom", "event": "vite:invoke", "data": call}).replace(
        "vite:invoke", "vite\\u003ainvoke"
    )
    message = text[:-1] + ', "pad": ' + "[" * 5000 + "]" * 5000 + "}"
    control = trio.run(_hmr, old_vite.vite_port, None, message)
    assert _leaked("\n".join(control).encode()), control
    ours = trio.run(_hmr, old_vite.server.port, None, message)
    assert ours[-1] == "closed 1008", ours
    assert not _leaked("\n".join(ours).encode())


def test_the_hmr_socket_still_works_through_us(old_vite: OldVite) -> None:
    got = trio.run(_hmr, old_vite.server.port, None, json.dumps({"type": "custom", "event": "x:ping", "data": {}}))
    assert got == ['{"type":"connected"}']
    with pytest.raises(BaseException) as caught:
        trio.run(_hmr, old_vite.server.port, f"127.evil.example:{old_vite.server.port}", None)
    error = caught.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, trio_websocket.ConnectionRejected) and error.status_code == 403


NAVIGATION = "Sec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: iframe\r\n"


@pytest.mark.parametrize("target", ["/", "/index.html", "/src/main.js"])
def test_a_page_of_another_site_opens_no_project_page(old_vite: OldVite, target: str) -> None:
    """The project's pages are served under both loopback names; a navigation a page of another
    site asked for (a game framing one under the editor page's name) is refused, spliced or not.
    The same navigation from the page's own origin or the address bar, and any fetch, are served."""
    port = old_vite.server.port
    status, body = _get(port, target, host=f"localhost:{port}", headers=NAVIGATION + "Sec-Fetch-Site: cross-site\r\n")
    assert (status, json.loads(body)["error"]) == (403, "foreign_navigation")
    for site in ("same-origin", "none"):
        assert (
            _get(port, target, host=f"localhost:{port}", headers=NAVIGATION + f"Sec-Fetch-Site: {site}\r\n")[0] == 200
        )
    fetch = "Sec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\nSec-Fetch-Site: cross-site\r\n"
    assert _get(port, target, host=f"localhost:{port}", headers=fetch)[0] == 200
    # the editor page and the game's frame are ours, not the project's: another site may open them
    fields = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe", "Sec-Fetch-Site": "cross-site"}
    assert httpx.get(f"http://127.0.0.1:{port}/__pix3/game/", headers=fields).status_code == 200

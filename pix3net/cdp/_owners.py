"""Who opened what in the one shared Chrome, and what no client may touch (docs/cdp-proxy.md,
"Ownership and protection").

Pure bookkeeping for :mod:`pix3net.cdp.router`: per client, the targets and browser contexts it
created (its ``Target.createTarget`` / ``Target.createBrowserContext`` replies, and pages its pages
opened); the editor tab (pix3's, like the browser itself); the per-client caps; and the refusals,
each with the sentence the client gets. The router turns what this decides into actions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

# Caps per client on what it has open (issue "Many agents, one Chrome"): an agent keeps a handful
# of tabs; 32 of each is far above that and far below what makes Chrome hang (tabs piling up).
MAX_TARGETS = 32
MAX_CONTEXTS = 32
# What a departed client opened is closed this long after it left (at most 2 s by design): its
# last createTarget may still be on its way back, and the client's own close calls may be too.
GRACE_SECONDS = 1.0
# Chrome's own code for a command it refuses to run ("server error" range of JSON-RPC).
REFUSED = -32000
# `?keep=1` on the WebSocket URL: what the client opens stays when it leaves.
KEEP_PARAMETER = "keep"
# `?client=<name>` on the WebSocket URL: the name every view of the clients shows. Untrusted (any
# client picks it): a short lowercase word (`claude-code`, `codex`, `pi`, `alpha`) or nothing, so a
# name can never carry markup, escapes or a line of its own into a terminal, a log or the page.
NAME_PARAMETER = "client"
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")

STOP_HINT = "pix3 editor --stop-chrome closes Chrome"

CREATE_TARGET = "Target.createTarget"
CREATE_CONTEXT = "Target.createBrowserContext"
DISPOSE_CONTEXT = "Target.disposeBrowserContext"
CLOSE_TARGET = "Target.closeTarget"
BROWSER_CLOSE = "Browser.close"
# The old, unflattened way to talk to a target: a whole message wrapped in this one. The proxy
# never passes it: what it wraps would reach Chrome unread (a page session has the Browser domain,
# so a wrapped `Browser.close` ended Chrome for every client).
SEND_TO_TARGET = "Target.sendMessageToTarget"
# Gives a page's own scripts a protocol session (`window.cdp`) that never passes the proxy.
EXPOSE_PROTOCOL = "Target.exposeDevToolsProtocol"
NAVIGATE = "Page.navigate"
# Chrome's debugging pages (chrome://inducebrowsercrashforrealz, chrome://quit, chrome://hang …)
# act when navigated to "from the address bar": measured on Chromium here, the first ended the
# browser. `about:` names of them did nothing, so only this scheme is refused.
DEBUG_SCHEME = "chrome"
VIEW_SOURCE = "view-source"
# The methods the router looks at twice; every other message is relayed without a second look.
WATCHED = frozenset(
    {
        CREATE_TARGET,
        CREATE_CONTEXT,
        DISPOSE_CONTEXT,
        CLOSE_TARGET,
        BROWSER_CLOSE,
        "Browser.crash",
        "Browser.crashGpuProcess",
        "Page.close",
        "Page.crash",
        SEND_TO_TARGET,
        EXPOSE_PROTOCOL,
        NAVIGATE,
    }
)
# Methods that need the message's params (parsed again: they are small).
NEEDS_PARAMS = frozenset({DISPOSE_CONTEXT, CLOSE_TARGET, CREATE_TARGET, NAVIGATE})


def url_scheme(url: str) -> str:
    """The scheme Chrome reads in ``url``, lowercased, under any ``view-source:`` prefixes: leading
    and trailing spaces and control characters go, tabs and newlines inside are dropped (the URL
    standard's first steps). "" when there is none."""
    text = "".join(c for c in url.strip("".join(map(chr, range(33)))) if c not in "\t\n\r")
    while True:
        scheme, colon, rest = text.partition(":")
        scheme = scheme.lower()
        if not colon or not scheme.isascii() or not scheme[:1].isalpha():
            return ""
        if scheme != VIEW_SOURCE:
            return scheme
        text = rest


def connect_options(target: str) -> tuple[bool, str | None]:
    """``(keep, name)`` from a WebSocket URL's query: ``keep=1`` (or ``true``) and ``client=<name>``
    (None unless it matches :data:`NAME_PATTERN`)."""
    if "?" not in target:
        return False, None
    query = target.split("?", 1)[1]
    keep = False
    name: str | None = None
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == KEEP_PARAMETER:
            keep = value.lower() in ("1", "true", "yes", "")
        elif key == NAME_PARAMETER:
            name = value if NAME_PATTERN.fullmatch(value) else None
    return keep, name


@dataclass
class Holding:
    """What one client owns; kept after it leaves until its sweep."""

    keep: bool = False
    targets: set[str] = field(default_factory=set)
    contexts: set[str] = field(default_factory=set)
    creating_targets: int = 0
    creating_contexts: int = 0

    @property
    def empty(self) -> bool:
        return not (self.targets or self.contexts or self.creating_targets or self.creating_contexts)


class Owners:
    def __init__(self) -> None:
        self.holdings: dict[int, Holding] = {}  # open clients and departed ones not swept yet
        self.target_owner: dict[str, int] = {}
        self.context_owner: dict[str, int] = {}
        self.editor: str | None = None
        self.editor_tab: str | None = None  # the `tab` target holding the editor page, once seen
        self.tabs: set[str] = set()  # targets Chrome reported (or clients' sessions were told) are of type `tab`
        self.tab_page: dict[str, str] = {}  # tab → the page a client's session saw attached below it
        self.editor_url = ""
        self.page_urls: dict[str, str] = {}  # page targets Chrome reported → their URL
        self.page_titles: dict[str, str] = {}  # … and their title (for the views of the clients)
        self.reported = False  # Chrome has reported the targets it had when the proxy started

    # -- clients ---------------------------------------------------------------------------
    def join(self, client: int, keep: bool) -> None:
        self.holdings[client] = Holding(keep=keep)

    def release(self, client: int) -> Holding | None:
        """Forget a departed client's holding (its sweep): what it owned is nobody's now."""
        holding = self.holdings.pop(client, None)
        if holding is not None:
            for target in holding.targets:
                self.target_owner.pop(target, None)
            for context in holding.contexts:
                self.context_owner.pop(context, None)
        return holding

    # -- refusals ----------------------------------------------------------------------------
    def refusal(self, client: int, method: str, params: dict[str, Any], session_target: str | None) -> str | None:
        """Why ``method`` from ``client`` is refused, or None. ``session_target``: the target the
        message's session is attached to (None: the browser, or not known)."""
        if method in ("Browser.crash", "Browser.crashGpuProcess"):
            return f"{method} is refused: the browser belongs to pix3 and other clients share it ({STOP_HINT})"
        if method in ("Page.close", "Page.crash") and session_target is not None and session_target == self.editor:
            return f"{method} is refused: this session is attached to the pix3 editor tab, which clients share ({STOP_HINT})"
        if method == SEND_TO_TARGET:
            return (
                f"{method} is refused: the proxy does not pass wrapped commands; attach with flatten: true"
                " and send the command on that session"
            )
        if method == EXPOSE_PROTOCOL:
            return f"{method} is refused: it gives a page's scripts a protocol session that bypasses the proxy"
        if method in (NAVIGATE, CREATE_TARGET):
            url = params.get("url")
            if isinstance(url, str) and url_scheme(url) == DEBUG_SCHEME:
                return (
                    f"{method} is refused: chrome: URLs include Chrome's debugging pages, which crash or hang"
                    " the browser other clients share"
                )
        given = params.get("targetId") if method == CLOSE_TARGET else None
        target = given if isinstance(given, str) else None
        holds_editor = target is not None and self.editor is not None and self.tab_page.get(target) == self.editor
        if target is not None and (target in (self.editor, self.editor_tab) or holds_editor):
            return f"{method} is refused: {target} is the pix3 editor tab, which clients share ({STOP_HINT})"
        if target is not None and target in self.tabs and target not in self.tab_page:
            return (
                f"{method} is refused: {target} is a tab target and the proxy has not seen which page it holds"
                " (it may be the pix3 editor tab): close the page target instead"
            )
        if method == DISPOSE_CONTEXT:
            context = params.get("browserContextId")
            if not isinstance(context, str) or self.context_owner.get(context) != client:
                return f"{method} is refused: browser context {context} was not created by this client"
        holding = self.holdings.get(client)
        if holding is None:
            return None
        if method == CREATE_TARGET and len(holding.targets) + holding.creating_targets >= MAX_TARGETS:
            return (
                f"{method} is refused: this client has {MAX_TARGETS} targets open, the proxy's limit "
                "per client (close some first)"
            )
        if method == CREATE_CONTEXT and len(holding.contexts) + holding.creating_contexts >= MAX_CONTEXTS:
            return (
                f"{method} is refused: this client has {MAX_CONTEXTS} browser contexts open, the proxy's "
                "limit per client (dispose some first)"
            )
        return None

    # -- creations -------------------------------------------------------------------------------
    def creating(self, client: int, method: str) -> None:
        holding = self.holdings.get(client)
        if holding is None:
            return
        if method == CREATE_TARGET:
            holding.creating_targets += 1
        else:
            holding.creating_contexts += 1

    def created(self, client: int, method: str, ident: str | None) -> bool:
        """A create call came back (``ident`` None: it failed). False when its client is gone
        and swept: the caller closes what it made at once."""
        holding = self.holdings.get(client)
        if holding is None:
            return ident is None
        if method == CREATE_TARGET:
            holding.creating_targets = max(0, holding.creating_targets - 1)
            if ident is not None:
                self._own_target(client, holding, ident)
        else:
            holding.creating_contexts = max(0, holding.creating_contexts - 1)
            if ident is not None:
                holding.contexts.add(ident)
                self.context_owner[ident] = client
        return True

    def _own_target(self, client: int, holding: Holding, target: str) -> None:
        if target in self.target_owner or target == self.editor:
            return
        holding.targets.add(target)
        self.target_owner[target] = client

    def disposed(self, context: str) -> None:
        client = self.context_owner.pop(context, None)
        if client is not None and client in self.holdings:
            self.holdings[client].contexts.discard(context)

    # -- what Chrome reports (the proxy's own target discovery) ------------------------------------
    def target_created(self, info: dict[str, Any]) -> None:
        target = info.get("targetId")
        if isinstance(target, str) and info.get("type") == "tab":
            self.tabs.add(target)
        if not isinstance(target, str) or info.get("type") != "page":
            return
        url, title = info.get("url"), info.get("title")
        self.page_urls[target] = url if isinstance(url, str) else ""
        self.page_titles[target] = title if isinstance(title, str) else ""
        if self.editor is None and not self.reported:
            self.editor = target  # the page Chrome was launched with
            self.editor_url = self.page_urls[target]
            return
        opener = info.get("openerId")
        owner = self.target_owner.get(opener) if isinstance(opener, str) else None
        if owner is None:
            context = info.get("browserContextId")
            owner = self.context_owner.get(context) if isinstance(context, str) else None
        if owner is not None and owner in self.holdings:
            self._own_target(owner, self.holdings[owner], target)

    def target_changed(self, info: dict[str, Any]) -> None:
        target, url, title = info.get("targetId"), info.get("url"), info.get("title")
        if isinstance(target, str) and target in self.page_urls and isinstance(title, str):
            self.page_titles[target] = title
        if isinstance(target, str) and target in self.page_urls and isinstance(url, str):
            self.page_urls[target] = url
            if target == self.editor and url and url != "about:blank":
                self.editor_url = url

    def retitle(self, infos: Any) -> None:
        """Titles from a ``Target.getTargets`` answer: Chrome does not always report a new title
        of a page with ``targetInfoChanged`` (a `data:` page's `<title>` never came)."""
        for info in infos if isinstance(infos, list) else ():
            target = info.get("targetId") if isinstance(info, dict) else None
            if isinstance(target, str) and target in self.page_urls and isinstance(info.get("title"), str):
                self.page_titles[target] = info["title"]

    def target_destroyed(self, target: str) -> bool:
        """Forget a target; True when it was the editor tab."""
        self.page_urls.pop(target, None)
        self.page_titles.pop(target, None)
        self.tabs.discard(target)
        self.tab_page.pop(target, None)
        client = self.target_owner.pop(target, None)
        if client is not None and client in self.holdings:
            self.holdings[client].targets.discard(target)
        if target == self.editor:
            self.editor = self.editor_tab = None
            return True
        return False

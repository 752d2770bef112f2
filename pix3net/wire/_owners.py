"""Who opened what in the one shared Chrome, and what no client may touch (docs/cdp-proxy.md,
"Ownership and protection").

Pure bookkeeping for :mod:`pix3net.wire.router`: per client, the targets and browser contexts it
created (its ``Target.createTarget`` / ``Target.createBrowserContext`` replies, and pages its pages
opened); the editor tab (pix3's, like the browser itself: its page, the tab holding it, the address
it stays at); the per-client caps and the bound on what keepers leave behind; and the refusals,
each with the sentence the client gets. The router turns what this decides into actions.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pix3net.wire.hostrule import is_loopback_name

# Caps per client on what it has open (issue "Many agents, one Chrome"): an agent keeps a handful
# of tabs; 32 of each is far above that and far below what makes Chrome hang (tabs piling up).
MAX_TARGETS = 32
MAX_CONTEXTS = 32
# What clients that connected with `?keep=1` left open, all of them together (issue "No global
# bound on what outlives its client": three keepers x 32 tabs left 96 tabs and Chrome at 11.9 GB).
# One client's cap: an agent's handful of tabs fits many times over, and Chrome stays responsive.
# Past it the oldest kept targets (and contexts) are closed.
MAX_KEPT_TARGETS = 32
MAX_KEPT_CONTEXTS = 32
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
NAVIGATE_HISTORY = "Page.navigateToHistoryEntry"
# What a client sets that Chrome keeps after the client's session is gone: a target auto-attached
# with `waitForDebuggerOnStart` waits for a debugger forever once its session detached (measured
# on Chromium: a popup of the editor page stayed blank and the page's next `window.open` failed).
SET_AUTO_ATTACH = "Target.setAutoAttach"
RUN_IF_WAITING = "Runtime.runIfWaitingForDebugger"
# Who has the debugger on, per session: Chrome resumes a pause when the last session with the
# debugger enabled leaves; the owner's watchdog keeps its own enabled, so it resumes a pause once
# no client's debugger is left on that target (Router.debuggers).
DEBUGGER_ON = "Debugger.enable"
DEBUGGER_OFF = "Debugger.disable"
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
        DEBUGGER_ON,
        DEBUGGER_OFF,
        "Browser.crash",
        "Browser.crashGpuProcess",
        "Page.close",
        "Page.crash",
        SEND_TO_TARGET,
        EXPOSE_PROTOCOL,
        NAVIGATE,
        NAVIGATE_HISTORY,
        SET_AUTO_ATTACH,
        RUN_IF_WAITING,
    }
)
# Methods that need the message's params (parsed again: they are small).
NEEDS_PARAMS = frozenset({DISPOSE_CONTEXT, CLOSE_TARGET, CREATE_TARGET, NAVIGATE, SET_AUTO_ATTACH})
# The only URLs a freshly opened tab shows before its first page: not a move away.
BLANK_URLS = frozenset({"", "about:blank"})


def as_chrome_reads(url: str) -> str:
    """``url`` as the URL standard's first steps leave it: leading and trailing spaces and control
    characters gone, tabs and newlines inside dropped."""
    return "".join(c for c in url.strip("".join(map(chr, range(33)))) if c not in "\t\n\r")


def url_scheme(url: str) -> str:
    """The scheme Chrome reads in ``url`` (:func:`as_chrome_reads`), lowercased, under any
    ``view-source:`` prefixes. "" when there is none."""
    text = as_chrome_reads(url)
    while True:
        scheme, colon, rest = text.partition(":")
        scheme = scheme.lower()
        if not colon or not scheme.isascii() or not scheme[:1].isalpha():
            return ""
        if scheme != VIEW_SOURCE:
            return scheme
        text = rest


def _base(url: str) -> str:
    """``url`` without its query and fragment."""
    return url.split("#", 1)[0].split("?", 1)[0]


def is_editor_page(url: str, editor_url: str, *, exact: bool = False) -> bool:
    """Whether ``url`` shows the editor page of ``editor_url`` (the owner's): the same address with
    any query and fragment; below it too when it ends in ``/`` (as `pix3 editor` looks for its tab)
    unless ``exact`` (a client's URL, which Chrome has not normalised yet: ``/__pix3/../x``)."""
    if not editor_url:
        return False
    home, seen = _base(editor_url), _base(url)
    return seen == home or (not exact and home.endswith("/") and seen.startswith(home) and "/." not in seen)


def is_editor_address(url: str, editor_url: str) -> bool:
    """Whether ``url`` is a pix3 editor page the editor tab may be sent to: its own, or the same
    path on a loopback origin (a cold `pix3 editor` launches Chrome on the address it guessed for the
    dev server, then sends the tab to the one the server took). A client's URL is taken as
    written (no dot segments, no odd spellings: Chrome has not normalised it yet)."""
    if is_editor_page(url, editor_url, exact=True):
        return True
    seen, home = urlsplit(_base(url)), urlsplit(_base(editor_url))
    try:
        name = seen.hostname or ""
        port_ok = seen.port is None or seen.port > 0
    except ValueError:  # a port that is no number
        return False
    host = f"[{name}]" if ":" in name else name
    return (
        seen.scheme in ("http", "https")
        and port_ok
        and seen.username is None
        and is_loopback_name(host)
        and seen.netloc.lower() == seen.netloc
        and home.path != ""
        and seen.path == home.path
        and _base(url) == f"{seen.scheme}://{seen.netloc}{seen.path}"
    )


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
    def __init__(self, launch_url: str = "") -> None:
        # The editor page's address: the owner's (when it is not blank), else the first page the
        # tab shows; moved only to another pix3 editor page (`is_editor_address`).
        self.launch_url = launch_url
        self.home = launch_url if launch_url not in BLANK_URLS else ""
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
        # Chrome reports a new tab's target and then, in the same task, the page inside it: the
        # one way the proxy learns which tab holds which page (a client's attach proves nothing:
        # its own page attached on the editor tab's session looked like the editor tab's page).
        self._new_tab: str | None = None
        self.page_tab: dict[str, str] = {}  # page → the tab Chrome reported just before it
        self.editor_home = False  # the editor tab has shown the editor page since it was opened
        # What keepers (`?keep=1`) left open, oldest first → the client that opened it.
        self.kept: dict[str, int] = {}
        self.kept_contexts: dict[str, int] = {}
        self._born: dict[str, int] = {}  # what clients own → when it became theirs (oldest kept go first)
        self._births = itertools.count()

    @property
    def home_url(self) -> str:
        """The editor page's address; "" while it is not known. A cold `pix3 editor` may launch
        Chrome on about:blank before the dev server's address is known, then navigates the tab
        there: that first address is the home (before any client has read the proxy's port from
        chrome.json). After that the tab is never followed anywhere but to a pix3 editor page."""
        return self.home

    # -- clients ---------------------------------------------------------------------------
    def join(self, client: int, keep: bool) -> None:
        self.holdings[client] = Holding(keep=keep)

    def release(self, client: int) -> Holding | None:
        """Forget a departed client's holding (its sweep): what it owned is nobody's now (kept, when
        it asked to keep it)."""
        holding = self.holdings.pop(client, None)
        if holding is not None:
            for target in holding.targets:
                self.target_owner.pop(target, None)
            for context in holding.contexts:
                self.context_owner.pop(context, None)
            if holding.keep:
                oldest_first = partial(sorted, key=lambda ident: self._born.get(ident, -1))
                self.kept.update(dict.fromkeys(oldest_first(holding.targets), client))
                self.kept_contexts.update(dict.fromkeys(oldest_first(holding.contexts), client))
        return holding

    def over_kept(self) -> tuple[list[str], list[str]]:
        """The oldest kept targets and contexts past the bound, forgotten here: the caller closes them."""
        targets = list(self.kept)[: max(0, len(self.kept) - MAX_KEPT_TARGETS)]
        contexts = list(self.kept_contexts)[: max(0, len(self.kept_contexts) - MAX_KEPT_CONTEXTS)]
        for target in targets:
            del self.kept[target]
        for context in contexts:
            del self.kept_contexts[context]
        return targets, contexts

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
        if method in (NAVIGATE, NAVIGATE_HISTORY) and session_target is not None and session_target == self.editor:
            why = self._moves_editor(method, params)
            if why is not None:
                return why
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

    def _moves_editor(self, method: str, params: dict[str, Any]) -> str | None:
        """Why a navigation on a session of the editor tab is refused: it would move the tab away
        from the editor page (a child frame, such as the game's, may go anywhere)."""
        frame = params.get("frameId")
        if not self.home_url:  # launched blank: `pix3 editor`'s navigation gives it its address
            return None
        if method == NAVIGATE and frame is not None and frame != self.editor:  # a page's main frame id is its target id
            return None
        url = params.get("url")
        if method == NAVIGATE and isinstance(url, str) and is_editor_address(as_chrome_reads(url), self.home_url):
            return None
        return (
            f"{method} is refused: this session is attached to the pix3 editor tab, which stays on the editor page"
            f" ({self.home_url}); open a tab of your own with Target.createTarget"
        )

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
                self._born[ident] = next(self._births)
        return True

    def _own_target(self, client: int, holding: Holding, target: str) -> None:
        if target in self.target_owner or target == self.editor:
            return
        holding.targets.add(target)
        self.target_owner[target] = client
        self._born[target] = next(self._births)

    def disposed(self, context: str) -> None:
        self._born.pop(context, None)
        client = self.context_owner.pop(context, None)
        if client is not None and client in self.holdings:
            self.holdings[client].contexts.discard(context)

    # -- what Chrome reports (the proxy's own target discovery) ------------------------------------
    def target_created(self, info: dict[str, Any]) -> list[str]:
        """Learn a target; the popups to close at once (their opener's client, or all keepers
        together, are at their bound)."""
        target = info.get("targetId")
        kind = info.get("type")
        if isinstance(target, str) and kind == "tab":
            self.tabs.add(target)
            self._new_tab = target
        if not isinstance(target, str) or kind != "page":
            return []
        tab, self._new_tab = self._new_tab, None
        if tab is not None:
            self.tab_page[tab] = target
            self.page_tab[target] = tab
        url, title = info.get("url"), info.get("title")
        self.page_urls[target] = url if isinstance(url, str) else ""
        self.page_titles[target] = title if isinstance(title, str) else ""
        if self.editor is None and not self.reported:
            self.editor = target  # the page Chrome was launched with
            self.editor_url = self.page_urls[target]
            self.editor_tab = tab
            if not self.home and self.editor_url not in BLANK_URLS:
                self.home = self.editor_url
            self.editor_home = is_editor_page(self.editor_url, self.home_url)
            return []
        if target == self.editor:  # opened again, its createTarget answered first
            self.editor_tab = tab
            return []
        opener = info.get("openerId")
        owner = self.target_owner.get(opener) if isinstance(opener, str) else None
        if owner is None:
            context = info.get("browserContextId")
            owner = self.context_owner.get(context) if isinstance(context, str) else None
        if owner is not None and owner in self.holdings:
            holding = self.holdings[owner]
            # A popup counts against its opener's client like a page it created: past the cap it goes.
            if len(holding.targets) + holding.creating_targets >= MAX_TARGETS:
                return [target]
            self._own_target(owner, holding, target)
        elif isinstance(opener, str) and opener in self.kept:
            self.kept[target] = self.kept[opener]  # a kept page's popups are kept, and bounded with it
            return self.over_kept()[0]
        return []

    def reported_all(self) -> None:
        """Chrome has reported what it had at the start: one tab then is the editor's (the owner
        launched Chrome with one page), whatever order the two were reported in."""
        self.reported = True
        self._new_tab = None
        unlinked = self.tabs - set(self.tab_page)
        if self.editor is not None and self.editor_tab is None and len(self.tabs) == 1 and unlinked:
            [tab] = unlinked
            self.editor_tab = tab
            self.tab_page[tab] = self.editor
            self.page_tab[self.editor] = tab

    def opened_again(self, target: str, url: str) -> None:
        """The proxy's own ``Target.createTarget`` of the editor tab was answered."""
        self.editor = target
        self.editor_url = url
        self.editor_tab = self.page_tab.get(target)
        self.editor_home = False

    def target_changed(self, info: dict[str, Any]) -> bool:
        """Learn a target's new address; True when the editor tab has left the editor page (it is
        sent back: the address the owner launched it with is kept, never learnt from the tab)."""
        target, url, title = info.get("targetId"), info.get("url"), info.get("title")
        if isinstance(target, str) and target in self.page_urls and isinstance(title, str):
            self.page_titles[target] = title
        if not (isinstance(target, str) and target in self.page_urls and isinstance(url, str)):
            return False
        self.page_urls[target] = url
        if target != self.editor:
            return False
        if not self.home_url:
            if url not in BLANK_URLS:  # `pix3 editor`'s first navigation of the tab it launched blank
                self.home = url
                self.editor_home = True
            return False
        if is_editor_page(url, self.home_url):
            self.editor_home = True
            return False
        if is_editor_address(url, self.home_url):  # `pix3 editor` sent it from a wrong guess
            self.home = url
            self.editor_home = True
            return False
        # Chrome reports "" while a navigation is on its way (measured: several times during each
        # navigation to a data: URL), and a tab opened again shows about:blank before the editor
        # page: neither is a move. Once sent back, the tab is not home until it shows the page.
        if not url or not (self.editor_home or url not in BLANK_URLS):
            return False
        self.editor_home = False
        return True

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
        self.page_tab.pop(target, None)
        self.kept.pop(target, None)
        self._born.pop(target, None)
        client = self.target_owner.pop(target, None)
        if client is not None and client in self.holdings:
            self.holdings[client].targets.discard(target)
        if target == self.editor:
            self.editor = self.editor_tab = None
            return True
        return False

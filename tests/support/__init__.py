"""What the tests share: helpers, stand-ins and harnesses, one module per thing they help with.

Fixtures live in ``conftest.py`` files (pytest's way); everything else a test needs from
outside its own file is imported from here, never from another test module.

- ``pix3``: run ``pix3`` as a real process from this checkout (``run_pix3``, ``pix3_argv``, ``pix3_env``).
- ``node``: the npm test clients (``tests/node/node_modules`` or ``PIX3_TEST_NODE_MODULES``).
- ``ports``: free loopback ports. ``processes``: is a pid alive, wait for it to go, poll a condition.
- ``chrome``: the quiet Chromium flags and ``PIX3_CHROME`` wrappers (fake or real Chrome).
- ``chrome_owner``: ``pix3 __chrome-owner`` as a real process. ``chrome_echo_child``: a pipe Chrome stand-in.
- ``cdp_proxy``: the CDP proxy served over the in-memory fake Chrome, and raw HTTP/WebSocket clients;
  ``cdp_proxy_process`` serves it in a process of its own. ``cdp_attack``: hostile clients of the proxy.
- ``colour_agents``: long-lived puppeteer and playwright agents, each keeping a tab busy.
- ``devserver``: ``pix3 __dev-server`` as a real process and fake editor tabs.
- ``file_api``: the dev server's file API on hypercorn alone (also a process a test can kill).
- ``devtools``: a plain Chromium on a DevTools port and a small page client.
- ``editor``: stand-ins for ``pix3 editor``'s tests (a hello-only dev server, a plain DevTools endpoint).
- ``editor_page``: the editor page in Chromium, a game project for it, the bridge tools' schemas.
- ``projects``: a project folder with its manifest.
- ``mcp``: an MCP stdio client and the ``npx`` shim. ``relay``: a loopback TCP relay.
- ``sshd``: a real OpenSSH server on a loopback port, two homes, the human's ``~/.ssh/config`` (Remote SSH).
- ``smoke``: `pix3 smoke`'s plain-JS fixture games, running it, the processes a run left.
  ``smoke_traces``: CDP event traces of its game page. ``sourcemaps``: source maps written by hand.
  ``junit``: a JUnit document checked against the CI servers' rules.
- ``validate``: tiny projects for validate. ``kit``: a 1.x kit project. ``images``: PNG bytes.
  ``scene_corpus``: the generated scenes of the validate bench and the YAML readers' tests.
- ``lockfile``: requirements.lock's pins and stamp (``just lock`` runs it to stamp the lock).
  ``just``: the justfile's recipes, read without running them.
"""

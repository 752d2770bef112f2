"""pix3net: the Pix3 2.0 command line's network side and the command line itself.

Public surface: ``CLI_VERSION`` (re-exported from ``pix3tools.core``, where every part reads it);
the command entry is ``pix3net.cli.main``.

Modules:

- `cli`: the `pix3` entry: the global rules and dispatch.
- `wire`: what crosses a socket, sans-IO and standard library only.
- `daemon`: what both daemons need of the operating system, and their two records.
- `owner`: `pix3 __chrome-owner`: Chrome through a pipe and the CDP proxy in front of it.
- `devserver`: `pix3 __dev-server`: the `/__pix3/*` contract in front of a supervised Vite.
- `clients`: how a short command reaches a running daemon.
- `commands`: the network commands: `pix3 editor`, `pix3 agent-setup`, `pix3 smoke`.
"""

from pix3tools.core.version import CLI_VERSION

__all__ = ["CLI_VERSION"]

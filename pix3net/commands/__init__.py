"""The network commands, each a package: its arguments and how it orchestrates the daemons.

Modules:

- `editor`: `pix3 editor`.
- `agentsetup`: `pix3 agent-setup`.
- `smoke`: `pix3 smoke`.
"""

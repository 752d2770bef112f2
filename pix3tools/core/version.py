"""The version every part prints: ``pix3 --version``, the usage header, templates, the kit.

Lockstep with the Pix3 2.0 packages (docs/cli.md, "Version").
"""

CLI_VERSION = "2.0.0-alpha.0"

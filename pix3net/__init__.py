"""pix3net: the Pix3 2.0 command line's network side.

Public surface: ``CLI_VERSION`` here; the command entry is ``pix3net.cli.main``.
"""

# Lockstep with the reference CLI (spec/cli.md §1.6): templates, the kit and `pix3 --version`
# all print this number.
CLI_VERSION = "2.0.0-alpha.0"

__all__ = ["CLI_VERSION"]

"""pix3net: the Pix3 2.0 command line's network side and the command line itself.

Public surface: ``CLI_VERSION`` (re-exported from ``pix3tools.core``, where every part reads it);
the command entry is ``pix3net.cli.main``.
"""

from pix3tools.core.version import CLI_VERSION

__all__ = ["CLI_VERSION"]

"""pix3tools: Pix3's file tools (validate, tree, check, kit, new, gap, sfx, character-compile).

Plain synchronous functions over a project folder: nothing here imports trio, and nothing here
imports ``pix3net`` (the network side sits above). The network runtime calls them from a worker
thread; the command line calls them directly.

``core`` is the stdlib-only base both packages share: the version, ``PIX3_HOME``, the project
lookup, the dev server's record, the command table and usage texts, and the one argument parser.
Each tool is a subpackage with a public facade (``__init__``) and its command in ``command.py``.
``_js`` (values printed as JavaScript prints them) is shared by the tools.
"""

"""pix3tools: Pix3's file tools (validate, tree, check, kit, new, gap, sfx, character-compile).

Plain synchronous functions over a project folder: nothing here imports trio. The network
runtime calls them from a worker thread; the CLI calls them directly.
"""

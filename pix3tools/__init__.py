"""pix3tools: Pix3's file tools (validate, tree, check, kit, new, gap, sfx, character-compile).

Plain synchronous functions over a project folder: nothing here imports trio. The network
runtime calls them from a worker thread; the CLI calls them directly.

Shared by the commands: ``_js`` (values printed as JavaScript prints them), ``_argv`` (the value
of an option), ``_project`` (which project, and the folder a "no project" error names).
"""

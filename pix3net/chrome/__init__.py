"""Chrome through a pipe: discovery, launch (fds 3/4), NUL framing, the owner process and its record.

What `pix3 editor` uses: :func:`find_chrome` / :func:`no_chrome_message` (discover),
:func:`start_owner` / :func:`stop_owner` (control), :func:`read_record` / :func:`profile_dir`
(state), :func:`handoff_args` / :func:`spawn_handoff` (spawn: Chrome's command lines and its start,
standard library only; `launch` is the trio side of a running Chrome). The owner process itself
is ``pix3 __chrome-owner`` (owner).
"""

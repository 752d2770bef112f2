"""Chrome through a pipe: discovery, launch (fds 3/4), NUL framing, the owner process and its record."""

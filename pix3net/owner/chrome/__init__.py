"""Chrome itself, run through `--remote-debugging-pipe`.

Modules:

- `discover`: which Chrome binary to launch.
- `spawn`: Chrome's command lines and its start with the pipe on fds 3 and 4.
- `launch`: a running Chrome under trio: its pipe as a channel, its stderr tail, its exit.
- `pipe`: the NUL-framed pipe as the proxy's channel to Chrome.
- `diagnose`: why a launch failed, named for what it is.
"""

"""`pix3 __chrome-owner`: the process that owns Chrome through its pipe and serves the CDP proxy.

The process is `process` (its first steps, standard library only, in `start`); Chrome itself is
`owner.chrome`, the proxy's transport `owner.proxy`. `control` is the parent's side, what `pix3
editor` and `pix3 smoke` start and stop it with.

Modules:

- `command`: `pix3 __chrome-owner '<options JSON>'`, the hidden command.
- `options`: the owner's options, as `pix3 editor` passes them.
- `start`: the owner's first steps: options, log, Chrome's launch.
- `process`: the owner process: Chrome, the proxy, the record, the exit.
- `control`: the parent's side: start the owner and wait for its proof, stop it.
- `chrome`: Chrome itself: found, launched with its pipe on fds 3 and 4, framed.
- `proxy`: the CDP proxy's transport, its watchdog and its views.
"""

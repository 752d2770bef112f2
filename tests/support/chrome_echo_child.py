"""A stand-in Chrome for pipe tests: reports how it was started, then echoes fd 3 to fd 4.

Its first message (NUL-framed on fd 4) says what fds 0/1 are and whether fds 3/4 are the pipes;
then every byte read on fd 3 is written back on fd 4 (so framing passes through unchanged). A
message containing ``"quit"`` makes it exit 7 once that message is echoed.
"""

from __future__ import annotations

import json
import os
import stat
import sys


def main() -> int:
    report = {
        "fd0": os.readlink("/proc/self/fd/0"),
        "fd1": os.readlink("/proc/self/fd/1"),
        "fd3_fifo": stat.S_ISFIFO(os.fstat(3).st_mode),
        "fd4_fifo": stat.S_ISFIFO(os.fstat(4).st_mode),
        "argv": sys.argv[1:],
    }
    os.write(2, b"echo child: started\n\n")
    os.write(4, json.dumps(report).encode() + b"\0")
    quitting = False
    while chunk := os.read(3, 1 << 20):
        view = memoryview(chunk)
        while view:
            view = view[os.write(4, view) :]
        quitting = quitting or b'"quit"' in chunk
        if quitting and b"\0" in chunk:  # the quit message is echoed up to its NUL
            os.write(2, b"echo child: quitting\n")
            return 7
    return 0


if __name__ == "__main__":
    sys.exit(main())

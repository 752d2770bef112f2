"""What both daemons need of the operating system, and the two records they leave for clients.

Standard library only but for `acceptbackoff` (trio's accept loops): a short command reads a record
or checks a pid without trio.

Modules:

- `logfile`: the daemons' log files: bounded on disk, never written through a link.
- `pids`: whether a process is alive, who holds a port, a child that dies with its parent.
- `ready`: a daemon saying "ready" over an inherited pipe.
- `acceptbackoff`: accept loops that outlive a lack of descriptors or memory.
- `chromerecord`: `$PIX3_HOME/chrome.json`: the owner's record of the Chrome it runs.
- `devrecord`: `.pix3/dev.json`: the dev server's record, written and read.
- `memory`: the resident memory of Chrome's processes, from /proc.
"""

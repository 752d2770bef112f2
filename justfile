# pix3net tasks. `just test` and `just demo` work on a fresh machine (they install what they need).

set shell := ["bash", "-euo", "pipefail", "-c"]

python := env_var_or_default("PYTHON", "python3")

# Install the locked Python set, pix3net (editable), Debian's chromium and openssh-server, and the pinned npm test clients.
setup:
    # Exactly requirements.lock (written by `just lock`): every package at its pinned version, each file checked
    # against its hashes, nothing resolved here, so a fresh machine gets the set CI passed with. --no-deps: the
    # lock already holds every dependency; pix3net itself goes on top, editable, without touching the set.
    {{python}} -m pip install -q --require-hashes --no-deps -r requirements.lock
    {{python}} -m pip install -q --no-deps -e .
    # pyenv reaches new console scripts through shims: make one for `pix3`.
    if command -v pyenv >/dev/null; then pyenv rehash; fi
    command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
    # deploy/'s systemd user units are checked with systemd-analyze (tests/unit/test_deploy.py).
    command -v systemd-analyze >/dev/null || (apt-get update -q && apt-get install -y -q systemd)
    # The Remote SSH tests run a real sshd on a loopback port of their own; RUNLEVEL=1 keeps the
    # package from starting the system's sshd on port 22.
    [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null || (apt-get update -q && RUNLEVEL=1 apt-get install -y -q openssh-server openssh-client)
    # `npm ci`: exactly the lock file, which it never rewrites (an `npm install` would, whenever this npm resolves
    # the tree differently from the one that wrote the lock). Rerun when the lock is newer than the install.
    if [ ! -d tests/node/node_modules ] || [ tests/node/package-lock.json -nt tests/node/node_modules/.package-lock.json ]; then (cd tests/node && npm ci --no-audit --no-fund --loglevel=error); fi
    # pi and the Node 22 it needs, apart from the other clients (the `node` package puts its own `node` in .bin).
    if [ ! -d tests/pi/node_modules ] || [ tests/pi/package-lock.json -nt tests/pi/node_modules/.package-lock.json ]; then (cd tests/pi && npm ci --no-audit --no-fund --loglevel=error); fi

# The whole suite: unit, integration (fake Chrome, real hypercorn) and e2e (real Chromium, real clients),
# in 3 pytest-xdist workers (a file stays on one worker: its module fixtures start once). Most tests
# wait on Chrome, Vite, tsc or a child process, so 3 workers fill 2 cores. With arguments (a part of
# the suite), one process unless they say otherwise (`just test -n 3 tests/e2e`).
test *ARGS: setup
    {{python}} -m pytest {{ if ARGS == "" { "-n 3 --dist loadfile" } else { "" } }} {{ARGS}}

# Write requirements.lock from pyproject.toml's dependencies and its `test` extra: every package, transitive ones
# too, at an exact version with its hashes, for every platform and Python >= 3.11 (uv's universal resolution).
# Pins already in the lock are kept; `just lock --upgrade` renews them all (then `just test`, and commit the lock
# on its own). Ends by stamping the lock with a digest of pyproject's lists (tests/unit/test_lock.py checks it).
lock *ARGS:
    {{python}} -m pip install -q 'uv==0.13.9'
    {{python}} -m uv pip compile pyproject.toml --extra test --universal --python-version 3.11 --generate-hashes --quiet --custom-compile-command 'just lock' -o requirements.lock {{ARGS}}
    {{python}} -m tests.support.lockfile stamp

# ruff and mypy --strict (setup installs both; run through the interpreter, so no PATH shim is needed).
lint: setup
    {{python}} -m ruff check .
    {{python}} -m ruff format --check .
    {{python}} -m mypy

# Ratios against the physical limits, side by side in one run (tests/bench/).
bench *ARGS: setup
    {{python}} -m tests.bench {{ARGS}}

# Scripted faults and load against the daemons (tests/soak/), e.g. `just soak --minutes 10`: bounded,
# 127.0.0.1 only, stops by itself, prints figures and exits 1 when one passes its bound. Not part of `just test`.
soak *ARGS: setup
    {{python}} -m tests.soak {{ARGS}}

# The demo game (`pix3 new demo`: plain JavaScript, it plays without npm install) in $PIX3_DEMO_DIR
# (default /tmp/pix3-demo), served by `pix3 editor --headless`: dev server and Chrome behind the
# token proxy; prints where an agent connects. Both stay running: `pix3 editor --stop-chrome` and
# `pix3 editor --stop` (in the project) end them.
demo: setup
    dir="${PIX3_DEMO_DIR:-/tmp/pix3-demo}"; [ -f "$dir/pix3project.yaml" ] || {{python}} -m pix3net new demo "$dir"; cd "$dir" && {{python}} -m pix3net editor --headless

#!/bin/sh
# The container's entry (deploy/Dockerfile): `pix3 <arguments>`, with a HOME outside the project,
# and a word on stderr when Chrome will run without its sandbox (deploy/chromium decides that).
set -eu
# A --user the image does not know gets HOME=/ (Docker) or HOME=the working directory, the project
# (Podman adds it to /etc/passwd so): Chrome and fontconfig would write .config/ and .cache/ there.
# Such a HOME, or one that cannot be written, is replaced by a private folder in /tmp.
if [ "${HOME:-/}" = / ] || [ "$HOME" = "$PWD" ] || [ ! -w "$HOME" ]; then
  HOME="/tmp/pix3-home-$(id -u)"
  mkdir -p -m 0700 "$HOME"
  export HOME
fi
# Said once here, where a person reads it; the Chrome wrapper (deploy/chromium) decides at each start.
if [ "$(id -u)" != 0 ] && ! unshare --user --map-root-user true 2>/dev/null; then
  echo "pix3 container: this runtime allows no user namespace, so Chrome runs without its sandbox (deploy/README.md says how to keep it)." >&2
fi
exec pix3 "$@"

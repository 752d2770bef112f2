#!/bin/sh
# The container's entry (deploy/Dockerfile): `pix3 <arguments>`, with Chrome's sandbox kept when
# the runtime allows it. Chrome's sandbox on Linux needs an unprivileged user namespace; a runtime
# that forbids one (Docker's default seccomp profile, some AppArmor policies) makes Chrome abort as
# it starts. Then, and only then, Chrome runs with --no-sandbox, and this says so.
# As root pix3 adds --no-sandbox itself (Chrome refuses its sandbox as root).
set -eu
# A --user the image does not know gets HOME=/ (Docker) or HOME=the working directory, the project
# (Podman adds it to /etc/passwd so): Chrome and fontconfig would write .config/ and .cache/ there.
# Such a HOME, or one that cannot be written, is replaced by a private folder in /tmp.
if [ "${HOME:-/}" = / ] || [ "$HOME" = "$PWD" ] || [ ! -w "$HOME" ]; then
  HOME="/tmp/pix3-home-$(id -u)"
  mkdir -p -m 0700 "$HOME"
  export HOME
fi
if [ -z "${PIX3_CHROME:-}" ] && [ "$(id -u)" != 0 ] && ! unshare --user --map-root-user true 2>/dev/null; then
  echo "pix3 container: this runtime allows no user namespace, so Chrome runs without its sandbox (deploy/README.md says how to keep it)." >&2
  PIX3_CHROME=/usr/local/bin/chromium-no-sandbox
  export PIX3_CHROME
fi
exec pix3 "$@"

#!/bin/sh
# The container's entry (deploy/Dockerfile): `pix3 <arguments>`, with Chrome's sandbox kept when
# the runtime allows it. Chrome's sandbox on Linux needs an unprivileged user namespace; a runtime
# that forbids one (Docker's default seccomp profile, some AppArmor policies) makes Chrome abort as
# it starts. Then, and only then, Chrome runs with --no-sandbox, and this says so.
# As root pix3 adds --no-sandbox itself (Chrome refuses its sandbox as root).
set -eu
# A --user that the image's /etc/passwd does not know gets HOME=/ (Docker) or the working directory,
# the project (Podman): Chrome and fontconfig would write .config/ and .cache/ there. Give it one in /tmp.
if ! getent passwd "$(id -u)" >/dev/null 2>&1; then
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

#!/usr/bin/env bash
# System packages the test suite needs: PostgreSQL (the study response store's server, which the
# tests start on loopback in a temporary folder) and Debian's Chromium with its driver (driven
# headless by Playwright in the browser tests). Idempotent: runs apt only for what is missing.
# Where they cannot be installed (no apt, not root and no passwordless sudo, apt fails, or the
# programs are still missing afterwards) it says so and exits 1, and `make test` stops there.
# Outside CI the tests that need a missing program skip with the reason; with CI=true they fail.
# TEALEAVES_CHROMIUM and TEALEAVES_POSTGRES_BINDIR name other places than Debian's (as the tests do).
set -euo pipefail

CHROMIUM="${TEALEAVES_CHROMIUM:-/usr/bin/chromium}"
CHROMEDRIVER="${CHROMIUM%/*}/chromedriver"
have_postgres() {
    if [ -n "${TEALEAVES_POSTGRES_BINDIR:-}" ]; then
        [ -x "$TEALEAVES_POSTGRES_BINDIR/initdb" ]
    else
        ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
    fi
}
check() {
    missing=()
    have_postgres || missing+=(postgresql)
    [ -x "$CHROMIUM" ] || missing+=(chromium)
    [ -x "$CHROMEDRIVER" ] || missing+=(chromium-driver)
}

check
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: missing ${missing[*]} and there is no apt-get; install them with your package manager" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "system-deps: missing ${missing[*]}; run 'sudo bash scripts/system-deps.sh' to install them" >&2
        exit 1
    fi
fi

echo "system-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq || ! $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; then
    echo "system-deps: apt-get could not install ${missing[*]}" >&2
    exit 1
fi
check
if [ ${#missing[@]} -ne 0 ]; then
    echo "system-deps: still missing ${missing[*]} after apt-get install" >&2
    exit 1
fi

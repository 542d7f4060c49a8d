#!/usr/bin/env bash
# System packages the test suite needs: PostgreSQL (the study response store's server, which the
# tests start on loopback in a temporary folder) and Debian's Chromium with its driver (driven
# headless by Playwright in the browser tests). Idempotent: runs apt only for what is missing.
# Where nothing can be installed (no apt, not root and no passwordless sudo) it says so and exits
# 0: the tests that need the missing programs then skip, each with the reason.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: missing ${missing[*]} and there is no apt-get; install them with your package manager" >&2
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "system-deps: missing ${missing[*]}; run 'sudo bash scripts/system-deps.sh' to install them" >&2
        exit 0
    fi
fi

echo "system-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null

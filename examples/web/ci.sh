#!/usr/bin/env bash
# The browser test of the chat page needs what contrib/aisdk/ci.sh
# installs (puppeteer-core, @sparticuz/chromium); .ci/run runs this from
# examples/web with CACHE set.
set -euo pipefail
exec bash ../../contrib/aisdk/ci.sh

#!/usr/bin/env bash
# Installs the real clients the tests of contrib/aisdk and examples/web run
# against — the ai package, puppeteer-core and @sparticuz/chromium (a
# Chromium binary inside the npm package: nothing is downloaded when the
# tests run) — at the versions testdata/node/package.json pins, into
# $CACHE/aisdk. .ci/run runs this from contrib/aisdk (and examples/web)
# with CACHE set, and exports
# AIRLOCK_AISDK_NODE_MODULES=$CACHE/aisdk/node_modules for the tests,
# which fail under CI=true when it is not there. A second run finds the
# right versions installed and does nothing.
set -euo pipefail
: "${CACHE:?CACHE must name the CI cache directory}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifest=$here/testdata/node/package.json
dir=$CACHE/aisdk

installed() {
	[ -f "$dir/package.json" ] && cmp -s "$manifest" "$dir/package.json" &&
		node -e '
			const want = require(process.argv[1]).dependencies;
			for (const [name, version] of Object.entries(want)) {
				const got = require(process.argv[2] + "/node_modules/" + name + "/package.json").version;
				if (got !== version) process.exit(1);
			}' "$manifest" "$dir" 2>/dev/null
}

if installed; then
	echo "ai, puppeteer-core, @sparticuz/chromium already in $dir"
	exit 0
fi
bash "$here/../../.ci/need-npm"
mkdir -p "$dir"
cp "$manifest" "$dir/package.json"
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error --no-package-lock)
installed || { echo "after npm install, $dir does not hold the versions $manifest pins"; exit 1; }
echo "installed the packages of $manifest in $dir"

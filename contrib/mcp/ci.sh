#!/usr/bin/env bash
# Installs the reference MCP filesystem server for TestFilesystemServer, at
# the version filesystem_ext_test.go pins, into $CACHE/mcp. .ci/run runs
# this from contrib/mcp with CACHE set, and exports
# AIRLOCK_MCP_FILESYSTEM=$CACHE/mcp/node_modules/.bin/mcp-server-filesystem
# for the tests, which fail under CI=true when it is not there. A second run
# finds the right version installed and does nothing.
set -euo pipefail
: "${CACHE:?CACHE must name the CI cache directory}"

pkg=$(sed -n 's/^const filesystemPackage = "\(.*\)"$/\1/p' filesystem_ext_test.go)
[ -n "$pkg" ] || { echo "no filesystemPackage constant in filesystem_ext_test.go"; exit 1; }
name=${pkg%@*} version=${pkg##*@}
dir=$CACHE/mcp
bin=$dir/node_modules/.bin/mcp-server-filesystem
manifest=$dir/node_modules/$name/package.json

installed() {
	[ -x "$bin" ] && [ -f "$manifest" ] &&
		[ "$(node -p 'require(process.argv[1]).version' "$manifest")" = "$version" ]
}

if installed; then
	echo "$pkg already in $dir"
	exit 0
fi
bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../.ci/need-npm"
mkdir -p "$dir"
npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "$pkg"
installed || { echo "$pkg: $bin missing or not version $version after npm install"; exit 1; }
echo "installed $pkg in $dir"

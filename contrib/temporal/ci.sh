#!/usr/bin/env bash
# Builds the Temporal CLI, whose dev server the crash test and the client
# tests run against, into the path .ci/run exports as AIRLOCK_TEMPORAL_CLI.
# From the Go module proxy only: ~18 min on 2 cores the first time, then
# nothing (the binary is kept per CLI version and Go release).
set -euo pipefail
: "${AIRLOCK_TEMPORAL_CLI:?.ci/run exports AIRLOCK_TEMPORAL_CLI}"
version=v1.5.1
if [ ! -x "$AIRLOCK_TEMPORAL_CLI" ]; then
	GOBIN=$(dirname "$AIRLOCK_TEMPORAL_CLI") go install "github.com/temporalio/cli/cmd/temporal@$version"
fi
"$AIRLOCK_TEMPORAL_CLI" --version

#!/usr/bin/env bash
# Runs the peer benchmarks and prints the README's tables.
#
#   bench/run.sh                              # tests, then every benchmark, then the tables
#   COUNT=3 BENCHTIME=400ms bench/run.sh      # samples per benchmark (median), time per sample
#   BENCH='Pipeline/dialect=responses' bench/run.sh   # a subset: a -bench regexp
#   MEM=1 bench/run.sh                        # instead: memory and goroutines per held stream
#   MEM=1 STREAMS=10000 ROUNDS=5 bench/run.sh
#   OUT=dir bench/run.sh                      # where the raw output goes (default $TMPDIR/airlock-bench)
#
# Under 3 minutes on 2 idle cores with the defaults (COUNT=3: 2; MEM=1: 40 s
# with a warm build cache). Everything runs with GOMAXPROCS=2.
set -euo pipefail
cd "$(dirname "$0")"
export GOMAXPROCS=${GOMAXPROCS:-2}
OUT=${OUT:-${TMPDIR:-/tmp}/airlock-bench}
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-400ms}
BENCH=${BENCH:-.}
mkdir -p "$OUT"
start=$(date +%s)

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "airlock: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- .. 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "go: $(go version)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //') x $(nproc 2>/dev/null || echo '?')"
  if [ "${MEM:-0}" = 1 ]; then
    echo "GOMAXPROCS=$GOMAXPROCS MEM=1 STREAMS=${STREAMS:-2000} ROUNDS=${ROUNDS:-3}"
  else
    echo "GOMAXPROCS=$GOMAXPROCS COUNT=$COUNT BENCHTIME=$BENCHTIME BENCH=$BENCH"
  fi
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
} | tee "$OUT/env.txt"

if [ "${MEM:-0}" = 1 ]; then
  # cmd/streams starts cmd/holdserver (another process) and one child of
  # itself per peer and round; it verifies every stream and fails if one
  # does not match.
  go build -o "$OUT/bin/" ./cmd/streams ./cmd/holdserver
  status=0
  "$OUT/bin/streams" -n "${STREAMS:-2000}" -rounds "${ROUNDS:-3}" -json "$OUT/streams.json" > "$OUT/streams.md" || status=$?
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" | tee -a "$OUT/env.txt"
  echo
  cat "$OUT/streams.md"
  [ $status = 0 ] || echo "streams FAILED (status $status)"
  echo "total: $(( $(date +%s) - start ))s; raw results in $OUT"
  exit $status
fi

# 1. The corpora are what they say and every peer reads every corpus right.
go test -count 1 -run 'Test' ./... > "$OUT/tests.txt" 2>&1 || { tail -40 "$OUT/tests.txt"; echo "tests FAILED"; exit 1; }

# 2. The benchmarks; each iteration checks its result and fails on a mismatch.
cmd=(go test -run '^$' -bench "$BENCH" -count "$COUNT" -benchtime "$BENCHTIME" -timeout 60m .)
echo "+ ${cmd[*]} > $OUT/bench.txt"
status=0
"${cmd[@]}" > "$OUT/bench.txt" 2>&1 || status=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" | tee -a "$OUT/env.txt"
if [ $status != 0 ] || grep -qE '^(FAIL|--- FAIL)' "$OUT/bench.txt"; then
  grep -E -A5 '^(FAIL|--- FAIL)' "$OUT/bench.txt" | head -40
  echo "benchmarks FAILED (a peer errored or did not match; $OUT/bench.txt)"
  status=1
fi

# 3. The tables.
echo
go run ./cmd/report "$OUT/bench.txt" | tee "$OUT/report.md"
echo "total: $(( $(date +%s) - start ))s; raw results in $OUT"
exit $status

#!/usr/bin/env sh
# Run every kqctl benchmark and print its figures.
#
#   benchmarks/run.sh              # validate at 5,000 and 50,000 resources
#   benchmarks/run.sh 200000       # other sizes
#   PYTHON=/tmp/venv/bin/python benchmarks/run.sh
#
# Exits non-zero if any run failed (validate crashed, or could not run); findings are not a failure.
set -eu
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ "$#" -gt 0 ] || set -- 5000 50000
status=0
for count in "$@"; do
    "$PYTHON" benchmarks/bench_validate.py --count "$count" || status=$?
    echo
done
exit "$status"

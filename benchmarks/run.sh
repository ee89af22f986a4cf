#!/usr/bin/env sh
# Run every kqctl benchmark and print its figures.
#
#   benchmarks/run.sh              # validate at 5,000 and 50,000 resources; engine at 5,000 and 50,000 workloads;
#                                  # Volcano simulate on 5,000 nodes and 10,000 PodGroups
#   benchmarks/run.sh 200000       # validate at other sizes
#   ENGINE_SIZES="1000 10000 50000" benchmarks/run.sh   # engine at other sizes ("" skips it)
#   PYTHON=/tmp/venv/bin/python benchmarks/run.sh
#   YUNIKORN=0 benchmarks/run.sh   # skip the YuniKorn benchmark (simulate and replay at 50,000 pods, validate at
#                                  # 1,000 queues)
#   KUEUE_SCALE=0 benchmarks/run.sh  # skip Kueue's replay, preemption replay (1k/10k/50k), explain at 50k and
#                                    # plan --seeds (20 candidates x 10 seeds, local vs Dask: the longest, ~15 min)
#   PLAN_SEEDS="--budget 4 --seeds 2" benchmarks/run.sh   # a smaller plan --seeds study
#
# Exits non-zero if any run failed (validate crashed or could not run, an engine measurement
# crashed or hit its timeout); findings and missed targets are not a failure.
set -eu
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
ENGINE_SIZES="${ENGINE_SIZES-5000 50000}"
[ "$#" -gt 0 ] || set -- 5000 50000
status=0
for count in "$@"; do
    "$PYTHON" benchmarks/bench_validate.py --count "$count" || status=$?
    echo
done
"$PYTHON" benchmarks/bench_steps.py || status=$?
echo
(cd benchmarks && "$PYTHON" bench_validate_cache.py) || status=$?
echo
for workloads in $ENGINE_SIZES; do
    "$PYTHON" benchmarks/bench_engine.py --workloads "$workloads" || status=$?
    echo
done
"$PYTHON" benchmarks/bench_volcano.py || status=$?
echo
if [ "${YUNIKORN:-1}" != 0 ]; then
    "$PYTHON" benchmarks/bench_yunikorn.py --replay || status=$?
    echo
fi
if [ "${KUEUE_SCALE:-1}" != 0 ]; then
    "$PYTHON" benchmarks/bench_replay.py || status=$?
    echo
    "$PYTHON" benchmarks/bench_preemption.py || status=$?
    echo
    "$PYTHON" benchmarks/bench_explain.py || status=$?
    echo
    # shellcheck disable=SC2086  # PLAN_SEEDS is a list of options
    "$PYTHON" benchmarks/bench_plan_seeds.py ${PLAN_SEEDS:-} || status=$?
    echo
fi
exit "$status"

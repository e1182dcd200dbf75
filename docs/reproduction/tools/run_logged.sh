#!/bin/bash
# One logged `aucopt experiment run` invocation (the wrapper that wrote runs/invocations.log).
# usage: RUNS=DIR LOG=FILE [NJOBS=1] [AUCOPT=aucopt] run_logged.sh CONFIG ARGS...
#   runs `$AUCOPT experiment run CONFIG --out $RUNS/CONFIG --n-jobs $NJOBS ARGS...` from the
#   current directory (a git checkout of aucopt) and appends START / cpu / rc, wall, END / the
#   git status before and after / the package files modified while it ran to $LOG.
set -u
: "${RUNS:?set RUNS}" "${LOG:?set LOG}"
NJ=${NJOBS:-1}; AUCOPT=${AUCOPT:-aucopt}
cid=$1; shift
marker=$(mktemp)
echo "=== START $(date -u +%FT%TZ) $cid $* --n-jobs $NJ HEAD=$(git rev-parse --short HEAD)" >> "$LOG"
echo "    status-before: $(git status --short | tr '\n' ';')" >> "$LOG"
s=$(date +%s.%N)
/usr/bin/time -f "    cpu user %U sys %S" -a -o "$LOG" "$AUCOPT" experiment run "$cid" --out "$RUNS/$cid" \
    --n-jobs "$NJ" "$@" > "$RUNS/$cid.$(date +%H%M%S).out" 2>&1
rc=$?
e=$(date +%s.%N)
echo "    rc=$rc wall=$(python3 -c "print(round($e-$s,1))")s END $(date -u +%FT%TZ) HEAD=$(git rev-parse --short HEAD)" >> "$LOG"
echo "    status-after: $(git status --short | tr '\n' ';')" >> "$LOG"
echo "    modified-during-run: $(find aucopt benchmarks tests -newer "$marker" -type f -not -name '*.pyc' -not -path '*__pycache__*' | tr '\n' ' ')" >> "$LOG"
rm -f "$marker"

#!/usr/bin/env bash
# run.sh BUILD SECONDS TIMEOUT RSS_MB TARGET... — runs libFuzzer targets one after
# another (one process each, as the machine has 2 cores shared with others):
#   1. every file of tests/fuzz/regress/<target>/ once (inputs that crashed before);
#   2. SECONDS of fuzzing, starting from BUILD/corpus/<target> (where new inputs go),
#      the regression inputs and the committed seeds tests/fuzz/corpus/<target>.
# Crash, leak and timeout files go to BUILD/artifacts/<target>/, logs to
# BUILD/logs/<target>.log, so the source tree stays clean. Prints executions per
# target; exits non-zero if any target failed.
set -u
build=$1 seconds=$2 timeout=$3 rss=$4
shift 4
here=tests/fuzz
failed=()

# Longest input per target: the codec needs room for a bitset container (8 KiB).
max_len_of() {
    case $1 in
    codec) echo 20000 ;;
    *) echo 4096 ;;
    esac
}

stat_of() { # stat_of LOG NAME: a libFuzzer final statistic, or "?"
    local v
    v=$(sed -n "s/^stat::$2: *//p" "$1" | tail -n 1)
    echo "${v:-?}"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for t in "$@"; do
    bin=$build/fuzz_$t
    out=$build/corpus/$t
    art=$build/artifacts/$t/
    log=$build/logs/$t.log
    mkdir -p "$out" "$art" "$build/logs"
    opts=(-timeout="$timeout" -rss_limit_mb="$rss" -max_len="$(max_len_of "$t")"
          -artifact_prefix="$art" -print_final_stats=1)
    [ -f "$here/$t.dict" ] && opts+=(-dict="$here/$t.dict")

    regress=()
    if [ -d "$here/regress/$t" ]; then
        while IFS= read -r -d '' f; do regress+=("$f"); done \
            < <(find "$here/regress/$t" -type f ! -name '.*' -print0 | sort -z)
    fi
    if [ ${#regress[@]} -gt 0 ]; then
        if ! "$bin" "${opts[@]}" "${regress[@]}" > "$log.regress" 2>&1; then
            echo "fuzz_$t: FAILED on a regression input (log: $log.regress)"
            tail -n 40 "$log.regress"
            failed+=("$t")
            continue
        fi
        echo "fuzz_$t: ${#regress[@]} regression inputs pass"
    fi

    dirs=("$out")
    [ -d "$here/regress/$t" ] && dirs+=("$here/regress/$t")
    [ -d "$here/corpus/$t" ] && dirs+=("$here/corpus/$t")
    start=$(date +%s)
    "$bin" "${opts[@]}" -max_total_time="$seconds" "${dirs[@]}" > "$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    execs=$(stat_of "$log" number_of_executed_units)
    rate=$(stat_of "$log" average_exec_per_sec)
    added=$(stat_of "$log" new_units_added)
    rss_used=$(stat_of "$log" peak_rss_mb)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    echo "fuzz_$t: $execs executions in ${took} s ($rate/s), coverage ${cov:-?} edges," \
         "$added new inputs (corpus $(find "$out" -type f | wc -l) in $out), peak RSS ${rss_used} MB"
    if [ $rc -ne 0 ]; then
        echo "fuzz_$t: FAILED (exit $rc; log: $log; artifacts in $art)"
        grep -E 'ERROR|property violated|SUMMARY|Test unit written' "$log" | head -n 20
        tail -n 30 "$log"
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]}"
    exit 1
fi

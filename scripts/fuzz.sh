#!/usr/bin/env bash
# fuzz.sh [SECONDS] [SUBJECT...] - builds dpk's libFuzzer targets (clang-14, ASan + UBSan, in
# build-fuzz/ or $DPK_FUZZ_BUILD_DIR) and fuzzes each subject for SECONDS (default 60), then
# prints executions, corpus size and findings per subject. Subjects: ir compiler policy filter
# cache_entry dlpack (default: all; tests/fuzz/README.md says what each covers). dlpack is not
# a libFuzzer target but tests/fuzz/DlpackFuzzer.py, a Python harness for dpk.from_dlpack run by
# $DPK_FUZZ_PYTHON (default build/venv/bin/python) with PYTHONPATH=$DPK_FUZZ_PYTHONPATH (unset:
# the dpk that Python finds; build/venv has an editable install of build/), its findings in
# build-fuzz/tests/fuzz/artifacts-dlpack/. A crash, a sanitizer
# report, a broken promise, a slow input (-timeout) or a leak leaves a reproducer in
# build-fuzz/tests/fuzz/artifacts-<subject>/ and makes this script fail; commit the reproducer
# to tests/fuzz/corpus/<subject>/ with the fix, where fuzz.<subject>.replay replays it.
#
#   DPK_FUZZ_JOBS=2 nice scripts/fuzz.sh 600     two subjects at a time, 10 minutes each
#
# Needs clang-14 and libclang-rt-14-dev (libFuzzer's runtime); the normal test suite does not.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
subjects=("$@")
[ ${#subjects[@]} -gt 0 ] || subjects=(ir compiler policy filter cache_entry dlpack)
jobs=${DPK_FUZZ_JOBS:-1}
native=()
for subject in "${subjects[@]}"; do [ "$subject" = dlpack ] || native+=("$subject"); done

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
[ ${#native[@]} -eq 0 ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
  -DDPK_FUZZ=ON -DDPK_SANITIZE=address -DDPK_BUILD_PYTHON=OFF -DDPK_BUILD_BENCH=OFF >/dev/null
targets=()
for subject in "${native[@]}"; do targets+=("dpk_fuzz_$subject"); done
[ ${#targets[@]} -eq 0 ] || ninja -C "$build" -j"${DPK_JOBS:-2}" "${targets[@]}"

# LLVM and the system libraries are not instrumented; what they leak at exit is theirs.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs=$build/tests/fuzz/logs
mkdir -p "$logs"

fuzz_one() { # subject
  local subject=$1 args
  if [ "$subject" = dlpack ]; then
    echo "== fuzzing dlpack for $seconds s (log: $logs/dlpack.log)"
    mkdir -p "$build/tests/fuzz/artifacts-dlpack"
    PYTHONPATH=${DPK_FUZZ_PYTHONPATH:-${PYTHONPATH:-}} "${DPK_FUZZ_PYTHON:-$root/build/venv/bin/python}" \
      "$root/tests/fuzz/DlpackFuzzer.py" run --seconds "$seconds" --seed "${DPK_FUZZ_SEED:-$RANDOM}" \
      --artifacts "$build/tests/fuzz/artifacts-dlpack" >"$logs/dlpack.log" 2>&1
    return
  fi
  mapfile -t args < <(grep -v '^$' "$build/tests/fuzz/fuzz-$subject.args")
  echo "== fuzzing $subject for $seconds s (log: $logs/$subject.log)"
  "$build/bin/dpk_fuzz_$subject" -max_total_time="$seconds" "${args[@]}" >"$logs/$subject.log" 2>&1
}

status=0
running=0
for subject in "${subjects[@]}"; do
  fuzz_one "$subject" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done

printf '%-12s %8s %12s %8s %8s %8s %8s\n' subject seconds executions exec/s corpus coverage findings
for subject in "${subjects[@]}"; do
  log=$logs/$subject.log
  if [ "$subject" = dlpack ]; then # "dlpack: N executions in S s (R/s), F findings, C crashes, corpus K"
    line=$(grep -E '^dlpack: ' "$log" | tail -1 || true)
    runs=$(sed -n 's/^dlpack: \([0-9]*\) executions.*/\1/p' <<<"$line")
    speed=$(sed -n 's/.*(\([0-9]*\)\/s).*/\1/p' <<<"$line")
    corpus=$(sed -n 's/.*corpus \([0-9]*\).*/\1/p' <<<"$line")
    findings=$(find "$build/tests/fuzz/artifacts-dlpack" -type f ! -name '*.txt' | wc -l)
    [ -n "$line" ] || findings=1 # the harness itself failed: see the log
    printf '%-12s %8s %12s %8s %8s %8s %8s\n' "$subject" "$seconds" "${runs:-?}" "${speed:-?}" \
      "${corpus:-?}" "-" "$findings"
    [ "$findings" -eq 0 ] || status=1
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # libFuzzer's last status line: "#N DONE cov: C ft: F corp: U/SIZE ..."
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  corpus=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  coverage=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  findings=$(find "$build/tests/fuzz/artifacts-$subject" -type f | wc -l)
  printf '%-12s %8s %12s %8s %8s %8s %8s\n' "$subject" "$seconds" "${runs:-?}" "${speed:-?}" \
    "${corpus:-?}" "${coverage:-?}" "$findings"
  [ "$findings" -eq 0 ] || status=1
done
exit "$status"

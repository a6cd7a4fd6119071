#!/bin/sh
# A short instrumented fuzz pass of the glTF loader (tests/fuzz/fuzz_gltf.c), then of the recording
# reader (tests/fuzz/fuzz_recording.c), as CI runs it:
#   scripts/fuzz_ci.sh [SECONDS [RECORDING_SECONDS]]   (default 90 and 30; FUZZ_BUILD=build-fuzz,
#                                                       ORRERY_ASSETS=../shared/assets)
#
# 1. builds the fuzz configuration (clang; every module built with -fsanitize=fuzzer-no-link,address,
#    undefined, so that libFuzzer's coverage sees the loader, not only the harness);
# 2. rebuilds the seeds from the sample models (tests/fuzz/make_corpus.py: gltf/, gltf-ext/ and
#    gltf-invalid/) and adds the regression inputs of tests/scene/regress;
# 3. merges the seeds and the corpus kept in $FUZZ_BUILD/fuzz/corpus by earlier runs into the smallest
#    set with the same coverage (-merge=1), which replaces the kept corpus: it stays minimised;
# 4. fuzzes from it for SECONDS and prints the coverage reached.
# Nothing here is committed: the sample models must not be copied into the repository, and every input
# of the corpus descends from them; the corpus lives in the (ignored) build folder and any checkout
# rebuilds it from the samples in a minute. A crash, hang, leak or UB report fails the pass; the input
# that caused it is left in $FUZZ_BUILD/fuzz/artifacts/ (replay it with `$FUZZ_BUILD/fuzz_gltf FILE`;
# once fixed it goes to tests/scene/regress with its outcome in tests/scene/test_gltf_regress.c).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-90}
build=${FUZZ_BUILD:-build-fuzz}
assets=${ORRERY_ASSETS:-../shared/assets}
dict=tests/fuzz/gltf.dict
if ! command -v clang >/dev/null; then
    echo "fuzz_ci: clang is not installed (scripts/setup.sh installs it)" >&2
    exit 1
fi
CC=clang cmake -S . -B "$build" -DORRERY_FUZZ=ON -DORRERY_WERROR=ON -DORRERY_ASSETS_DIR="$PWD/$assets" >/dev/null
cmake --build "$build" --target fuzz_gltf fuzz_recording -j "${JOBS:-2}" >/dev/null
exe=$build/fuzz_gltf
work=$build/fuzz
rm -rf "$work/seeds" "$work/merged" "$work/merge-artifacts"
mkdir -p "$work/seeds" "$work/corpus" "$work/merged" "$work/artifacts" "$work/merge-artifacts"
python3 tests/fuzz/make_corpus.py "$work/seeds" "$assets"
for f in tests/scene/regress/*; do
    case "$f" in *.md) continue ;; esac
    cp "$f" "$work/seeds/regress_$(basename "$f")"
done
# the harness's own leak checks on every input; UBSan reports are crashes (built -fno-sanitize-recover).
# The merge runs every input and carries on past one that crashes (leaving it as an artifact, exit 0):
# any artifact it leaves fails the pass as a crash while fuzzing does.
export ASAN_OPTIONS=detect_leaks=1
"$exe" -merge=1 -dict="$dict" -timeout=10 -rss_limit_mb=2560 -artifact_prefix="$work/merge-artifacts/" \
    "$work/merged" "$work/corpus" "$work/seeds" \
    >"$work/merge.log" 2>&1 || { tail -40 "$work/merge.log" >&2; echo "fuzz_ci: the merge failed (an input crashes?)" >&2; exit 1; }
if [ -n "$(ls -A "$work/merge-artifacts")" ]; then
    grep -m 20 -E "runtime error|ERROR: |SUMMARY" "$work/merge.log" >&2 || true
    echo "fuzz_ci: $(ls "$work/merge-artifacts" | wc -l) inputs of the corpus or the seeds crash, hang or leak: $work/merge-artifacts/" >&2
    exit 1
fi
rm -rf "$work/corpus"
mv "$work/merged" "$work/corpus"
echo "fuzz_ci: corpus $(ls "$work/corpus" | wc -l) inputs ($(du -sk "$work/corpus" | cut -f1) KiB) after merging seeds and the kept corpus"
status=0
"$exe" -dict="$dict" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$work/fuzz.log" | tail -2
grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$work/fuzz.log" || true
if [ $status -ne 0 ]; then
    tail -60 "$work/fuzz.log" >&2
    echo "fuzz_ci: the fuzzer stopped with status $status; the input is in $work/artifacts/" >&2
    exit 1
fi
echo "fuzz_ci: ${secs}s of fuzzing found nothing"

# The recording reader: its corpus is committed (tests/fuzz/recording_corpus: recordings of a world the
# harness makes, no sample model, minimised), fuzzed from a copy; a crash fails the pass as above.
rsecs=${2:-30}
rwork=$build/recording_fuzz # not fuzz_recording: that is the fuzzer itself
rm -rf "$rwork"
mkdir -p "$rwork/corpus" "$rwork/artifacts"
cp tests/fuzz/recording_corpus/* "$rwork/corpus/"
status=0
"$build/fuzz_recording" -max_total_time="$rsecs" -max_len=16384 -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$rwork/artifacts/" "$rwork/corpus" >"$rwork/fuzz.log" 2>&1 || status=$?
grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$rwork/fuzz.log" | tail -2
if [ $status -ne 0 ]; then
    tail -60 "$rwork/fuzz.log" >&2
    echo "fuzz_ci: the recording fuzzer stopped with status $status; the input is in $rwork/artifacts/" >&2
    exit 1
fi
echo "fuzz_ci: ${rsecs}s of fuzzing the recording reader found nothing"

#!/usr/bin/env bash
# The reproducers of the reliability issue (issue 15), one case per finding, run through the
# trace-replay binary as a user (or a hostile input) would: `reproducers.sh CASE`.
#
# Environment (set by tests/reliability/CMakeLists.txt): TR (trace-replay), HOSTILE
# (make_hostile_trace), SAMPLE (make_sample_trace), WORK (a scratch folder; `setup` fills
# WORK/shared, each case works in WORK/CASE so cases can run in parallel).
#
# Exit codes checked are the table in README.md: 0 ok, 1 environment or I/O, 2 bad input.
set -uo pipefail

CASE="$1"
SHARED="$WORK/shared"
FAILED=0

fail() {
  echo "FAIL: $*"
  FAILED=1
}

# expect CODE REGEX CMD...: CMD exits CODE and its stdout+stderr, lines joined by spaces, match
# the extended REGEX.
expect() {
  local code="$1" regex="$2"
  shift 2
  local out rc
  out="$("$@" 2>&1)"
  rc=$?
  if [[ $rc -ne $code ]]; then
    fail "exit $rc, expected $code: $*"
    echo "$out" | tail -5
  elif ! tr '\n' ' ' <<<"$out" | grep -qE -- "$regex"; then
    fail "output does not match /$regex/: $*"
    echo "$out" | tail -5
  else
    echo "ok (exit $rc): $*"
  fi
}

# flip FILE OFFSET: xor one byte.
flip() {
  python3 -c "import sys; f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))" "$1" "$2"
}

# chunk_offsets FILE: the offset of every chunk, from `info --json --chunks`.
chunk_offsets() {
  "$TR" info --json --chunks "$1" | python3 -c "import json, sys; print(' '.join(str(c['offset']) for c in json.load(sys.stdin)['chunk_index']))"
}

json_field() {  # json_field FILE PYTHON-EXPRESSION-ON-j
  python3 -c "import json, sys; j = json.load(open(sys.argv[1])); print($2)" "$1"
}

case_setup() {
  rm -rf "$WORK" && mkdir -p "$SHARED" && cd "$SHARED" || exit 1
  "$TR" gen madv-bomb --processes 4 --size 2M --loops 3 -o mb.mmtrace >/dev/null &&
    "$TR" gen jemalloc-purge --threads 4 --loops 20000 --scale small -o je.mmtrace >/dev/null &&
    "$TR" gen jemalloc-purge --threads 4 --loops 21000 --scale small -o je-other.mmtrace >/dev/null &&
    "$SAMPLE" sample.mmtrace 7 4 1000 &&
    "$TR" calibrate --quick -o cal.json >/dev/null || fail "setup"
}

# 1. A 64 TiB MAP_NORESERVE reservation (ASan, Go, JVMs) aborted with bad_alloc: a byte per page.
case_huge_mapping() {
  cat >huge.strace <<'EOF'
1796015527.944510 mmap(NULL, 70368744177664, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0) = 0x100000000000 <0.000020>
1796015527.945510 madvise(0x100000000000, 70368744177664, MADV_DONTNEED) = 0 <0.000020>
1796015527.946510 munmap(0x100000000000, 70368744177664) = 0 <0.000020>
EOF
  expect 0 "4 events" "$TR" import --from strace huge.strace -o huge.mmtrace
  expect 0 "madvise" "$TR" replay huge.mmtrace --policy default --json huge.json
  # 64 TiB at a byte per 4 KiB page is 16 GiB; sparse page state costs nothing untouched.
  local rss
  rss=$(json_field huge.json "j['host']['peak_rss_kb']")
  [[ $rss -lt 262144 ]] && echo "ok: peak RSS ${rss} KiB" || fail "peak RSS ${rss} KiB for an untouched 64 TiB mapping"
}

# 2. A crafted stream id: 2^32-1 overflowed stream + 1 (SIGSEGV), 60M allocated 60M threads.
case_crafted_header() {
  local s
  for s in 4294967295 60000000; do
    "$HOSTILE" "$SHARED/sample.mmtrace" "stream$s.mmtrace" "$s" || fail "make_hostile_trace $s"
    for cmd in info cat; do
      expect 2 "offset [0-9]+: chunk (names|holds) stream $s" "$TR" "$cmd" "stream$s.mmtrace"
    done
  done
}

# 3. A failed run overwrote --json/--csv with zeroed runs; merge and report accepted them.
case_failed_run_writes_nothing() {
  cp "$SHARED/je.mmtrace" bad.mmtrace
  flip bad.mmtrace "$(chunk_offsets bad.mmtrace | awk '{print $2 + 40}')"
  echo keep >old.json && echo keep >old.csv && echo keep >old-timeline.json
  expect 2 "offset [0-9]+" "$TR" replay bad.mmtrace --json old.json --csv old.csv --timeline old-timeline.json
  [[ "$(cat old.json old.csv old-timeline.json)" == $'keep\nkeep\nkeep' ]] && echo "ok: old outputs kept" || fail "old outputs changed"
  [[ -z "$(ls -a | grep tmp || true)" ]] && echo "ok: no temporaries left" || fail "temporaries left"
  # --keep-going keeps the finished runs (none here) and marks the failed: merge and report refuse.
  expect 2 "keep-going: 2 of 2 runs failed" "$TR" compare bad.mmtrace --policy per-call,vector --keep-going --json partial.json
  [[ "$(json_field partial.json "'failed' in j['runs'][0]")" == True ]] && echo "ok: failed run marked" || fail "failed run not marked"
  expect 2 "run 1 failed and holds no results" "$TR" merge partial.json -o merged.json
  expect 2 "run 1 failed and holds no results" "$TR" report partial.json -o report.html
  [[ ! -e merged.json && ! -e report.html ]] && echo "ok: nothing written" || fail "merge or report wrote a file"
}

# 4. merge compared only the trace path, the command and the run count.
case_merge_other_study() {
  local je="$SHARED/je.mmtrace"
  expect 0 "" "$TR" compare "$je" --policy per-call,vector --cpus 4 --shard 1/2 --json c4.json
  expect 0 "" "$TR" compare "$je" --policy per-call,vector --cpus 8 --shard 2/2 --json c8.json
  expect 2 "a shard of a different study .*run 1: cpus 4 vs 8" "$TR" merge c4.json c8.json -o m.json
  expect 0 "" "$TR" compare "$SHARED/je-other.mmtrace" --policy per-call,vector --cpus 4 --shard 2/2 --json other.json
  expect 2 "trace 1 content_hash" "$TR" merge c4.json other.json -o m.json
  # The same trace copied elsewhere is the same study.
  cp "$je" copy.mmtrace
  expect 0 "" "$TR" compare copy.mmtrace --policy per-call,vector --cpus 4 --shard 2/2 --json copy.json
  expect 0 "" "$TR" merge c4.json copy.json -o m.json
}

# 5. An interrupted gen destroyed the file it replaced; concurrent gens left a corrupt file.
case_atomic_outputs() {
  "$TR" gen madv-bomb --processes 2 --size 1M --loops 2 -o out.mmtrace >/dev/null || fail "gen"
  # Killed at whatever point it reached: the path holds the old trace or the whole new one.
  timeout -s KILL 0.3 "$TR" gen jemalloc-purge --threads 8 --loops 2000000 -o out.mmtrace >/dev/null 2>&1
  expect 0 "index matches" "$TR" check out.mmtrace
  local pids=()
  for i in 1 2 3; do
    "$TR" gen jemalloc-purge --threads 4 --loops $((3000 * i)) --scale small -o same.mmtrace >/dev/null &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail "concurrent gen exited $?"; done
  expect 0 "index matches" "$TR" check same.mmtrace
  [[ -z "$(ls -a | grep 'same.mmtrace.*tmp' || true)" ]] && echo "ok: no temporaries left" || fail "temporaries left"
}

# 6. Write errors were ignored (--csv /dev/full exit 0); --hgrm onto a file aborted; an output
#    into a missing folder failed only after the whole simulation.
case_write_errors() {
  local mb="$SHARED/mb.mmtrace"
  expect 1 "/dev/full" "$TR" replay "$mb" --csv /dev/full
  touch hgrm-file
  expect 1 "hgrm-file" "$TR" replay "$mb" --hgrm hgrm-file
  expect 1 "--json /dev/null/x.json: /dev/null is not a directory" "$TR" replay "$mb" --json /dev/null/x.json
  expect 1 "/dev/null/x.mmtrace: cannot create" "$TR" gen madv-bomb --scale small -o /dev/null/x.mmtrace
}

# 7. Uncaught exceptions: merge of a JSON without "study"; --threads 65537 crashed inside TBB.
case_no_uncaught_exceptions() {
  echo '{"schema":1,"runs":[]}' >nostudy.json
  echo '{"schema":1,"runs":[{"index":0}],"traces":[],"study":{"command":"compare","runs_total":1,"identity":{"shards":1,"runs":[]}},"host":{"wall_seconds":"x"}}' >badtype.json
  echo '[1,2' >notjson.json
  expect 2 "nostudy.json: results without a complete \"study\" section" "$TR" merge nostudy.json -o m.json
  expect 2 "badtype.json: malformed results" "$TR" merge badtype.json -o m.json
  expect 2 "notjson.json" "$TR" merge notjson.json -o m.json
  expect 2 "notjson.json" "$TR" report notjson.json -o r.html
  expect 2 "--threads" "$TR" replay "$SHARED/mb.mmtrace" --threads 65537
}

# 8. A cost of 2^63-1 ns was accepted and latencies wrapped to 1.8e19 ns.
case_cost_profile_bounds() {
  python3 -c "import json; j = json.load(open('$SHARED/cal.json')); k = next(iter(j['costs'])); v = j['costs'][k]; j['costs'][k] = dict(v, ns=9223372036854775807) if isinstance(v, dict) else 9223372036854775807; json.dump(j, open('huge-cost.json', 'w'))"
  expect 2 "outside 0..1000000000" "$TR" replay "$SHARED/mb.mmtrace" --profile ./huge-cost.json
}

# 9. Recovery: with the index lost it stopped at the first bad frame (2 of 15 chunks); two traces
#    concatenated were accepted; with the index intact one bad chunk made the trace unreadable.
case_recovery() {
  local offsets chunks end
  read -r -a offsets <<<"$(chunk_offsets "$SHARED/sample.mmtrace")"
  chunks=${#offsets[@]}
  # Cut at the start of the index frame (no index, no footer), then damage the third chunk.
  end=$("$TR" info --json --chunks "$SHARED/sample.mmtrace" | python3 -c "import json, sys; c = json.load(sys.stdin)['chunk_index'][-1]; print(c['offset'] + c['size'])")
  head -c "$end" "$SHARED/sample.mmtrace" >noindex.mmtrace
  flip noindex.mmtrace $((offsets[2] + 30))
  expect 0 "recovered $((chunks - 1)) chunks" "$TR" info noindex.mmtrace
  # Stray bytes between two frames cost nothing but themselves.
  { head -c "${offsets[5]}" noindex.mmtrace; head -c 777 /dev/zero | tr '\0' 'Z'; tail -c +$((offsets[5] + 1)) noindex.mmtrace; } >stray.mmtrace
  expect 0 "skipped 777 bytes at offset ${offsets[5]}" "$TR" info stray.mmtrace
  cat "$SHARED/sample.mmtrace" "$SHARED/sample.mmtrace" >twice.mmtrace
  expect 2 "offset [0-9]+: a second header frame" "$TR" info twice.mmtrace
  expect 2 "offset [0-9]+: a second header frame" "$TR" check twice.mmtrace
  # Index intact, one chunk damaged: exit 2 naming it, or --skip-damaged replays the rest.
  cp "$SHARED/je.mmtrace" onebad.mmtrace
  read -r -a offsets <<<"$(chunk_offsets onebad.mmtrace)"
  flip onebad.mmtrace $((offsets[3] + 50))
  expect 2 "frame at offset ${offsets[3]}.*--skip-damaged" "$TR" replay onebad.mmtrace --policy per-call
  expect 0 "offset ${offsets[3]}: dropped the chunk of stream .*--skip-damaged dropped 1 of ${#offsets[@]} chunks" \
    "$TR" replay onebad.mmtrace --policy per-call --skip-damaged --json skipped.json
  [[ "$(json_field skipped.json "len(j['trace']['warnings'])")" -ge 1 ]] && echo "ok: results say what was dropped" || fail "results do not say what was dropped"
}

# 10. Exit codes disagreed: replay exited 1 on a corrupt chunk where info and cat exited 2; gen,
#     import, merge and calibrate exited 1 for an unwritable output where replay exited 2.
case_exit_codes() {
  cp "$SHARED/je.mmtrace" corrupt.mmtrace
  flip corrupt.mmtrace "$(chunk_offsets corrupt.mmtrace | awk '{print $1 + 60}')"
  for cmd in replay info cat check; do
    expect 2 "corrupt.mmtrace: .*offset [0-9]+" "$TR" "$cmd" corrupt.mmtrace
  done
  expect 0 "" "$TR" replay "$SHARED/mb.mmtrace" --json good.json
  expect 1 "/dev/null/x" "$TR" gen madv-bomb --scale small -o /dev/null/x.mmtrace
  expect 1 "/dev/null/x" "$TR" import --from strace /dev/null -o /dev/null/x.mmtrace
  expect 1 "/dev/null/x" "$TR" merge good.json -o /dev/null/x.json
  expect 1 "/dev/null/x" "$TR" calibrate --quick -o /dev/null/x.json
  expect 1 "/dev/null/x" "$TR" replay "$SHARED/mb.mmtrace" --json /dev/null/x.json
  expect 1 "/dev/null/x" "$TR" report good.json -o /dev/null/x.html
}

# 11. Loose validation: each bad value exits 2 and the message names the flag and its bound.
case_bounds() {
  local mb="$SHARED/mb.mmtrace"
  expect 2 "--memory" "$TR" replay "$mb" --memory 0
  expect 2 "--threads" "$TR" replay "$mb" --threads 0
  expect 2 "--threads" "$TR" replay "$mb" --threads -3
  expect 2 "--policy" "$TR" replay "$mb" --policy ''
  expect 2 "--cpus" "$TR" replay "$mb" --cpus 100000
  expect 2 "--scale" "$TR" gen madv-bomb --scale 1e300 -o x.mmtrace
  expect 2 "--min-size 64K is above --max-size 4K" "$TR" gen jemalloc-purge --min-size 64K --max-size 4K -o x.mmtrace
  expect 2 "--chunk: 3M is not a power of two" "$TR" gen jemalloc-purge --chunk 3M -o x.mmtrace
  expect 2 "--size: bad size '99999999999999999999999'" "$TR" gen madv-bomb --size 99999999999999999999999 -o x.mmtrace
  [[ ! -e x.mmtrace ]] && echo "ok: no trace written" || fail "a refused gen wrote x.mmtrace"
}

# 11b. `gen --loops 2^64-1` ran until the disk was full and `gen bulk-free --scale 1e6` practically
#      forever: gen estimates its trace first and refuses one over --max-bytes (64 GiB) at once.
case_gen_runaway() {
  local w
  for w in madv-bomb jemalloc-purge cma-bh page-fault-scale page_fault1 tlb_flush1 ebizzy madvise-vector mmap-munmap; do
    expect 2 "over --max-bytes 68719476736 \(64.0 GiB\): lower --loops" "$TR" gen "$w" --loops 18446744073709551615 -o runaway.mmtrace
  done
  for w in bulk-free parallel-dd; do
    expect 2 "lower --size or --scale" "$TR" gen "$w" --scale 1e6 -o runaway.mmtrace
  done
  # jemalloc-purge's scaled slot table is sparse: its trace stays ~10 MB, refused only below that.
  expect 2 "over --max-bytes 1048576 \(1.0 MiB\)" "$TR" gen jemalloc-purge --scale 1e6 --max-bytes 1M -o runaway.mmtrace
  [[ ! -e runaway.mmtrace ]] && echo "ok: no trace written" || fail "a refused gen wrote runaway.mmtrace"
}

if [[ "$CASE" == setup ]]; then
  case_setup
else
  mkdir -p "$WORK/$CASE" && cd "$WORK/$CASE" || exit 1
  "case_$CASE"
fi
exit $FAILED

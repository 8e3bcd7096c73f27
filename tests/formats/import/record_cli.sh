#!/usr/bin/env bash
# `trace-replay record` as a user runs it (issue 19): one run of the command, its output once,
# its exit status passed on, 127 and no trace when it cannot run. `record_cli.sh CASE`, in a
# scratch folder of its own.
#
# Environment (tests/formats/import/CMakeLists.txt): TR (trace-replay), WORK (a scratch folder).
# Cases that need perf exit 77 (CTest's SKIP_RETURN_CODE), saying why, when record reports that
# perf is missing or not permitted here.
set -uo pipefail

CASE="$1"
readonly SKIP=77
mkdir -p "$WORK/$CASE" && cd "$WORK/$CASE" || exit 1
rm -f ./*.mmtrace ./*.out ./*.err

# Exits 77 when record cannot use perf here (its message names the fix).
skip_without_perf() {
  "$TR" record -o probe.mmtrace -- true >/dev/null 2>probe.err
  if [[ $? -eq 1 ]] && grep -Eq "not found on PATH|not permitted|tracefs is not mounted" probe.err
  then
    echo "SKIP: perf cannot record here: $(cat probe.err)"
    exit "$SKIP"
  fi
}

fail() {
  echo "FAIL: $*"
  exit 1
}

case "$CASE" in
  command_status)
    skip_without_perf
    "$TR" record -o false.mmtrace -- false 2>false.err
    rc=$?
    [[ $rc -eq 1 ]] || fail "record -- false exited $rc, not false's 1: $(cat false.err)"
    [[ -s false.mmtrace ]] || fail "record -- false wrote no trace"
    "$TR" record -o three.mmtrace -- sh -c 'exit 3' 2>three.err
    rc=$?
    [[ $rc -eq 3 ]] || fail "record -- sh -c 'exit 3' exited $rc: $(cat three.err)"
    ;;
  cannot_run)
    # Decided before perf is looked for: needs no perf.
    "$TR" record -o none.mmtrace -- /nonexistent 2>none.err
    rc=$?
    [[ $rc -eq 127 ]] || fail "record -- /nonexistent exited $rc, not 127"
    grep -q "/nonexistent: cannot run" none.err || fail "message: $(cat none.err)"
    [[ -e none.mmtrace ]] && fail "record -- /nonexistent left none.mmtrace"
    echo keep >kept.mmtrace
    "$TR" record -o kept.mmtrace -- no-such-command-here 2>kept.err
    rc=$?
    [[ $rc -eq 127 ]] || fail "record -- no-such-command-here exited $rc, not 127"
    [[ "$(cat kept.mmtrace)" == keep ]] || fail "an existing output was overwritten"
    ;;
  output_once)
    skip_without_perf
    "$TR" record -o echo.mmtrace -- echo hello >echo.out 2>echo.err || fail "$(cat echo.err)"
    [[ "$(grep -c hello echo.out)" -eq 1 ]] || fail "hello came out $(grep -c hello echo.out) times"
    grep -q "baseline\|plain" echo.err && fail "a baseline run without --baseline: $(cat echo.err)"
    "$TR" record --baseline -o base.mmtrace -- echo hello >base.out 2>base.err ||
      fail "$(cat base.err)"
    [[ "$(grep -c hello base.out)" -eq 1 ]] || fail "with --baseline hello came out twice"
    grep -q "overhead: .*x (traced span / plain wall time)" base.err ||
      fail "no overhead line: $(cat base.err)"
    ;;
  run_once)
    # A command with a side effect (it removes its own input, as `xz f` does) records fine.
    skip_without_perf
    echo data >f
    "$TR" record -o rm.mmtrace -- sh -c 'test -e f && rm f' 2>rm.err
    rc=$?
    [[ $rc -eq 0 ]] || fail "the recorded run did not find f (run before?): exit $rc"
    ;;
  all_syscalls)
    # Every syscall traced: the ones not modelled are counted by name.
    skip_without_perf
    "$TR" record --all-syscalls -o cat.mmtrace -- cat /dev/null 2>cat.err || fail "$(cat cat.err)"
    grep -Eq "ignored \(not modelled\):.* newfstatat x[0-9]+" cat.err || fail "$(cat cat.err)"
    # openat and close are descriptor calls now (issue 19): modelled, not ignored.
    grep -Eq "ignored \(not modelled\):.* (openat|close) x" cat.err && fail "$(cat cat.err)"
    grep -Eq "[1-9][0-9]* descriptor calls" cat.err || fail "$(cat cat.err)"
    ;;
  fd_kinds)
    # cat of a file to /dev/null: the input's open is named by the uprobe on glibc's open64, and
    # stdout, inherited from record, by record's look at its own fd 1 (issue 19 item 5).
    skip_without_perf
    head -c 65536 /dev/zero >input.bin
    "$TR" record -o cat.mmtrace -- cat "$PWD/input.bin" >/dev/null 2>cat.err || fail "$(cat cat.err)"
    "$TR" info cat.mmtrace >info.out || fail "info: $(cat info.out)"
    grep -Eq "/dev/null \(char, existed" info.out || fail "stdout not a char device: $(cat info.out)"
    if grep -q "probe_libc" cat.err; then fail "probe events not read: $(cat cat.err)"; fi
    # The uprobes need glibc at a usual place; without them the input stays unknown (README).
    if [[ -e /lib/x86_64-linux-gnu/libc.so.6 ]]; then
      grep -Eq "input.bin \(regular, existed" info.out || fail "input not named: $(cat info.out)"
    fi
    ;;
  socket_buffer)
    # The send buffer the kernel gives a new socket here (net.core.wmem_default) and the cap on
    # SO_SNDBUF (wmem_max) go into the header, for the socket wake-ups the import derives
    # (formats/import/socket_wakeups.h).
    skip_without_perf
    "$TR" record -o true.mmtrace -- true 2>true.err || fail "$(cat true.err)"
    "$TR" info --json true.mmtrace >info.out || fail "info: $(cat info.out)"
    want=$(cat /proc/sys/net/core/wmem_default)
    grep -q "\"net.core.wmem_default\": \"$want\"" info.out ||
      fail "no net.core.wmem_default $want in the header: $(cat info.out)"
    want=$(cat /proc/sys/net/core/wmem_max)
    grep -q "\"net.core.wmem_max\": \"$want\"" info.out ||
      fail "no net.core.wmem_max $want in the header: $(cat info.out)"
    ;;
  min_free_kbytes)
    # The recording machine's vm.min_free_kbytes goes into the header (format 1.12), and replay
    # on the recorded memory sets the watermarks from it.
    skip_without_perf
    "$TR" record -o true.mmtrace -- true 2>true.err || fail "$(cat true.err)"
    "$TR" info --json true.mmtrace >info.out || fail "info: $(cat info.out)"
    want=$(cat /proc/sys/vm/min_free_kbytes)
    grep -q "\"min_free_kbytes\": $want\b" info.out ||
      fail "no min_free_kbytes $want in the header: $(cat info.out)"
    "$TR" replay true.mmtrace --json replay.json >/dev/null 2>replay.err || fail "$(cat replay.err)"
    grep -q "\"min_free_kbytes\": $want\b" replay.json ||
      fail "replay's machine has not min_free_kbytes $want: $(cat replay.json)"
    ;;
  path_order)
    # The command is the one the user's PATH names. perf record, given a bare name, looks it up
    # with the folder of its own binary (/usr/bin) first, so a `true` earlier on PATH (here a
    # script that leaves a mark, as a pyenv or venv shim stands before /usr/bin/python3) gave
    # way to /usr/bin/true.
    skip_without_perf
    mkdir -p shadow && rm -f ran
    printf '#!/bin/sh\ntouch "%s/ran"\n' "$PWD" >shadow/true && chmod +x shadow/true
    PATH="$PWD/shadow:$PATH" "$TR" record -o shadow.mmtrace -- true 2>shadow.err ||
      fail "$(cat shadow.err)"
    [[ -e ran ]] || fail "record ran another true than the first on PATH: $(cat shadow.err)"
    grep -q -- "-- true$" <("$TR" info shadow.mmtrace) ||
      fail "the header's command line is not as typed: $("$TR" info shadow.mmtrace)"
    ;;
  *)
    fail "unknown case $CASE"
    ;;
esac
echo "ok: $CASE"

#!/usr/bin/env bash
# Runs every Google Benchmark in bench/ on a Release build and prints one Markdown table: each
# benchmark, what it measures (bench/descriptions.tsv), and its figures, with the date and the
# load average (figures taken on a busy machine are noise; run it when nothing else does).
#
#   tools/bench.sh                       all benchmarks (several minutes)
#   tools/bench.sh --filter 'BM_Decode'  only those whose name matches (a benchmark_filter regex)
#   tools/bench.sh --build DIR           a build other than build/release
#   tools/bench.sh --min-time 0.2        seconds per benchmark (default: Google Benchmark's)
#
# The table is what bench/README.md holds under "Last figures". Exit 2 on a bad flag or a
# missing build; 1 if a benchmark fails.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/release
filter=.
min_time=
usage() { echo "usage: tools/bench.sh [--build DIR] [--filter REGEX] [--min-time SECONDS]" >&2; }
while (($#)); do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift 2 ;;
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    --min-time) min_time=${2:?--min-time needs seconds}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "tools/bench.sh: unknown flag '$1'" >&2; usage; exit 2 ;;
  esac
done
if [[ -n "$min_time" && ! "$min_time" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "tools/bench.sh: --min-time '$min_time' is not a number of seconds" >&2; exit 2
fi
if ! command -v python3 >/dev/null; then
  echo "tools/bench.sh: python3 is needed to print the table" >&2; exit 2
fi
if [[ ! -d "$build/bench" ]]; then
  echo "tools/bench.sh: no benchmarks in $build/bench (cmake --preset release && cmake --build --preset release)" >&2
  exit 2
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Each binary once, in the order descriptions.tsv lists them.
binaries=$(grep -v '^#' bench/descriptions.tsv | cut -f2 | awk '!seen[$0]++')
for b in $binaries; do
  exe="$build/bench/$b"
  if [[ ! -x "$exe" ]]; then
    echo "tools/bench.sh: $exe is missing (build the release preset)" >&2; exit 2
  fi
  # A binary with nothing matching the filter is skipped (it would write an empty file).
  if ! "$exe" --benchmark_list_tests --benchmark_filter="$filter" 2>/dev/null | grep -q .; then
    continue
  fi
  args=(--benchmark_filter="$filter" --benchmark_format=json --benchmark_out_format=json
        --benchmark_out="$out/$(echo "$b" | tr / _).json")
  [[ -n "$min_time" ]] && args+=(--benchmark_min_time="$min_time")
  echo "bench: $b" >&2
  "$exe" "${args[@]}" >/dev/null
done

python3 - "$out" bench/descriptions.tsv <<'PY'
import glob, json, os, sys

out, table = sys.argv[1], sys.argv[2]
what = {}
for line in open(table):
    if line.startswith('#') or not line.strip():
        continue
    family, _binary, text = line.rstrip('\n').split('\t')
    what[family] = text

def si(v):
    for unit, scale in (('G', 1e9), ('M', 1e6), ('K', 1e3)):
        if abs(v) >= scale:
            return f'{v / scale:.3g}{unit}'
    return f'{v:.3g}'

# Fields Google Benchmark writes for every run; everything else is a counter the benchmark set.
standard = {'name', 'family_index', 'per_family_instance_index', 'run_name', 'run_type',
            'repetitions', 'repetition_index', 'threads', 'iterations', 'real_time',
            'cpu_time', 'time_unit', 'items_per_second', 'bytes_per_second', 'label',
            'aggregate_name', 'aggregate_unit', 'error_occurred', 'error_message'}
rows, context = [], None
for path in sorted(glob.glob(os.path.join(out, '*.json'))):
    with open(path) as f:
        doc = json.load(f)
    context = context or doc['context']
    for b in doc.get('benchmarks', []):
        if b.get('error_occurred'):
            print(f"bench: {b['name']}: {b.get('error_message', 'failed')}", file=sys.stderr)
            sys.exit(1)
        family = b['name'].split('/')[0]
        figures = [f"{b['real_time']:.3g} {b['time_unit']}"]
        if 'items_per_second' in b:
            figures.append(f"{si(b['items_per_second'])} items/s")
        figures += [f'{k} {si(v)}' for k, v in b.items()
                    if k not in standard and isinstance(v, (int, float))]
        rows.append((b['name'], what.get(family, '(not in bench/descriptions.tsv)'),
                     ', '.join(figures)))
if context is None:
    print('bench: no benchmark matched', file=sys.stderr)
    sys.exit(1)
load = ', '.join(f'{x:.2f}' for x in context.get('load_avg', []))
print(f"Figures of {context['date']} on {context['num_cpus']} CPUs, load average {load}.\n")
print('| benchmark | what it measures | figures |')
print('|---|---|---|')
for name, text, figures in rows:
    print(f'| {name} | {text} | {figures} |')
PY

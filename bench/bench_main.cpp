// main() of every benchmark program: the host malloc tuned as trace-replay tunes it, so that a
// benchmark measures the allocation behaviour the CLI has (replay/host_malloc.h), then Google
// Benchmark's own main.

#include <benchmark/benchmark.h>

#include "replay/host_malloc.h"

int main(int argc, char** argv) {
  mmreplay::replay::tune_host_malloc();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Writes a random trace with every event kind to argv[1] (used by the command-line tests).
#include <cstdio>
#include <cstdlib>

#include "formats/trace_writer.h"
#include "tests/formats/random_trace.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_sample_trace OUT [seed] [threads] [events]\n");
    return 2;
  }
  using namespace mmreplay::formats;
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const uint32_t threads = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 4;
  const uint32_t events = argc > 4 ? static_cast<uint32_t>(std::atoi(argv[4])) : 1000;
  WriterOptions options;
  options.chunk_events = 256;
  testing::write_trace(argv[1], testing::make_random_trace(seed, threads, events), options);
  return 0;
}

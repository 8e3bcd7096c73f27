// Random traces for the format tests: every event kind, fixed seeds, only the fields each kind
// stores, timestamps non-decreasing per thread.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/event.h"
#include "formats/trace_meta.h"
#include "formats/trace_writer.h"

namespace mmreplay::formats::testing {

// The page size of the traces the tests write by hand.
inline constexpr uint64_t kPage = 4096;

struct StreamEvents {
  std::vector<Event> events;
  std::vector<std::vector<Range>> ranges;  // per event; empty unless a vector madvise
};

struct RandomTrace {
  TraceMeta meta;
  std::vector<StreamEvents> streams;
  uint64_t total_events() const;
};

// `threads` threads, about `events_per_thread` events each (exact count), every kind present
// when events_per_thread >= kEventKindCount.
RandomTrace make_random_trace(uint64_t seed, uint32_t threads, uint32_t events_per_thread);

// One event of `kind` with random fields (ranges filled for a vector madvise).
Event random_event(EventKind kind, uint64_t ts, uint64_t* rng, std::vector<Range>* ranges);

// Writes the trace, interleaving threads round-robin as a recorder would. Fails the test on error.
void write_trace(const std::string& path, const RandomTrace& trace, WriterOptions options);

// Reads every stream back through StreamCursor; fails the test on error.
RandomTrace read_trace(const std::string& path);

// A per-test temporary path under the build tree's temp dir.
std::string temp_path(const std::string& name);

// A whole file as bytes, and bytes written as a whole file (for tests that damage traces).
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

}  // namespace mmreplay::formats::testing

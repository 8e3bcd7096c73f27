// EventSink: where a generator's events go. Generators only see this interface, so the same
// recipe writes an .mmtrace file (WriterSink) or fills memory for tests and benchmarks
// (CollectingSink), and tests need no files.
//
// Contract, the same as TraceWriter's: add_thread() returns stream ids 0, 1, 2, ...; events of
// one stream are appended in timestamp order; `ranges` only accompany kMadviseVector.

#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace_meta.h"
#include "formats/trace_writer.h"

namespace mmreplay::gen {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual uint32_t add_thread(formats::ThreadInfo info) = 0;
  virtual Status append(uint32_t stream, const formats::Event& event,
                        std::span<const formats::Range> ranges) = 0;
};

// Forwards to a TraceWriter the caller owns and closes. With a byte limit, the append that
// finds the trace grown past it fails with InvalidArgument naming --max-bytes (the gen option
// that sets it), and so does every later one; the caller then abandons the writer, which leaves
// no trace. The check sees what the writer has flushed, so a trace may pass the limit by up to
// WriterOptions::max_buffered_bytes before it is stopped.
class WriterSink final : public EventSink {
 public:
  explicit WriterSink(formats::TraceWriter* writer,
                      uint64_t max_bytes = std::numeric_limits<uint64_t>::max())
      : writer_(writer), max_bytes_(max_bytes) {}
  uint32_t add_thread(formats::ThreadInfo info) override;
  Status append(uint32_t stream, const formats::Event& event,
                std::span<const formats::Range> ranges) override;

 private:
  formats::TraceWriter* writer_;  // not owned
  uint64_t max_bytes_;
};

// Counts events per kind and per stream; with keep_events, also keeps every event (and the
// vector ranges, appended to ranges() with range_begin pointing into it) for inspection.
class CollectingSink final : public EventSink {
 public:
  explicit CollectingSink(bool keep_events = true) : keep_events_(keep_events) {}

  uint32_t add_thread(formats::ThreadInfo info) override;
  Status append(uint32_t stream, const formats::Event& event,
                std::span<const formats::Range> ranges) override;

  uint64_t count(formats::EventKind kind) const { return counts_[static_cast<size_t>(kind)]; }
  uint64_t total() const { return total_; }
  uint64_t ranges_total() const { return ranges_total_; }
  // Sum of len over write touches, and the pages they cover (stride = one page).
  uint64_t touched_write_bytes() const { return touched_write_bytes_; }
  // Sum of len over madvise ranges, plain and vector, of any advice.
  uint64_t madvised_bytes() const { return madvised_bytes_; }

  const std::vector<formats::ThreadInfo>& threads() const { return threads_; }
  // Events of one stream, in append order (empty unless keep_events).
  const std::vector<formats::Event>& events(uint32_t stream) const { return events_[stream]; }
  const std::vector<formats::Range>& ranges() const { return ranges_; }
  // True when every stream's timestamps never went backwards.
  bool monotonic() const { return monotonic_; }

 private:
  bool keep_events_;
  std::array<uint64_t, formats::kEventKindCount> counts_{};
  uint64_t total_ = 0;
  uint64_t ranges_total_ = 0;
  uint64_t touched_write_bytes_ = 0;
  uint64_t madvised_bytes_ = 0;
  bool monotonic_ = true;
  std::vector<formats::ThreadInfo> threads_;
  std::vector<uint64_t> last_ts_;
  std::vector<std::vector<formats::Event>> events_;
  std::vector<formats::Range> ranges_;
};

}  // namespace mmreplay::gen

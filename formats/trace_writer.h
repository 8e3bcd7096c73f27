// TraceWriter: streams events of many threads into an .mmtrace file.
//
// Each thread (stream) has its own buffer of encoded columns; when a buffer holds
// `chunk_events` events it is compressed into one zstd frame and written. If the buffers of all
// threads together pass `max_buffered_bytes`, the fullest one is flushed early, so memory stays
// bounded whatever the trace length and thread count. close() flushes what is left and writes the
// index (a zstd skippable frame) and the fixed footer.
//
// Output is deterministic: the same calls give the same bytes.
//
// REQUIRES: events of one stream are appended in timestamp order (ties allowed).
// REQUIRES: a stream id is an index into the thread table (add_thread returns it).

#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "formats/event.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

struct WriterOptions {
  uint32_t chunk_events = 8192;               // events per chunk (per thread)
  int zstd_level = 9;                         // 1..19
  uint64_t max_buffered_bytes = 64ull << 20;  // all threads' encoded buffers together
};

class TraceWriter {
 public:
  // Opens `path` for writing. The header frame is written when the first chunk is flushed (or at
  // close), so threads may be added until then; threads added later still reach the reader through
  // the index.
  static std::unique_ptr<TraceWriter> create(const std::string& path, TraceMeta meta,
                                             WriterOptions options, Status* status);
  // Without a successful close() the trace is abandoned: the path keeps what it had before.
  ~TraceWriter();

  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Adds a thread and returns its stream id.
  uint32_t add_thread(ThreadInfo info);
  uint32_t thread_count() const;

  // Appends one event to a stream. `ranges` only for kMadviseVector (the event's range fields are
  // ignored). Returns an error on I/O failure or a bad stream id; the writer is then unusable.
  Status append(uint32_t stream, const Event& event, std::span<const Range> ranges = {});

  // Flushes every buffer, writes the index and footer, closes the file and renames it over the
  // path (it was written beside it; formats/atomic_file.h).
  Status close();

  uint64_t events_written() const;
  uint64_t bytes_written() const;  // compressed bytes so far, all frames
  uint64_t chunks_written() const;

 private:
  struct Impl;
  explicit TraceWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mmreplay::formats

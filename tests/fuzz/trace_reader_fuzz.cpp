// Fuzz target for the trace reader: any byte string is opened as a trace, every chunk the reader
// finds is decoded, and every stream is walked. Bad input must give a Status, never a crash, a
// sanitizer report or unbounded memory.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/frame_scan.h"
#include "formats/trace_reader.h"

namespace {
// Small frame limit so a hostile "declared size" cannot make one input allocate much.
constexpr uint64_t kFuzzMaxFrameBytes = 8ull << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmreplay::formats;
  ReaderOptions options;
  options.max_frame_bytes = kFuzzMaxFrameBytes;
  mmreplay::Status status;
  auto reader = TraceReader::open_buffer("fuzz-input", std::vector<uint8_t>(data, data + size),
                                         options, &status);
  if (!reader) return 0;
  DecodedChunk chunk;
  for (const ChunkRef& ref : reader->chunks()) (void)reader->decode(ref, &chunk);
  for (uint32_t s = 0; s < reader->meta().threads.size() && s < 64; ++s) {
    StreamCursor cursor(*reader, s);
    while (cursor.next()) (void)cursor.ranges();
  }
  (void)scan_chunk_frames(reader->bytes(), 0, kFuzzMaxFrameBytes);
  return 0;
}

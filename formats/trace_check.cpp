#include "formats/trace_check.h"

#include <vector>

#include "formats/frame_io.h"
#include "formats/frame_scan.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {
namespace {

std::string off(uint64_t offset) {
  return "offset " + std::to_string(offset);
}

// Walks every frame after the header; fails on the first damaged one.
Status walk_frames(const std::string& path, std::span<const uint8_t> bytes, uint64_t start,
                   uint64_t index_start, size_t threads, std::vector<ChunkRef>* chunks,
                   CheckReport* report) {
  ParsedFrame parsed;
  std::vector<uint64_t> next_seq(threads, 0);
  uint64_t offset = start;
  while (offset < index_start) {
    FrameSpan frame;
    if (Status s = find_frame(bytes.first(index_start), offset, &frame); !s) {
      return s.with_context(path);
    }
    ++report->frames;
    if (frame.kind == FrameKind::kSkippable) {
      return Status::corruption(path + ": " + off(offset) +
                                ": unexpected skippable frame in the data");
    }
    if (Status s = parse_frame(bytes, frame, ReaderOptions().max_frame_bytes, &parsed); !s) {
      return s.with_context(path);
    }
    if (parsed.is_header) {
      return Status::corruption(path + ": " + off(offset) +
                                ": a second header frame (two traces in one file?)");
    }
    ChunkRef ref = parsed.chunk.ref;
    ref.offset = frame.offset;
    ref.size = frame.size;
    if (ref.stream >= next_seq.size()) {
      return Status::corruption(path + ": " + off(offset) + ": chunk names stream " +
                                std::to_string(ref.stream) + " but the thread table has " +
                                std::to_string(threads) + " threads");
    }
    if (ref.seq < next_seq[ref.stream]) {
      return Status::corruption(path + ": " + off(offset) + ": stream " +
                                std::to_string(ref.stream) + " chunk seq " +
                                std::to_string(ref.seq) + " repeats (a duplicated chunk)");
    }
    if (ref.seq != next_seq[ref.stream]++) {
      return Status::corruption(path + ": " + off(offset) + ": stream " +
                                std::to_string(ref.stream) + " chunk seq " +
                                std::to_string(ref.seq) + ", expected " +
                                std::to_string(next_seq[ref.stream] - 1) + " (a chunk is missing)");
    }
    chunks->push_back(ref);
    ++report->chunks;
    report->events += ref.events;
    offset += frame.size;
  }
  return Status::ok();
}

}  // namespace

Status check_trace(const std::string& path, CheckReport* report) {
  *report = CheckReport();
  ReaderOptions strict;
  strict.allow_recovery = false;
  Status status;
  auto reader = TraceReader::open(path, strict, &status);
  if (!reader) return status;
  report->has_index = true;
  const auto bytes = reader->bytes();

  FrameSpan header;
  if (Status s = find_frame(bytes, 0, &header); !s) return s.with_context(path);
  report->frames = 1;
  Footer footer;
  decode_footer(bytes.data() + bytes.size() - kFooterBytes, &footer);
  const uint64_t index_start =
      bytes.size() - kFooterBytes - footer.index_bytes - kSkippableHeaderBytes;

  std::vector<ChunkRef> scanned;
  if (Status s = walk_frames(path, bytes, header.offset + header.size, index_start,
                             reader->meta().threads.size(), &scanned, report);
      !s) {
    return s;
  }
  ++report->frames;  // the index frame
  const auto& indexed = reader->chunks();
  if (indexed.size() != scanned.size()) {
    return Status::corruption(path + ": index lists " + std::to_string(indexed.size()) +
                              " chunks but the file holds " + std::to_string(scanned.size()));
  }
  for (size_t i = 0; i < scanned.size(); ++i) {
    if (!(indexed[i] == scanned[i])) {
      return Status::corruption(path + ": " + off(scanned[i].offset) +
                                ": index entry differs from the chunk's content");
    }
  }
  return Status::ok();
}

}  // namespace mmreplay::formats

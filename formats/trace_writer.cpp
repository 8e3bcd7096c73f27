#include "formats/trace_writer.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "formats/atomic_file.h"
#include "formats/chunk_codec.h"
#include "formats/frame_io.h"
#include "formats/header_codec.h"

namespace mmreplay::formats {

struct TraceWriter::Impl {
  std::string path;
  TraceMeta meta;
  WriterOptions options;
  std::FILE* file = nullptr;
  FrameCompressor compressor;
  std::vector<ChunkEncoder> streams;
  std::vector<uint64_t> next_seq;
  std::vector<ChunkRef> index;
  std::string frame;                              // scratch for one compressed frame
  std::vector<std::span<const uint8_t>> regions;  // scratch: a chunk's columns in its message
  uint64_t offset = 0;
  uint64_t events = 0;
  uint64_t buffered_bytes = 0;  // sum of encoded_bytes() over streams, updated at append/flush
  bool header_written = false;
  bool failed = false;
  bool closed = false;
  std::string tmp;  // the temporary being written; "" when writing a device in place

  Impl(std::string p, TraceMeta m, WriterOptions o, std::FILE* f)
      : path(std::move(p)), meta(std::move(m)), options(o), file(f), compressor(o.zstd_level) {}

  Status io_error(const char* what) {
    failed = true;
    return Status::io_error(path + ": " + what + " failed at offset " + std::to_string(offset) +
                            ": " + std::strerror(errno));
  }

  Status write_bytes(const void* data, size_t size) {
    if (size > 0 && std::fwrite(data, 1, size, file) != size) return io_error("write");
    offset += size;
    return Status::ok();
  }

  Status write_message(capnp::MallocMessageBuilder& message,
                       std::span<const std::span<const uint8_t>> regions = {}) {
    if (Status s = compressor.compress(message, &frame, regions); !s) {
      failed = true;
      return s.with_context(path);
    }
    return write_bytes(frame.data(), frame.size());
  }

  Status write_header() {
    capnp::MallocMessageBuilder message;
    auto root = message.initRoot<capnp_schema::Frame>();
    build_header(meta, options.chunk_events, root.initHeader());
    header_written = true;
    return write_message(message);
  }

  Status flush_stream(uint32_t stream) {
    ChunkEncoder& enc = streams[stream];
    if (enc.count() == 0) return Status::ok();
    if (!header_written) {
      if (Status s = write_header(); !s) return s;
    }
    // One segment, so that the compressor can give each column its own zstd blocks.
    capnp::MallocMessageBuilder message(static_cast<unsigned>(enc.message_words()));
    auto root = message.initRoot<capnp_schema::Frame>();
    const uint64_t seq = next_seq[stream]++;
    regions.clear();
    enc.build(root.initChunk(), stream, seq, &regions);
    const uint64_t frame_offset = offset;
    if (Status s = write_message(message, regions); !s) return s;
    index.push_back(ChunkRef{frame_offset, frame.size(), stream, seq, enc.first_ts(), enc.last_ts(),
                             enc.count()});
    buffered_bytes -= enc.encoded_bytes();
    enc.reset();
    return Status::ok();
  }

  // Keeps the buffers of all streams under the budget by flushing the fullest one early.
  Status enforce_budget() {
    while (buffered_bytes > options.max_buffered_bytes) {
      uint32_t fullest = 0;
      for (uint32_t i = 1; i < streams.size(); ++i) {
        if (streams[i].encoded_bytes() > streams[fullest].encoded_bytes()) fullest = i;
      }
      if (streams[fullest].count() == 0) break;
      if (Status s = flush_stream(fullest); !s) return s;
    }
    return Status::ok();
  }

  Status write_index() {
    capnp::MallocMessageBuilder message;
    build_index(index, meta.threads, events, message.initRoot<capnp_schema::Index>());
    kj::Array<capnp::word> flat = capnp::messageToFlatArray(message);
    const auto bytes = flat.asBytes();
    uint8_t head[kSkippableHeaderBytes];
    store_le32(head, kIndexFrameMagic);
    store_le32(head + 4, static_cast<uint32_t>(bytes.size() + kFooterBytes));
    Footer footer;
    footer.index_bytes = bytes.size();
    footer.index_crc = crc32({bytes.begin(), bytes.size()});
    footer.major = kFormatVersionMajor;
    footer.minor = kFormatVersionMinor;
    uint8_t tail[kFooterBytes];
    encode_footer(footer, tail);
    if (Status s = write_bytes(head, sizeof head); !s) return s;
    if (Status s = write_bytes(bytes.begin(), bytes.size()); !s) return s;
    return write_bytes(tail, sizeof tail);
  }
};

std::unique_ptr<TraceWriter> TraceWriter::create(const std::string& path, TraceMeta meta,
                                                 WriterOptions options, Status* status) {
  if (options.chunk_events == 0) {
    *status = Status::invalid_argument("writer: chunk_events must be at least 1");
    return nullptr;
  }
  // The trace is written beside the path and renamed over it by close(): a reader never sees half
  // a trace, and a failed or abandoned write leaves the old file (formats/atomic_file.h).
  const std::string tmp = temporary_path_beside(path);
  std::FILE* f = std::fopen(tmp.empty() ? path.c_str() : tmp.c_str(), "wb");
  if (f == nullptr) {
    *status = Status::io_error(path + ": cannot create: " + std::strerror(errno));
    return nullptr;
  }
  meta.version_major = kFormatVersionMajor;
  meta.version_minor = kFormatVersionMinor;
  auto impl = std::make_unique<Impl>(path, std::move(meta), options, f);
  impl->tmp = tmp;
  impl->streams.resize(impl->meta.threads.size());
  impl->next_seq.resize(impl->meta.threads.size());
  *status = Status::ok();
  return std::unique_ptr<TraceWriter>(new TraceWriter(std::move(impl)));
}

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TraceWriter::~TraceWriter() {
  Impl& w = *impl_;
  if (w.closed) return;
  // Abandoned without close(): the trace is incomplete, so the path keeps what it had.
  std::fclose(w.file);
  if (!w.tmp.empty()) std::remove(w.tmp.c_str());
}

uint32_t TraceWriter::add_thread(ThreadInfo info) {
  impl_->meta.threads.push_back(std::move(info));
  impl_->streams.emplace_back();
  impl_->next_seq.push_back(0);
  return static_cast<uint32_t>(impl_->meta.threads.size() - 1);
}

uint32_t TraceWriter::thread_count() const {
  return static_cast<uint32_t>(impl_->meta.threads.size());
}

Status TraceWriter::append(uint32_t stream, const Event& event, std::span<const Range> ranges) {
  Impl& w = *impl_;
  if (w.failed || w.closed) {
    // After a failed write the file is lost (I/O); appending after close() is the caller's error.
    std::string message = w.path + ": writer is closed or failed";
    return w.failed ? Status::io_error(std::move(message))
                    : Status::invalid_argument(std::move(message));
  }
  if (stream >= w.streams.size()) {
    return Status::invalid_argument(w.path + ": append to stream " + std::to_string(stream) +
                                    " but only " + std::to_string(w.streams.size()) + " threads");
  }
  if (ranges.size() > kMaxVectorRanges) {
    return Status::resource_exhausted(w.path + ": vector madvise with " +
                                      std::to_string(ranges.size()) + " ranges; at most " +
                                      std::to_string(kMaxVectorRanges));
  }
  if (!is_known_kind(static_cast<uint8_t>(event.kind))) {
    return Status::invalid_argument(w.path + ": unknown event kind " +
                                    std::to_string(static_cast<unsigned>(event.kind)));
  }
  ChunkEncoder& enc = w.streams[stream];
  const size_t before = enc.encoded_bytes();
  enc.append(event, ranges);
  w.buffered_bytes += enc.encoded_bytes() - before;
  ++w.events;
  if (enc.count() >= w.options.chunk_events) {
    if (Status s = w.flush_stream(stream); !s) return s;
  }
  return w.enforce_budget();
}

Status TraceWriter::close() {
  Impl& w = *impl_;
  if (w.closed) return Status::ok();
  w.closed = true;
  Status result;
  for (uint32_t i = 0; i < w.streams.size() && result.is_ok() && !w.failed; ++i) {
    result = w.flush_stream(i);
  }
  if (result.is_ok() && !w.failed && !w.header_written) result = w.write_header();
  if (result.is_ok() && !w.failed) result = w.write_index();
  if (std::fclose(w.file) != 0 && result.is_ok()) result = w.io_error("close");
  w.file = nullptr;
  if (w.tmp.empty()) return result;
  if (!result.is_ok()) {
    std::remove(w.tmp.c_str());
    return result;
  }
  return commit_temporary(w.tmp, w.path);
}

uint64_t TraceWriter::events_written() const {
  return impl_->events;
}
uint64_t TraceWriter::bytes_written() const {
  return impl_->offset;
}
uint64_t TraceWriter::chunks_written() const {
  return impl_->index.size();
}

}  // namespace mmreplay::formats

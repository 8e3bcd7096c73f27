#include "formats/trace_reader.h"

#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>

#include "formats/chunk_codec.h"
#include "formats/frame_io.h"
#include "formats/frame_scan.h"
#include "formats/header_codec.h"

namespace mmreplay::formats {

struct TraceReader::Impl {
  std::string path;
  ReaderOptions options;
  MappedFile file;
  TraceMeta meta;
  uint64_t header_end = 0;  // offset just past the header frame
  std::vector<ChunkRef> chunks;
  std::vector<std::vector<uint32_t>> by_stream;
  uint64_t total_events = 0;
  bool recovered = false;
  std::vector<std::string> warnings;

  std::string at(uint64_t offset) const { return path + ": offset " + std::to_string(offset); }

  Status load();
  Status read_header_frame();
  Status read_index(std::string* why_unusable);
  Status validate_index(std::string* why) const;
  void scan_frames();
  void finish_tables();
};

Status TraceReader::Impl::read_header_frame() {
  const auto bytes = file.bytes();
  if (bytes.empty()) return Status::corruption(path + ": empty file (no header frame)");
  if (bytes.size() < 4 || load_le32(bytes.data()) != kZstdFrameMagic) {
    return Status::corruption(at(0) + ": not an .mmtrace file (no zstd frame at the start)");
  }
  FrameSpan frame;
  if (Status s = find_frame(bytes, 0, &frame); !s) return s.with_context(path);
  if (frame.kind != FrameKind::kZstd) {
    return Status::corruption(at(0) + ": not an .mmtrace file (no zstd frame at the start)");
  }
  ParsedFrame parsed;
  if (Status s = parse_frame(bytes, frame, options.max_frame_bytes, &parsed); !s) {
    return s.with_context(path);
  }
  if (!parsed.is_header) return Status::corruption(at(0) + ": first frame is not a header");
  meta = std::move(parsed.meta);
  header_end = frame.offset + frame.size;
  return Status::ok();
}

Status TraceReader::Impl::read_index(std::string* why) {
  const auto bytes = file.bytes();
  const uint64_t size = bytes.size();
  if (size < header_end + kSkippableHeaderBytes + kFooterBytes) {
    *why = "no index footer";
    return Status::ok();
  }
  Footer footer;
  if (!decode_footer(bytes.data() + size - kFooterBytes, &footer)) {
    *why = "no index footer";
    return Status::ok();
  }
  const uint64_t room = size - header_end - kSkippableHeaderBytes - kFooterBytes;
  if (footer.index_bytes > room || footer.index_bytes % sizeof(capnp::word) != 0) {
    *why = "footer names an index of " + std::to_string(footer.index_bytes) + " bytes";
    return Status::ok();
  }
  const uint64_t frame_start = size - kFooterBytes - footer.index_bytes - kSkippableHeaderBytes;
  const uint8_t* head = bytes.data() + frame_start;
  if (load_le32(head) != kIndexFrameMagic ||
      load_le32(head + 4) != footer.index_bytes + kFooterBytes) {
    *why = "index frame header at offset " + std::to_string(frame_start) + " is damaged";
    return Status::ok();
  }
  const auto index_bytes = bytes.subspan(frame_start + kSkippableHeaderBytes, footer.index_bytes);
  if (crc32(index_bytes) != footer.index_crc) {
    *why = "index at offset " + std::to_string(frame_start) + " fails its CRC";
    return Status::ok();
  }
  WordBuffer words(footer.index_bytes / sizeof(capnp::word));
  std::copy(index_bytes.begin(), index_bytes.end(), reinterpret_cast<uint8_t*>(words.data()));
  try {
    capnp::FlatArrayMessageReader message(as_words(words), reader_options_for(words.size()));
    auto index = message.getRoot<capnp_schema::Index>();
    if (index.getVersionMajor() > kFormatVersionMajor) {
      return Status::corruption(path + ": index format version " +
                                std::to_string(index.getVersionMajor()) +
                                " is newer than this reader");
    }
    std::vector<ThreadInfo> threads = read_threads(index.getThreads());
    if (threads.size() >= meta.threads.size()) meta.threads = std::move(threads);
    chunks.clear();
    chunks.reserve(index.getChunks().size());
    for (auto e : index.getChunks()) {
      chunks.push_back(ChunkRef{e.getOffset(), e.getSize(), e.getStream(), e.getSeq(),
                                e.getFirstTs(), e.getLastTs(), e.getEvents()});
    }
  } catch (const kj::Exception& e) {
    *why = "index message is malformed: " + std::string(e.getDescription().cStr());
    chunks.clear();
    return Status::ok();
  }
  if (Status s = validate_index(why); !s || !why->empty()) chunks.clear();
  return Status::ok();
}

// An index is trusted only if every entry lies between the header and the index frame, entries
// do not overlap, and every stream's sequence numbers run 0, 1, 2, ...
Status TraceReader::Impl::validate_index(std::string* why) const {
  const uint64_t size = file.bytes().size();
  uint64_t prev_end = header_end;
  std::vector<uint64_t> next_seq(meta.threads.size(), 0);
  for (const ChunkRef& c : chunks) {
    if (c.offset < prev_end || c.size == 0 || c.offset + c.size > size) {
      *why = "index entry for offset " + std::to_string(c.offset) + " lies outside the data";
      return Status::ok();
    }
    if (c.stream >= next_seq.size() || c.seq != next_seq[c.stream]++) {
      *why = "index entry for offset " + std::to_string(c.offset) + " has a bad stream or seq";
      return Status::ok();
    }
    prev_end = c.offset + c.size;
  }
  return Status::ok();
}

void TraceReader::Impl::scan_frames() {
  ScanResult scan = scan_chunk_frames(file.bytes(), header_end, options.max_frame_bytes);
  chunks = std::move(scan.chunks);
  for (std::string& w : scan.problems) warnings.push_back(path + ": " + w);
  uint64_t events = 0;
  for (const ChunkRef& c : chunks) events += c.events;
  std::string note = path + ": rebuilt the index by scanning: recovered " +
                     std::to_string(chunks.size()) + " chunks (" + std::to_string(events) +
                     " events)";
  if (scan.lost_bytes > 0) {
    note += "; lost " + std::to_string(scan.lost_bytes) + " bytes from offset " +
            std::to_string(scan.lost_offset) + " (" + scan.lost_reason + ")";
  }
  warnings.push_back(note);
}

void TraceReader::Impl::finish_tables() {
  uint32_t max_stream = 0;
  for (const ChunkRef& c : chunks) max_stream = std::max(max_stream, c.stream + 1);
  if (max_stream > meta.threads.size()) {
    warnings.push_back(path + ": " + std::to_string(max_stream - meta.threads.size()) +
                       " streams are missing from the thread table; named after their ids");
    for (uint32_t s = static_cast<uint32_t>(meta.threads.size()); s < max_stream; ++s) {
      meta.threads.push_back(ThreadInfo{s, 0, "stream-" + std::to_string(s)});
    }
  }
  by_stream.assign(meta.threads.size(), {});
  total_events = 0;
  for (uint32_t i = 0; i < chunks.size(); ++i) {
    by_stream[chunks[i].stream].push_back(i);
    total_events += chunks[i].events;
  }
  for (auto& ids : by_stream) {
    std::stable_sort(ids.begin(), ids.end(),
                     [&](uint32_t a, uint32_t b) { return chunks[a].seq < chunks[b].seq; });
  }
}

Status TraceReader::Impl::load() {
  if (Status s = read_header_frame(); !s) return s;
  std::string why;
  if (Status s = read_index(&why); !s) return s;
  if (!why.empty()) {
    if (!options.allow_recovery)
      return Status::corruption(path + ": " + why + " (recovery disabled)");
    recovered = true;
    warnings.push_back(path + ": " + why);
    scan_frames();
  }
  finish_tables();
  return Status::ok();
}

std::unique_ptr<TraceReader> TraceReader::open(const std::string& path, ReaderOptions options,
                                               Status* status) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  if (*status = MappedFile::open(path, &impl->file); !*status) return nullptr;
  if (*status = impl->load(); !*status) return nullptr;
  return std::unique_ptr<TraceReader>(new TraceReader(std::move(impl)));
}

std::unique_ptr<TraceReader> TraceReader::open_buffer(const std::string& name,
                                                      std::vector<uint8_t> bytes,
                                                      ReaderOptions options, Status* status) {
  auto impl = std::make_unique<Impl>();
  impl->path = name;
  impl->options = options;
  impl->file = MappedFile::from_bytes(std::move(bytes));
  if (*status = impl->load(); !*status) return nullptr;
  return std::unique_ptr<TraceReader>(new TraceReader(std::move(impl)));
}

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::~TraceReader() = default;

const std::string& TraceReader::path() const {
  return impl_->path;
}
const TraceMeta& TraceReader::meta() const {
  return impl_->meta;
}
uint64_t TraceReader::file_size() const {
  return impl_->file.bytes().size();
}
const std::vector<ChunkRef>& TraceReader::chunks() const {
  return impl_->chunks;
}
std::span<const uint32_t> TraceReader::chunks_of_stream(uint32_t stream) const {
  if (stream >= impl_->by_stream.size()) return {};
  return impl_->by_stream[stream];
}
uint64_t TraceReader::total_events() const {
  return impl_->total_events;
}
bool TraceReader::recovered() const {
  return impl_->recovered;
}
const std::vector<std::string>& TraceReader::warnings() const {
  return impl_->warnings;
}
std::span<const uint8_t> TraceReader::bytes() const {
  return impl_->file.bytes();
}

Status TraceReader::decode(const ChunkRef& ref, DecodedChunk* out) const {
  const auto bytes = impl_->file.bytes();
  if (ref.offset >= bytes.size() || ref.size > bytes.size() - ref.offset) {
    return Status::corruption(impl_->at(ref.offset) + ": chunk lies past the end of the file");
  }
  FrameSpan frame{ref.offset, ref.size, FrameKind::kZstd};
  if (Status s = decode_chunk_frame(bytes, frame, impl_->options.max_frame_bytes, out); !s) {
    return s.with_context(impl_->path);
  }
  if (out->ref.stream != ref.stream || out->ref.seq != ref.seq || out->ref.events != ref.events) {
    return Status::corruption(impl_->at(ref.offset) + ": chunk holds stream " +
                              std::to_string(out->ref.stream) + " seq " +
                              std::to_string(out->ref.seq) + " but the index says stream " +
                              std::to_string(ref.stream) + " seq " + std::to_string(ref.seq));
  }
  out->ref.offset = ref.offset;
  out->ref.size = ref.size;
  return Status::ok();
}

StreamCursor::StreamCursor(const TraceReader& reader, uint32_t stream)
    : reader_(reader), chunk_ids_(reader.chunks_of_stream(stream)) {}

bool StreamCursor::next() {
  if (!status_.is_ok()) return false;
  if (started_ && pos_ + 1 < chunk_.events.size()) {
    ++pos_;
    return true;
  }
  while (next_chunk_ < chunk_ids_.size()) {
    const ChunkRef& ref = reader_.chunks()[chunk_ids_[next_chunk_++]];
    if (status_ = reader_.decode(ref, &chunk_); !status_) return false;
    if (!chunk_.events.empty()) {
      pos_ = 0;
      started_ = true;
      return true;
    }
  }
  return false;
}

std::span<const Range> StreamCursor::ranges() const {
  const Event& e = event();
  if (e.range_count == 0) return {};
  return std::span<const Range>(chunk_.ranges).subspan(e.range_begin, e.range_count);
}

}  // namespace mmreplay::formats

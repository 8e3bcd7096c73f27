#include "formats/trace_reader.h"

#include <capnp/serialize.h>
#include <kj/exception.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "common/tsan_handoff.h"
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
  uint64_t header_end = 0;   // offset just past the header frame
  uint64_t index_start = 0;  // offset of the index frame (while reading the index)
  std::vector<ChunkRef> chunks;
  std::vector<std::vector<uint32_t>> by_stream;
  uint64_t total_events = 0;
  bool recovered = false;
  std::vector<std::string> warnings;

  std::string at(uint64_t offset) const { return path + ": offset " + std::to_string(offset); }

  Status load();
  Status read_header_frame();
  Status read_index(std::string* why_unusable);
  void validate_index(std::string* why) const;
  Status scan_frames();
  Status check_streams() const;
  Status finish_tables();
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
  if (Status s = parse_frame(bytes, frame, options.max_frame_bytes, &parsed, options.max_threads);
      !s) {
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
  index_start = frame_start;
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
    if (const uint32_t n = index.getThreads().size(); n > options.max_threads) {
      return Status::resource_exhausted(at(frame_start) + ": index names " + std::to_string(n) +
                                        " threads, more than the limit of " +
                                        std::to_string(options.max_threads) +
                                        " (ReaderOptions::max_threads)");
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
  validate_index(why);
  if (!why->empty()) chunks.clear();
  return Status::ok();
}

// An index is trusted only if its entries tile the data exactly: the first starts where the header
// ends, each starts where the one before ends, the last ends where the index frame starts (so no
// frame, such as a second trace's header, hides between them), every stream id is in the thread
// table, and every stream's sequence numbers run 0, 1, 2, ...
void TraceReader::Impl::validate_index(std::string* why) const {
  uint64_t prev_end = header_end;
  std::vector<uint64_t> next_seq(meta.threads.size(), 0);
  for (const ChunkRef& c : chunks) {
    if (c.offset != prev_end || c.size == 0 || c.size > index_start - c.offset) {
      *why = "index entry for offset " + std::to_string(c.offset) + " (size " +
             std::to_string(c.size) + ") does not follow the frame ending at offset " +
             std::to_string(prev_end);
      return;
    }
    if (c.stream >= next_seq.size() || c.seq != next_seq[c.stream]++) {
      *why = "index entry for offset " + std::to_string(c.offset) + " has a bad stream or seq";
      return;
    }
    prev_end = c.offset + c.size;
  }
  if (prev_end != index_start) {
    *why = "index leaves offsets " + std::to_string(prev_end) + ".." + std::to_string(index_start) +
           " unlisted";
  }
}

Status TraceReader::Impl::scan_frames() {
  ScanResult scan = scan_chunk_frames(file.bytes(), header_end, options.max_frame_bytes);
  if (!scan.refused) return scan.refused.with_context(path);
  chunks = std::move(scan.chunks);
  for (std::string& w : scan.problems) warnings.push_back(path + ": " + w);
  uint64_t events = 0;
  for (const ChunkRef& c : chunks) events += c.events;
  std::string note = path + ": rebuilt the index by scanning: recovered " +
                     std::to_string(chunks.size()) + " chunks (" + std::to_string(events) +
                     " events)";
  if (scan.skipped_bytes > 0) {
    note += "; skipped " + std::to_string(scan.skipped_bytes) + " damaged bytes in " +
            std::to_string(scan.problems.size()) + " places";
  }
  if (scan.lost_bytes > 0) {
    note += "; lost " + std::to_string(scan.lost_bytes) + " bytes from offset " +
            std::to_string(scan.lost_offset) + " (" + scan.lost_reason + ")";
  }
  warnings.push_back(note);
  return Status::ok();
}

// A chunk naming a stream at or above ReaderOptions::max_threads is refused before anything is
// allocated for it (finish_tables keeps a table entry per stream id).
Status TraceReader::Impl::check_streams() const {
  for (const ChunkRef& c : chunks) {
    if (c.stream >= options.max_threads) {
      return Status::corruption(at(c.offset) + ": chunk names stream " + std::to_string(c.stream) +
                                "; the thread table has " + std::to_string(meta.threads.size()) +
                                " threads and the limit is " + std::to_string(options.max_threads) +
                                " (ReaderOptions::max_threads)");
    }
  }
  return Status::ok();
}

// Streams missing from the thread table (a recovered capture whose header predates some threads)
// get entries named after their ids. REQUIRES: check_streams() passed (no id reaches the limit).
Status TraceReader::Impl::finish_tables() {
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
  return Status::ok();
}

Status TraceReader::Impl::load() {
  if (Status s = read_header_frame(); !s) return s;
  std::string why;
  if (Status s = read_index(&why); !s) return s;
  if (!why.empty()) {
    recovered = true;
    warnings.push_back(path + ": " + why);
    // Scan even when recovery is disabled: a file that is not one trace (a second header, a
    // repeated chunk) is refused with that reason rather than only "index unusable".
    if (Status s = scan_frames(); !s) return s;
    if (Status s = check_streams(); !s) return s;
    if (!options.allow_recovery) {
      return Status::corruption(path + ": " + why + " (recovery disabled)");
    }
  }
  return finish_tables();
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

std::vector<std::string> TraceReader::drop_damaged_chunks() {
  const std::vector<ChunkRef>& all = impl_->chunks;
  std::vector<Status> status(all.size());
  struct Shared {
    const TraceReader& reader;
    const std::vector<ChunkRef>& all;
    std::vector<Status>& status;
    tbb::enumerable_thread_specific<DecodedChunk> scratch;
  } shared{*this, all, status, {}};
  // The chunks go to TBB's workers and the statuses come back through its join, which TSan
  // cannot see into (common/tsan_handoff.h).
  tbb::parallel_for(tbb::blocked_range<size_t>(0, all.size()),
                    [state = TbbShared<Shared>(&shared)](const tbb::blocked_range<size_t>& range) {
                      Shared& s = *state;
                      DecodedChunk& chunk = s.scratch.local();
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        s.status[i] = s.reader.decode(s.all[i], &chunk);
                      }
                      tsan_publish(&s.status);
                    });
  tsan_observe(&status);
  std::vector<std::string> dropped;
  std::vector<ChunkRef> kept;
  kept.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (status[i]) {
      kept.push_back(all[i]);
      continue;
    }
    const ChunkRef& c = all[i];
    std::string why = status[i].message();
    if (why.starts_with(impl_->path + ": ")) why.erase(0, impl_->path.size() + 2);
    dropped.push_back(impl_->at(c.offset) + ": dropped the chunk of stream " +
                      std::to_string(c.stream) + " seq " + std::to_string(c.seq) + " (" +
                      std::to_string(c.events) + " events): " + why);
  }
  if (dropped.empty()) return dropped;
  impl_->chunks = std::move(kept);
  impl_->finish_tables();
  impl_->warnings.insert(impl_->warnings.end(), dropped.begin(), dropped.end());
  return dropped;
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

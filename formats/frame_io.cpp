#include "formats/frame_io.h"

#include <capnp/serialize.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace mmreplay::formats {
namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;  // IEEE 802.3
    table[i] = c;
  }
  return table;
}
constexpr auto kCrcTable = make_crc_table();

void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Traversal limit as a multiple of the message size, and the nesting cap (schema depth is 4).
constexpr uint64_t kTraversalMultiple = 4;
constexpr uint64_t kTraversalMinimumWords = 1024;
constexpr int kNestingLimit = 16;

}  // namespace

uint32_t crc32(std::span<const uint8_t> bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t b : bytes) c = kCrcTable[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
void store_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void encode_footer(const Footer& f, uint8_t out[kFooterBytes]) {
  store_le64(out, f.index_bytes);
  store_le32(out + 8, f.index_crc);
  out[12] = static_cast<uint8_t>(f.major);
  out[13] = static_cast<uint8_t>(f.major >> 8);
  out[14] = static_cast<uint8_t>(f.minor);
  out[15] = static_cast<uint8_t>(f.minor >> 8);
  store_le64(out + 16, kFooterMagic);
}

bool decode_footer(const uint8_t in[kFooterBytes], Footer* f) {
  if (load_le64(in + 16) != kFooterMagic) return false;
  f->index_bytes = load_le64(in);
  f->index_crc = load_le32(in + 8);
  f->major = static_cast<uint16_t>(in[12] | in[13] << 8);
  f->minor = static_cast<uint16_t>(in[14] | in[15] << 8);
  return true;
}

FrameCompressor::FrameCompressor(int level) : cctx_(ZSTD_createCCtx()) {
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_minMatch, kMinMatch);
}

FrameCompressor::~FrameCompressor() {
  ZSTD_freeCCtx(cctx_);
}

Status FrameCompressor::stream(const uint8_t* data, size_t size, ZSTD_EndDirective mode,
                               std::string* out, size_t* pos) {
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    if (out->size() - *pos < ZSTD_CStreamOutSize()) out->resize(*pos + ZSTD_CStreamOutSize() * 2);
    ZSTD_outBuffer o{out->data(), out->size(), *pos};
    const size_t left = ZSTD_compressStream2(cctx_, &o, &in, mode);
    *pos = o.pos;
    // Fails only for a broken context or no memory.
    if (ZSTD_isError(left))
      return Status::internal(std::string("zstd: ") + ZSTD_getErrorName(left));
    if (in.pos == in.size && (mode == ZSTD_e_continue || left == 0)) return Status::ok();
  }
}

Status FrameCompressor::compress(capnp::MessageBuilder& message, std::string* out,
                                 std::span<const std::span<const uint8_t>> regions) {
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(message);
  const auto bytes = flat.asBytes();
  // Where the regions start and end in the flat message: after the segment table, at their offset
  // in the one segment.
  std::vector<std::pair<size_t, size_t>> cuts;
  const auto segments = message.getSegmentsForOutput();
  if (segments.size() == 1 && !regions.empty()) {
    const auto* base = reinterpret_cast<const uint8_t*>(segments[0].begin());
    const size_t table = bytes.size() - segments[0].asBytes().size();
    for (const std::span<const uint8_t>& r : regions) {
      if (r.size() < kMinBlockBytes || r.data() < base ||
          r.data() + r.size() > base + segments[0].asBytes().size()) {
        continue;
      }
      const size_t begin = table + static_cast<size_t>(r.data() - base);
      cuts.emplace_back(begin, begin + r.size());
    }
    std::sort(cuts.begin(), cuts.end());
  }
  ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
  ZSTD_CCtx_setPledgedSrcSize(cctx_, bytes.size());
  out->clear();
  size_t pos = 0;
  size_t done = 0;
  for (const auto& [begin, end] : cuts) {
    if (begin < done) continue;  // overlapping regions: not from one message
    if (Status s = stream(bytes.begin() + done, begin - done, ZSTD_e_flush, out, &pos); !s)
      return s;
    if (Status s = stream(bytes.begin() + begin, end - begin, ZSTD_e_flush, out, &pos); !s)
      return s;
    done = end;
  }
  if (Status s = stream(bytes.begin() + done, bytes.size() - done, ZSTD_e_end, out, &pos); !s) {
    return s;
  }
  out->resize(pos);
  return Status::ok();
}

Status decompress_frame(std::span<const uint8_t> frame, uint64_t frame_offset, uint64_t max_bytes,
                        WordBuffer* out) {
  const std::string where = "frame at offset " + std::to_string(frame_offset);
  const unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) return Status::corruption(where + ": not a zstd frame");
  if (content == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Status::corruption(where + ": frame does not declare its content size");
  }
  if (content > max_bytes) {
    return Status::resource_exhausted(where + ": declares " + std::to_string(content) +
                                      " bytes, more than the limit of " +
                                      std::to_string(max_bytes));
  }
  if (content % sizeof(capnp::word) != 0 || content == 0) {
    return Status::corruption(where + ": content is not a Cap'n Proto message (" +
                              std::to_string(content) + " bytes)");
  }
  out->resize(content / sizeof(capnp::word));
  // One decompression context per host thread: decode() may run on many TBB workers at once.
  thread_local struct Ctx {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    ~Ctx() { ZSTD_freeDCtx(dctx); }
  } ctx;
  const size_t n = ZSTD_decompressDCtx(ctx.dctx, out->data(), content, frame.data(), frame.size());
  if (ZSTD_isError(n)) return Status::corruption(where + ": zstd: " + ZSTD_getErrorName(n));
  if (n != content) return Status::corruption(where + ": content shorter than declared");
  return Status::ok();
}

capnp::ReaderOptions reader_options_for(size_t words) {
  capnp::ReaderOptions options;
  options.traversalLimitInWords =
      std::max<uint64_t>(kTraversalMinimumWords, kTraversalMultiple * words);
  options.nestingLimit = kNestingLimit;
  return options;
}

Status MappedFile::open(const std::string& path, MappedFile* out) {
  out->release();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Status::from_errno(err, path + ": cannot open: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::invalid_argument(path + ": not a regular file");
  }
  out->size_ = static_cast<size_t>(st.st_size);
  if (out->size_ > 0) {
    void* p = ::mmap(nullptr, out->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      out->data_ = static_cast<const uint8_t*>(p);
      out->mapped_ = true;
    } else {
      out->fallback_.resize(out->size_);
      size_t done = 0;
      while (done < out->size_) {
        const ssize_t n =
            ::pread(fd, out->fallback_.data() + done, out->size_ - done, static_cast<off_t>(done));
        if (n <= 0) {
          ::close(fd);
          return Status::io_error(path + ": read failed at offset " + std::to_string(done));
        }
        done += static_cast<size_t>(n);
      }
      out->data_ = out->fallback_.data();
    }
  }
  ::close(fd);
  return Status::ok();
}

MappedFile MappedFile::from_bytes(std::vector<uint8_t> bytes) {
  MappedFile f;
  f.fallback_ = std::move(bytes);
  f.size_ = f.fallback_.size();
  f.data_ = f.fallback_.data();
  return f;
}

void MappedFile::release() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  fallback_.clear();
}

MappedFile::~MappedFile() {
  release();
}

MappedFile::MappedFile(MappedFile&& other) noexcept {
  *this = std::move(other);
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    fallback_ = std::move(other.fallback_);
    if (!mapped_ && size_ > 0) data_ = fallback_.data();
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

}  // namespace mmreplay::formats

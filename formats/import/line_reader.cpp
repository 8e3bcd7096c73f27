#include "formats/import/line_reader.h"

#include <cerrno>
#include <cstring>

namespace mmreplay::formats {
namespace {
constexpr size_t kReadBlockBytes = 1 << 20;  // one read() per MiB of input
}  // namespace

std::unique_ptr<LineReader> LineReader::open(const std::string& path, Status* status) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    *status = Status::from_errno(err, path + ": cannot open: " + std::strerror(err));
    return nullptr;
  }
  return std::unique_ptr<LineReader>(new LineReader(path, f));
}

std::unique_ptr<LineReader> LineReader::from_string(std::string name, std::string_view text) {
  std::unique_ptr<LineReader> r(new LineReader(std::move(name), nullptr));
  r->buffer_.assign(text);
  r->eof_ = true;
  r->bytes_read_ = text.size();
  return r;
}

LineReader::~LineReader() {
  if (file_ != nullptr) std::fclose(file_);
}

bool LineReader::fill() {
  if (eof_ || file_ == nullptr) return false;
  buffer_.erase(0, pos_);
  pos_ = 0;
  const size_t old = buffer_.size();
  buffer_.resize(old + kReadBlockBytes);
  const size_t got = std::fread(buffer_.data() + old, 1, kReadBlockBytes, file_);
  buffer_.resize(old + got);
  bytes_read_ += got;
  if (got < kReadBlockBytes) {
    if (std::ferror(file_)) status_ = Status::io_error(name_ + ": read error");
    eof_ = true;
  }
  return got > 0;
}

bool LineReader::next(std::string_view* line) {
  for (;;) {
    const size_t nl = buffer_.find('\n', pos_);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buffer_[end - 1] == '\r') --end;
      *line = std::string_view(buffer_).substr(pos_, end - pos_);
      pos_ = nl + 1;
      ++line_number_;
      return true;
    }
    if (!fill()) break;
  }
  if (pos_ < buffer_.size()) {  // last line without a newline
    *line = std::string_view(buffer_).substr(pos_);
    pos_ = buffer_.size();
    ++line_number_;
    return true;
  }
  return false;
}

}  // namespace mmreplay::formats

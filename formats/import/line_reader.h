// LineReader: hands out the lines of a text file (or of a buffer) one at a time with their
// 1-based numbers, reading the file in blocks so a multi-gigabyte perf script output never sits
// in memory whole. Lines lose their "\n" (and a "\r" before it); a last line without "\n" counts.

#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::formats {

class LineReader {
 public:
  // Opens `path`; on failure returns nullptr and sets *status ("PATH: cannot open: REASON").
  static std::unique_ptr<LineReader> open(const std::string& path, Status* status);
  // Reads from memory; `name` stands for the file name in messages. The text is copied.
  static std::unique_ptr<LineReader> from_string(std::string name, std::string_view text);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, valid until the next call. Returns false at the end or on a read error
  // (then status() says which).
  bool next(std::string_view* line);
  uint64_t line_number() const { return line_number_; }  // of the line last returned
  uint64_t bytes_read() const { return bytes_read_; }
  const std::string& name() const { return name_; }
  const Status& status() const { return status_; }

 private:
  LineReader(std::string name, std::FILE* file) : name_(std::move(name)), file_(file) {}
  bool fill();

  std::string name_;
  std::FILE* file_ = nullptr;  // owned; null when reading from memory
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  uint64_t bytes_read_ = 0;
  Status status_;
};

}  // namespace mmreplay::formats

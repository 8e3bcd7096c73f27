// Result of an operation on trace data: ok, or a one-line message that names the file and the
// byte offset (or line) where the problem is. Bad input is reported, never asserted.

#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace mmreplay::formats {

class Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool is_ok() const { return message_.empty(); }
  explicit operator bool() const { return is_ok(); }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {
    if (message_.empty()) message_ = "unknown error";
  }
  std::string message_;
};

}  // namespace mmreplay::formats

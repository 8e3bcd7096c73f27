// Status: the outcome of an operation that can fail on its input or its environment (decoding a
// trace, importing a recording, parsing a flag, writing a results file). Either ok, or a code
// that says what kind of failure it was and a one-line message that names the file and the byte
// offset, line, key or flag where it happened.
//
// Why codes: callers act on the kind of failure, never on its text. The CLI turns the code into
// the process exit status in one place (tools/cli/exit_code.h), so the same corrupt file gives
// the same exit status whichever subcommand read it. The model is LevelDB's Status
// (include/leveldb/status.h): a small value type, one named factory per kind of failure,
// `ok()` by default, messages for people and codes for programs. Unlike LevelDB's it holds a
// std::string rather than a hand-packed buffer (an ok Status still allocates nothing), and it has
// no two-part message: context is added with with_context(), which keeps the code.
//
// Which code (every site picks one):
//   kInvalidArgument   a bad flag, argument, policy, knob or value, an unknown name (preset,
//                      workload, case); a request the callee refuses
//   kNotFound          an input file (or a folder on its path) that does not exist
//   kCorruption        a corrupt or foreign input: bad magic, checksum, truncated frame, a line
//                      an importer cannot parse, a results file of another schema
//   kIOError           open/read/write/rename/fsync failures, an unwritable output, a full disk,
//                      and what the environment lacks or forbids (a missing tool, permissions)
//   kResourceExhausted over a size guard or an allocation limit
//   kInternal          cannot happen: a model deadlock, a broken invariant met at run time
//
// A broken model invariant that the code can assert stays an assert (STYLE.md, "Errors by
// kind"); kInternal is for the ones that surface as a result (a run that never finishes).
//
// Thread-compatible: a Status is a value; distinct objects may be used from distinct threads.

#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>

namespace mmreplay {

enum class StatusCode {
  kOk,
  kInvalidArgument,
  kNotFound,
  kCorruption,
  kIOError,
  kResourceExhausted,
  kInternal,
};

// "OK", "InvalidArgument", ... (LevelDB's spelling, for logs and test failure messages).
constexpr std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kResourceExhausted:
      return "ResourceExhausted";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

class Status {
 public:
  // Ok.
  Status() = default;

  static Status ok() { return Status(); }
  static Status invalid_argument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status not_found(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status corruption(std::string message) {
    return Status(StatusCode::kCorruption, std::move(message));
  }
  static Status io_error(std::string message) {
    return Status(StatusCode::kIOError, std::move(message));
  }
  static Status resource_exhausted(std::string message) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }
  static Status internal(std::string message) {
    return Status(StatusCode::kInternal, std::move(message));
  }
  // A status of a code chosen at run time (re-worded errors, tables of codes in tests). With
  // kOk it is ok and the message is dropped.
  static Status from_code(StatusCode code, std::string message) {
    return code == StatusCode::kOk ? Status() : Status(code, std::move(message));
  }

  // The failure to open or read an input, from the errno it left: NotFound when the file (or a
  // folder on its path) does not exist, IOError otherwise (LevelDB's PosixError). Not for
  // outputs: an output path that cannot be created is an IOError whatever errno says.
  static Status from_errno(int error_number, std::string message) {
    return error_number == ENOENT || error_number == ENOTDIR ? not_found(std::move(message))
                                                             : io_error(std::move(message));
  }

  StatusCode code() const { return code_; }
  // Empty when ok.
  const std::string& message() const { return message_; }
  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }

  // The same failure, its message prefixed with "context: ". The code is kept, so a re-wrapped
  // error (naming the file, the run, the case) still maps to the same exit status. Ok stays ok.
  Status with_context(std::string_view context) const {
    if (is_ok()) return *this;
    std::string message(context);
    message += ": ";
    message += message_;
    return Status(code_, std::move(message));
  }

 private:
  // REQUIRES: code != kOk.
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
    if (message_.empty()) message_ = "unknown error";
  }

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace mmreplay

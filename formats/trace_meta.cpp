#include "formats/trace_meta.h"

#include <array>

namespace mmreplay::formats {

std::string_view file_kind_name(FileKind kind) {
  static constexpr std::array<std::string_view, kFileKindCount> kNames = {
      "unknown", "regular", "block", "socket", "pipe", "char", "tty", "anon"};
  const auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i] : "unknown";
}

}  // namespace mmreplay::formats

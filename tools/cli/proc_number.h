// A number the kernel exposes as a file of its own: a sysctl under /proc/sys, a sysfs attribute,
// a tracepoint's tracefs id. record reads several (net.core.wmem_default, read_ahead_kb, ids).

#pragma once

#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace mmreplay::tools {

// The file's first word as a non-negative number ("212992\n", "128 \n"), or nullopt when the
// file cannot be read or that word is not one.
inline std::optional<uint64_t> read_proc_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return std::nullopt;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
  if (ec != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return n;
}

}  // namespace mmreplay::tools

#include "tools/calibrate/host_swap.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace mmreplay::tools {
namespace {

// A /dev/zramN block device (zram's own name: drivers/block/zram/zram_drv.c), not a file on one.
bool is_zram(std::string_view path) {
  constexpr std::string_view kPrefix = "/dev/zram";
  return path.starts_with(kPrefix) && path.size() > kPrefix.size() &&
         path.find('/', kPrefix.size()) == std::string_view::npos;
}

}  // namespace

HostSwap parse_proc_swaps(std::string_view text) {
  HostSwap swap;
  std::istringstream in{std::string(text)};
  std::string line;
  std::getline(in, line);  // "Filename Type Size Used Priority"
  bool first = true;
  long long top_priority = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string path, type;
    uint64_t size_kib = 0, used_kib = 0;
    long long priority = 0;
    if (!(fields >> path >> type >> size_kib >> used_kib >> priority)) continue;
    swap.bytes += size_kib * 1024;
    if (first || priority > top_priority) {
      swap.device = is_zram(path) ? "zram" : "block";
      top_priority = priority;
      first = false;
    }
  }
  return swap;
}

HostSwap host_swap(const std::string& path) {
  std::ifstream in(path);
  if (!in) return HostSwap{};
  std::stringstream text;
  text << in.rdbuf();
  return parse_proc_swaps(text.str());
}

}  // namespace mmreplay::tools

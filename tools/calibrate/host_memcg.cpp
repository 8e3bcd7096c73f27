#include "tools/calibrate/host_memcg.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mmreplay::tools {
namespace {

// At or above this a v1 limit is PAGE_COUNTER_MAX rounded to pages: no limit.
constexpr uint64_t kV1Unlimited = uint64_t{1} << 62;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool lists_memory(std::string_view controllers) {
  while (!controllers.empty()) {
    const size_t comma = controllers.find(',');
    if (controllers.substr(0, comma) == "memory") return true;
    if (comma == std::string_view::npos) break;
    controllers.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

CgroupOfProcess parse_proc_cgroup(std::string_view text) {
  CgroupOfProcess cg;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view id = std::string_view(line).substr(0, first);
    const std::string_view controllers =
        std::string_view(line).substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (id == "0" && controllers.empty()) {
      cg.v2 = path;
    } else if (lists_memory(controllers)) {
      cg.v1_memory = path;
    }
  }
  return cg;
}

uint64_t parse_memcg_limit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return 0;
  return bytes >= kV1Unlimited ? 0 : bytes;
}

uint64_t host_memcg_limit(const std::string& proc_cgroup, const std::string& sysfs_cgroup) {
  const CgroupOfProcess cg = parse_proc_cgroup(read_text(proc_cgroup));
  const std::filesystem::path root(sysfs_cgroup);
  // v1's memory hierarchy is mounted at memory/; v2 alone at the top (beside v1's controllers, a
  // hybrid machine, at unified/, where the memory controller is v1's and the v1 line answers).
  const std::string& group = cg.v1_memory.empty() ? cg.v2 : cg.v1_memory;
  if (group.empty()) return 0;
  const std::filesystem::path mount = cg.v1_memory.empty() ? root : root / "memory";
  return cgroup_dir_memcg_limit((mount / std::filesystem::path(group).relative_path()).string());
}

uint64_t cgroup_dir_memcg_limit(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path d = std::filesystem::weakly_canonical(dir, ec);
  if (ec) d = dir;
  uint64_t lowest = 0;
  for (;;) {
    const char* file = std::filesystem::exists(d / "memory.limit_in_bytes")
                           ? "memory.limit_in_bytes"
                       : std::filesystem::exists(d / "memory.max") ? "memory.max"
                                                                   : nullptr;
    if (file == nullptr) break;
    const uint64_t limit = parse_memcg_limit(read_text(d / file));
    if (limit != 0 && (lowest == 0 || limit < lowest)) lowest = limit;
    if (!d.has_parent_path() || d.parent_path() == d) break;
    d = d.parent_path();
  }
  return lowest;
}

}  // namespace mmreplay::tools

#include "tools/cli/host_files.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <climits>
#include <filesystem>
#include <optional>

#include "tools/cli/proc_number.h"

namespace mmreplay::tools {
namespace {

namespace fs = std::filesystem;

// A sysfs attribute's number of KiB, or -1.
int32_t read_kb(const fs::path& attribute) {
  const std::optional<uint64_t> kb = read_proc_number(attribute.string());
  return kb && *kb <= INT32_MAX ? static_cast<int32_t>(*kb) : -1;
}

std::string dev_name(dev_t dev) {
  return std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
}

// The disk's queue/read_ahead_kb, which sets its bdi's ra_pages (blk-sysfs.c): a partition has
// no queue of its own, its disk's is one directory up.
int32_t queue_read_ahead_kb(const fs::path& root, dev_t dev) {
  const fs::path block = root / "dev" / "block" / dev_name(dev);
  if (const int32_t kb = read_kb(block / "queue" / "read_ahead_kb"); kb >= 0) return kb;
  return read_kb(block / ".." / "queue" / "read_ahead_kb");
}

}  // namespace

int32_t device_read_ahead_kb(const std::string& path, const std::string& sysfs) {
  if (path.empty() || path.front() != '/') return -1;
  // The file, or the nearest directory above it that is still there.
  fs::path p = fs::path(path).lexically_normal();
  struct stat st {};
  while (::stat(p.c_str(), &st) != 0) {
    if (!p.has_relative_path()) return -1;  // not even "/"
    p = p.parent_path();
  }
  const fs::path root(sysfs);
  // A block device node: its own disk's. A file: its filesystem's bdi, which sysfs names by the
  // disk, so a filesystem on a partition is found through the partition's block device.
  if (S_ISBLK(st.st_mode)) return queue_read_ahead_kb(root, st.st_rdev);
  const int32_t kb = read_kb(root / "class" / "bdi" / dev_name(st.st_dev) / "read_ahead_kb");
  return kb >= 0 ? kb : queue_read_ahead_kb(root, st.st_dev);
}

size_t set_device_readahead(std::vector<formats::FileInfo>* files, const std::string& sysfs) {
  size_t set = 0;
  for (formats::FileInfo& f : *files) {
    if (f.kind != formats::FileKind::kRegular && f.kind != formats::FileKind::kBlockDevice) {
      continue;
    }
    f.read_ahead_kb = device_read_ahead_kb(f.path, sysfs);
    if (f.read_ahead_kb >= 0) ++set;
  }
  return set;
}

size_t set_file_sizes(std::vector<formats::FileInfo>* files) {
  size_t grown = 0;
  for (formats::FileInfo& f : *files) {
    if (f.kind != formats::FileKind::kRegular || f.path.empty() || f.path.front() != '/') continue;
    struct stat st {};
    if (::stat(f.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > f.size_bytes) {
      f.size_bytes = size;
      ++grown;
    }
  }
  return grown;
}

}  // namespace mmreplay::tools

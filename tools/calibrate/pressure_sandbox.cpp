#include "tools/calibrate/pressure_sandbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/calibrate/host_swap.h"
#include "tools/calibrate/spawn.h"

namespace mmreplay::tools::calibrate {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `text` to a cgroup control file; "" or why not.
std::string write_control(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  if (!out) return "cannot write " + path;
  return "";
}

constexpr const char* kV1Root = "/sys/fs/cgroup/memory";
constexpr const char* kV2Root = "/sys/fs/cgroup";

}  // namespace

uint64_t parse_swap_total(const std::string& text) {
  return parse_proc_swaps(text).bytes;
}

std::string make_var_tmp_dir(const std::string& what) {
  std::string tmpl = "/var/tmp/trace-replay-" + what + ".XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return "";
  return tmpl;
}

MemcgSandbox::~MemcgSandbox() {
  if (!path_.empty()) ::rmdir(path_.c_str());
}

std::string MemcgSandbox::create(uint64_t limit_bytes) {
  const std::string name = "mmreplay-pressure-" + std::to_string(::getpid());
  std::string limit_file;
  if (fs::exists(fs::path(kV1Root) / "memory.limit_in_bytes")) {
    path_ = (fs::path(kV1Root) / name).string();
    limit_file = "memory.limit_in_bytes";
  } else if (slurp(std::string(kV2Root) + "/cgroup.subtree_control").find("memory") !=
             std::string::npos) {
    path_ = (fs::path(kV2Root) / name).string();
    limit_file = "memory.max";
  } else {
    return "no memory cgroup controller (neither /sys/fs/cgroup/memory nor cgroup v2 with "
           "memory enabled)";
  }
  if (::mkdir(path_.c_str(), 0755) != 0) {
    const std::string why = "cannot make " + path_ + ": " + std::strerror(errno);
    path_.clear();
    return why;
  }
  return write_control(path_ + "/" + limit_file, std::to_string(limit_bytes));
}

std::string MemcgSandbox::join(pid_t pid) const {
  return write_control(path_ + "/cgroup.procs", std::to_string(pid));
}

std::string MemcgSandbox::reclaim_all() const {
  if (path_.rfind(kV1Root, 0) == 0) return write_control(path_ + "/memory.force_empty", "0");
  // memory.reclaim (5.19+) fails with EAGAIN when it reclaims less than asked, as it does once
  // the group is empty: ask for far more than the group holds and take what it did.
  const std::string file = path_ + "/memory.reclaim";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + file + ": " + std::strerror(errno);
  const std::string bytes = std::to_string(uint64_t{1} << 40);
  const bool ok = ::write(fd, bytes.data(), bytes.size()) >= 0 || errno == EAGAIN;
  const std::string why = ok ? "" : "writing " + file + ": " + std::strerror(errno);
  ::close(fd);
  return why;
}

SwapArea::~SwapArea() {
  if (file_.empty()) return;
  ::swapoff(file_.c_str());
  ::unlink(file_.c_str());
}

std::string SwapArea::ensure(const std::string& dir, uint64_t bytes) {
  total_bytes_ = parse_swap_total(slurp("/proc/swaps"));
  if (total_bytes_ != 0) return "";
  const std::string file = (fs::path(dir) / "pressure.swap").string();
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return "cannot make " + file + ": " + std::strerror(errno);
  const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  ::close(fd);
  if (err != 0) {
    ::unlink(file.c_str());
    return "cannot allocate " + file + ": " + std::strerror(err);
  }
  if (spawn_and_wait({"mkswap", file}, "/dev/null") != 0) {
    ::unlink(file.c_str());
    return "mkswap " + file + " failed";
  }
  if (::swapon(file.c_str(), 0) != 0) {
    const std::string why = "swapon " + file + ": " + std::strerror(errno);
    ::unlink(file.c_str());
    return why;
  }
  file_ = file;
  total_bytes_ = parse_swap_total(slurp("/proc/swaps"));
  return "";
}

}  // namespace mmreplay::tools::calibrate

#include "formats/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mmreplay::formats {
namespace {

namespace fs = std::filesystem;

std::string parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// A name no other writer in this or another process picks: pid and a per-process sequence.
std::string fresh_name_beside(const std::string& path) {
  static std::atomic<uint64_t> sequence{0};
  const fs::path p(path);
  return (p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                             "-" + std::to_string(sequence.fetch_add(1))))
      .string();
}

Status errno_status(const std::string& what, int err) {
  return Status::io_error(what + ": " + std::strerror(err));
}

}  // namespace

std::string temporary_path_beside(const std::string& path) {
  struct stat st;
  // Renaming over a device or FIFO would replace it: those are written in place.
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return "";
  return fresh_name_beside(path);
}

Status commit_temporary(const std::string& tmp, const std::string& path) {
  // The data reaches the disk before the name points at it: after a crash the path holds the old
  // file or the new one, not an empty one (ext4's auto_da_alloc is not something to rely on).
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  const int sync_result = fd >= 0 ? ::fsync(fd) : -1;
  const int sync_errno = errno;
  if (fd >= 0) ::close(fd);
  if (sync_result != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = sync_result != 0 ? sync_errno : errno;
    std::error_code ec;
    fs::remove(tmp, ec);
    return errno_status(path + (sync_result != 0 ? ": fsync" : ": rename"), err);
  }
  return Status::ok();
}

AtomicOutputFile::AtomicOutputFile(std::string path, std::string tmp)
    : path_(std::move(path)), tmp_(std::move(tmp)) {}

Status AtomicOutputFile::open(const std::string& path, std::unique_ptr<AtomicOutputFile>* out) {
  struct stat st;
  std::string tmp;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::io_error(path + ": is a directory");
  }
  tmp = temporary_path_beside(path);
  const bool in_place = tmp.empty();
  std::unique_ptr<AtomicOutputFile> f(new AtomicOutputFile(path, tmp));
  f->out_.open(in_place ? path : tmp, std::ios::binary | std::ios::trunc);
  if (!f->out_) {
    f->done_ = true;  // nothing to remove
    return errno_status(path + ": cannot create a file in " + parent_of(path), errno);
  }
  *out = std::move(f);
  return Status::ok();
}

AtomicOutputFile::~AtomicOutputFile() {
  if (done_ || tmp_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(tmp_, ec);
}

Status AtomicOutputFile::commit() {
  if (done_) return Status::io_error(path_ + ": already committed or failed");
  out_.flush();
  const bool written = static_cast<bool>(out_);
  const int write_errno = errno;
  out_.close();
  done_ = true;
  if (tmp_.empty()) {
    return written ? Status::ok() : errno_status(path_ + ": cannot write", write_errno);
  }
  std::error_code ec;
  if (!written) {
    fs::remove(tmp_, ec);
    return errno_status(path_ + ": cannot write", write_errno != 0 ? write_errno : EIO);
  }
  return commit_temporary(tmp_, path_);
}

Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write) {
  std::unique_ptr<AtomicOutputFile> f;
  if (Status s = AtomicOutputFile::open(path, &f); !s) return s;
  write(f->stream());
  return f->commit();
}

Status check_output_path(const std::string& path, std::string_view flag) {
  const std::string prefix = std::string(flag) + " " + path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::io_error(prefix + ": is a directory");
  }
  const std::string dir = parent_of(path);
  if (::stat(dir.c_str(), &st) != 0) {
    return errno_status(prefix + ": directory " + dir, errno);
  }
  if (!S_ISDIR(st.st_mode)) return Status::io_error(prefix + ": " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) return errno_status(prefix + ": directory " + dir, errno);
  return Status::ok();
}

Status check_output_dir(const std::string& dir, std::string_view flag) {
  const std::string prefix = std::string(flag) + " " + dir;
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Status::io_error(prefix + ": exists and is not a directory");
    if (::access(dir.c_str(), W_OK) != 0) return errno_status(prefix, errno);
    return Status::ok();
  }
  // The nearest existing ancestor must let us create the rest.
  fs::path p = fs::path(dir).parent_path();
  while (!p.empty() && ::stat(p.c_str(), &st) != 0) p = p.parent_path();
  const std::string base = p.empty() ? std::string(".") : p.string();
  if (::stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::io_error(prefix + ": " + base + " is not a directory");
  }
  if (::access(base.c_str(), W_OK) != 0)
    return errno_status(prefix + ": cannot create in " + base, errno);
  return Status::ok();
}

}  // namespace mmreplay::formats

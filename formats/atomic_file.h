// Output files that are whole or absent: a reader (or a later run) sees either the old file or
// the complete new one, never a part, whatever happens to the writer (a full disk, a signal,
// three runs writing one path).
//
// write_file_atomically() writes to a temporary file in the same directory (so the rename stays
// within one file system), flushes and fsync()s it, then rename()s it over the path: POSIX makes
// the rename atomic. On any failure the temporary is removed and the old file stays. An existing
// path that is not a regular file (/dev/stdout, a FIFO, /dev/full) is written in place instead,
// since renaming over a device would replace it; errors are still reported.

#pragma once

#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::formats {

// A file being written: stream() goes to a temporary beside the path, commit() makes it the path.
// Destroyed without a successful commit(), it removes the temporary and leaves the path as it was.
class AtomicOutputFile {
 public:
  // IOError naming the path when the temporary cannot be created (missing or read-only directory).
  static Status open(const std::string& path, std::unique_ptr<AtomicOutputFile>* out);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Flushes, fsync()s and renames the temporary over the path. IOError when any step failed
  // (including earlier writes to stream()); the temporary is then removed.
  Status commit();

 private:
  AtomicOutputFile(std::string path, std::string tmp);
  std::string path_;
  std::string tmp_;  // empty when writing in place (a device or FIFO)
  std::ofstream out_;
  bool done_ = false;
};

// The two steps AtomicOutputFile is made of, for writers that keep their own FILE*
// (trace_writer.cpp). temporary_path_beside() names a fresh temporary in the path's directory,
// or returns "" when the path is an existing device or FIFO that must be written in place.
// commit_temporary() fsync()s the closed temporary and renames it over the path; on failure it
// removes the temporary and returns IOError.
std::string temporary_path_beside(const std::string& path);
Status commit_temporary(const std::string& tmp, const std::string& path);

// Writes what `write` puts into the stream to `path`. IOError naming the path when the directory
// is missing or read-only, the disk is full, or the rename fails.
Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write);

// Checks, before any work, that `path` can be written as an output: its directory exists and is
// writable, and the path is not a directory. `flag` names the option in the message
// ("--json out/x.json: directory out does not exist"). IOError otherwise.
Status check_output_path(const std::string& path, std::string_view flag);

// The same for an output directory that will be created if missing: the nearest existing parent
// must be a writable directory, and the path, if it exists, a directory.
Status check_output_dir(const std::string& dir, std::string_view flag);

}  // namespace mmreplay::formats

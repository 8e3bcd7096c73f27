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

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::formats {

// Writes what `write` puts into the stream to `path`. IOError naming the path when the directory
// is missing or read-only, the disk is full, or the rename fails.
Status write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Checks, before any work, that `path` can be written as an output: its directory exists and is
// writable, and the path is not a directory. `flag` names the option in the message
// ("--json out/x.json: directory out does not exist"). IOError otherwise.
Status check_output_path(const std::string& path, std::string_view flag);

// The same for an output directory that will be created if missing: the nearest existing parent
// must be a writable directory, and the path, if it exists, a directory.
Status check_output_dir(const std::string& dir, std::string_view flag);

}  // namespace mmreplay::formats

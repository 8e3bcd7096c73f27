// Shared pieces of the will-it-scale style workloads; see will_it_scale.h.

#include "tools/gen/will_it_scale.h"

namespace mmreplay::gen {

std::vector<ParamSpec> task_mode_params(uint64_t default_processes, uint64_t default_threads) {
  return {
      shared_params::processes(default_processes, "processes, one mm each (process mode)"),
      shared_params::threads(default_threads, "threads per process sharing its mm (thread mode)"),
  };
}

std::vector<formats::FileInfo> per_task_files(uint64_t tasks, uint64_t size_bytes) {
  std::vector<formats::FileInfo> files;
  files.reserve(tasks);
  for (uint64_t i = 0; i < tasks; ++i) {
    formats::FileInfo file;
    file.id = i + 1;
    file.path = "/tmp/willitscale." + std::to_string(i);
    file.size_bytes = size_bytes;
    // will-it-scale makes the file before the timed loop (mkstemp(), ftruncate()): a sparse
    // file whose holes read as zeroes without I/O, and whose pages the page cache holds from the
    // loop's first pass on. A regular file there before the trace: replay starts it warm
    // (--cache auto), so its mapped pages are found, not read from a device.
    file.kind = formats::FileKind::kRegular;
    file.created = false;
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace mmreplay::gen

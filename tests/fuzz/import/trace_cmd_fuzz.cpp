// Fuzz target for the trace-cmd importer (trace.dat through libtracecmd).
//
// Why a file per input: the importer hands a path to libtracecmd's tracecmd_open(), which reads
// the file itself (headers, zstd/zlib sections, per-CPU pages); it has no entry point that takes
// a buffer, and our side holds no parser of its own to fuzz apart from it, only the decoding of
// the records it sends. So each input is written to one memfd (memory, no disk: a ftruncate and
// a write per input, cheap beside libtracecmd's own work) and imported by its /proc/self/fd path
// through import_file(), exactly as `import --from trace-cmd FILE` runs.
// libtracecmd is not built with coverage and runs in a child process (trace_cmd_records.h), so
// the fuzzer is guided only by our side's edges. The child was this target's first finding:
// libtraceevent 1.7 crashed (SIGSEGV, double free) on damaged files; now that is a Status.
//
// The import either succeeds with a sound trace or fails with a Status naming the file.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/import/import.h"

namespace {

int memfd() {
  static const int fd = memfd_create("fuzz-trace.dat", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmreplay::formats;
  const int fd = memfd();
  if (ftruncate(fd, 0) != 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  ImportedTrace trace;
  ImportReport report;
  const mmreplay::Status s = import_file(ImportFormat::kTraceCmd, path, &trace, &report);
  if (!s) {
    if (s.message().rfind(path + ":", 0) != 0) std::abort();
    return 0;
  }
  if (trace.streams.size() != trace.meta.threads.size()) std::abort();
  for (const auto& stream : trace.streams) {
    for (size_t k = 1; k < stream.size(); ++k) {
      if (stream[k].ts_ns < stream[k - 1].ts_ns) std::abort();
    }
  }
  (void)format_report(report);
  return 0;
}

#include "formats/import/trace_cmd_records.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "formats/import/trace_cmd_shim.h"

namespace mmreplay::formats {
namespace {

// The pipe carries tagged messages, integers in host order (the child is a fork of this process):
//   'R' ts offset pid flags comm system name {1 name is_number value}... 0   a record
//   'E' cpus                                                                 all records sent
//   'X'                                                                      tracecmd_open() failed
// Strings are a uint32 length and the bytes.
constexpr char kRecord = 'R';
constexpr char kEnd = 'E';
constexpr char kCannotOpen = 'X';
constexpr uint8_t kDescribed = 1, kHasComm = 2;
// What the parent accepts, should a child with a damaged heap send garbage.
constexpr uint32_t kMaxString = 1 << 16;
constexpr size_t kMaxFields = 256;

// Present in sanitizer builds only (weak: null elsewhere).
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)());

// --- child ---

void put(FILE* out, const void* p, size_t n) {
  if (std::fwrite(p, 1, n, out) != n) _exit(0);  // the parent stopped reading: done
}
template <typename T>
void put_value(FILE* out, T v) {
  put(out, &v, sizeof v);
}
void put_string(FILE* out, const char* s) {
  const std::string_view v = s == nullptr ? "" : std::string_view(s).substr(0, kMaxString);
  put_value(out, static_cast<uint32_t>(v.size()));
  put(out, v.data(), v.size());
}

int send_record(const mmr_tc_record* r, void* data) {
  auto* out = static_cast<FILE*>(data);
  put_value(out, kRecord);
  put_value(out, uint64_t{r->ts});
  put_value(out, uint64_t{r->offset});
  put_value(out, int32_t{r->pid});
  const bool described = r->system != nullptr && r->name != nullptr;
  put_value(out, static_cast<uint8_t>((described ? kDescribed : 0) | (r->comm ? kHasComm : 0)));
  put_string(out, r->comm);
  put_string(out, described ? r->system : nullptr);
  put_string(out, described ? r->name : nullptr);
  const char* name = nullptr;
  unsigned long long value = 0;
  int ok = 0;
  for (size_t i = 0; i < kMaxFields && mmr_tc_field_at(r, i, &name, &value, &ok) == 0; ++i) {
    put_value(out, uint8_t{1});
    put_string(out, name);
    put_value(out, static_cast<uint8_t>(ok != 0));
    put_value(out, uint64_t{value});
  }
  put_value(out, uint8_t{0});
  return 0;
}

[[noreturn]] void child_main(const std::string& path, int fd) {
  // Default actions: a crash ends the child by its signal, not in the handlers a sanitizer or
  // libFuzzer installed in the parent (they would report it as a crash of ours).
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(sig, SIG_DFL);
  std::signal(SIGPIPE, SIG_IGN);
  // Sanitizer builds catch some of libtraceevent's errors (a double free) before any signal, and
  // run the death callback, which under libFuzzer saves the input as a crash of the target: the
  // first 30 s run wrote 14 such. The parent reports the child's death in its Status; so no
  // callback here, and the child's stderr (a sanitizer's report, libtraceevent's complaints) goes
  // to /dev/null rather than into the importer's output.
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
  if (const int null = open("/dev/null", O_WRONLY); null >= 0) dup2(null, STDERR_FILENO);
  FILE* out = fdopen(fd, "w");
  if (out == nullptr) _exit(1);
  int cpus = 0;
  if (mmr_tc_read(path.c_str(), send_record, out, &cpus) != 0) {
    put_value(out, kCannotOpen);
  } else {
    put_value(out, kEnd);
    put_value(out, int32_t{cpus});
  }
  std::fflush(out);
  _exit(0);
}

// --- parent ---

template <typename T>
bool get(FILE* in, T* v) {
  return std::fread(v, sizeof *v, 1, in) == 1;
}
bool get_string(FILE* in, std::string* s) {
  uint32_t n = 0;
  if (!get(in, &n) || n > kMaxString) return false;
  s->resize(n);
  return n == 0 || std::fread(s->data(), 1, n, in) == n;
}

bool get_record(FILE* in, TcRecord* r) {
  uint8_t flags = 0;
  if (!get(in, &r->ts) || !get(in, &r->offset) || !get(in, &r->pid) || !get(in, &flags) ||
      !get_string(in, &r->comm) || !get_string(in, &r->system) || !get_string(in, &r->name)) {
    return false;
  }
  r->described = (flags & kDescribed) != 0;
  r->has_comm = (flags & kHasComm) != 0;
  r->fields.clear();
  for (uint8_t more = 0; get(in, &more) && more == 1;) {
    if (r->fields.size() == kMaxFields) return false;
    TcField& f = r->fields.emplace_back();
    uint8_t is_number = 0;
    if (!get_string(in, &f.name) || !get(in, &is_number) || !get(in, &f.value)) return false;
    f.is_number = is_number != 0;
  }
  return true;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 0;
  }
  return status;
}

}  // namespace

bool TcRecord::field_values(size_t skip, uint64_t* values, size_t max, size_t* count) const {
  *count = 0;
  for (size_t i = skip; i < fields.size() && *count < max; ++i) {
    if (!fields[i].is_number) return false;
    values[(*count)++] = fields[i].value;
  }
  return true;
}

bool TcRecord::field_value(std::string_view field, uint64_t* value) const {
  for (const TcField& f : fields) {
    if (f.name == field) {
      *value = f.value;
      return f.is_number;
    }
  }
  return false;
}

Status read_trace_dat_records(const std::string& path,
                              const std::function<bool(const TcRecord&)>& on_record, int* cpus) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::from_errno(errno, path + ": cannot make a pipe");
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(fds[0]);
    close(fds[1]);
    return Status::from_errno(e, path + ": cannot fork a reader");
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(path, fds[1]);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  if (in == nullptr) close(fds[0]);
  bool stopped = false, complete = false, cannot_open = false;
  int32_t recorded_cpus = 0;
  TcRecord record;
  for (char tag = 0; in != nullptr && get(in, &tag);) {
    if (tag == kRecord && get_record(in, &record)) {
      if (on_record(record)) continue;
      stopped = true;
    } else if (tag == kEnd) {
      complete = get(in, &recorded_cpus);
    } else {
      cannot_open = tag == kCannotOpen;
    }
    break;
  }
  if (in != nullptr) std::fclose(in);
  if (stopped) kill(pid, SIGKILL);
  const int status = wait_for(pid);
  if (stopped) return Status::ok();  // the caller's own status says why it stopped
  if (complete) {
    *cpus = recorded_cpus;
    return Status::ok();
  }
  if (cannot_open) {
    // libtracecmd says only that it failed: a missing file is NotFound, anything else is a file
    // that is not a trace.dat (or a damaged one).
    std::error_code ec;
    std::string message = path + ": cannot open as a trace-cmd trace.dat";
    return std::filesystem::exists(path, ec) ? Status::corruption(std::move(message))
                                             : Status::not_found(std::move(message));
  }
  const std::string how = WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                                              : fmt::format("exit status {}", WEXITSTATUS(status));
  return Status::corruption(path + ": libtracecmd died reading it (" + how +
                            "): a damaged trace.dat");
}

}  // namespace mmreplay::formats

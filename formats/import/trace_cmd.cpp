#include "formats/import/trace_cmd.h"

#include <array>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "formats/import/trace_cmd_shim.h"

namespace mmreplay::formats {
namespace {

constexpr std::string_view kSyscalls = "syscalls";
constexpr std::string_view kEnter = "sys_enter_";
constexpr std::string_view kExit = "sys_exit_";
constexpr uint64_t kX86PfWrite = 1u << 1;  // arch/x86/include/asm/trap_pf.h
// Fields of a syscall event: __syscall_nr, then the arguments (enter) or ret (exit).
constexpr size_t kSkipSyscallNr = 1;

struct Context {
  ImportBuilder* builder;
  std::string path;
  Status status;
};

bool is_observation(std::string_view system, std::string_view name) {
  return system == "mmap_lock" || (system == "lock" && name.starts_with("contention_")) ||
         (system == "tlb" && name == "tlb_flush");
}

Status field_error(const Context& c, const mmr_tc_record& r, std::string_view what) {
  return Status::corruption(
      fmt::format("{}: offset {}: {}:{} {}", c.path, r.offset, r.system, r.name, what));
}

void syscall_record(Context* c, const mmr_tc_record& r, uint64_t tid) {
  const std::string_view name = r.name;
  SyscallCall call;
  if (name.starts_with(kEnter) && syscall_from_name(name.substr(kEnter.size()), &call.sc)) {
    std::array<unsigned long long, kMaxSyscallArgs> v{};
    size_t n = 0;
    if (mmr_tc_field_values(&r, kSkipSyscallNr, v.data(), v.size(), &n) != 0) {
      c->status = field_error(*c, r, "fields cannot be read");
      return;
    }
    for (size_t i = 0; i < n; ++i) call.args[i] = v[i];
    if (call.sc == Syscall::kClone3) call.clone_flags_known = false;
    c->builder->syscall_enter(tid, r.ts, std::move(call));
    return;
  }
  if (name.starts_with(kExit) && syscall_from_name(name.substr(kExit.size()), &call.sc)) {
    unsigned long long ret = 0;
    if (mmr_tc_field_value(&r, "ret", &ret) != 0) {
      c->status = field_error(*c, r, "has no ret field");
      return;
    }
    c->builder->syscall_exit(tid, r.ts, call.sc, static_cast<int64_t>(ret));
    return;
  }
  if (name.starts_with(kEnter)) {
    c->builder->ignored_event(name.substr(kEnter.size()));  // a call is named at its enter
  } else {
    c->builder->ignored_event();
  }
}

int on_record(const mmr_tc_record* rec, void* data) {
  auto* c = static_cast<Context*>(data);
  const mmr_tc_record& r = *rec;
  c->builder->count_line();
  if (r.system == nullptr || r.name == nullptr) {
    c->builder->unknown_line(r.offset, "record of an event the file does not describe");
    return 0;
  }
  const auto tid = static_cast<uint64_t>(r.pid);
  if (r.comm != nullptr) c->builder->set_name(tid, r.comm);
  const std::string_view system = r.system;
  const std::string_view name = r.name;
  if (system == kSyscalls) {
    syscall_record(c, r, tid);
  } else if (system == "exceptions" && name == "page_fault_user") {
    unsigned long long address = 0, error_code = 0;
    if (mmr_tc_field_value(&r, "address", &address) != 0 ||
        mmr_tc_field_value(&r, "error_code", &error_code) != 0) {
      c->status = field_error(*c, r, "has no address or error_code");
    } else {
      c->builder->page_fault(tid, r.ts, address, (error_code & kX86PfWrite) != 0);
    }
  } else if (is_observation(system, name)) {
    // Values from the record's fields: pages of a flush, the contended lock, write of mmap_lock.
    unsigned long long value = 0;
    const char* field = system == "tlb" ? "pages" : system == "lock" ? "lock_addr" : "write";
    if (mmr_tc_field_value(&r, field, &value) != 0) value = 0;
    c->builder->observation_value(tid, r.ts, fmt::format("{}:{}", system, name), value);
  } else {
    c->builder->ignored_event(fmt::format("{}:{}", system, name));
  }
  return c->status ? 0 : 1;  // non-zero stops the walk
}

}  // namespace

bool have_trace_dat_reader() {
  return true;
}

Status parse_trace_dat(const std::string& path, ImportBuilder* builder, RecorderInfo* recorder) {
  recorder->tool = "trace-cmd";
  Context c{builder, path, Status::ok()};
  int cpus = 0;
  if (mmr_tc_read(path.c_str(), on_record, &c, &cpus) != 0) {
    // libtracecmd says only that it failed: a missing file is NotFound, anything else is a file
    // that is not a trace.dat (or a damaged one).
    std::error_code ec;
    std::string message = path + ": cannot open as a trace-cmd trace.dat";
    return std::filesystem::exists(path, ec) ? Status::corruption(std::move(message))
                                             : Status::not_found(std::move(message));
  }
  recorder->cpus = static_cast<uint32_t>(cpus);
  return c.status;
}

}  // namespace mmreplay::formats

// libtraceevent 1.7 (Debian 12) leaks a few bytes per parsed event format inside
// tep_parse_event(), which tracecmd_open() calls; tracecmd_close() cannot free them. Tell
// LeakSanitizer (ASan builds) so that sanitized runs of the trace.dat importer stay clean.
// Ignored by builds without sanitizers.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libtraceevent.so\n";
}

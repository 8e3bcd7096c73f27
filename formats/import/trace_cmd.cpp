#include "formats/import/trace_cmd.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "formats/import/trace_cmd_records.h"

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

Status field_error(const Context& c, const TcRecord& r, std::string_view what) {
  return Status::corruption(
      fmt::format("{}: offset {}: {}:{} {}", c.path, r.offset, r.system, r.name, what));
}

void syscall_record(Context* c, const TcRecord& r, uint64_t tid) {
  const std::string_view name = r.name;
  SyscallCall call;
  if (name.starts_with(kEnter) && syscall_from_name(name.substr(kEnter.size()), &call.sc)) {
    std::array<uint64_t, kMaxSyscallArgs> v{};
    size_t n = 0;
    if (!r.field_values(kSkipSyscallNr, v.data(), v.size(), &n)) {
      c->status = field_error(*c, r, "fields cannot be read");
      return;
    }
    for (size_t i = 0; i < n; ++i) call.args[i] = v[i];
    if (call.sc == Syscall::kClone3) call.clone_flags_known = false;
    c->builder->syscall_enter(tid, r.ts, std::move(call));
    return;
  }
  if (name.starts_with(kExit) && syscall_from_name(name.substr(kExit.size()), &call.sc)) {
    uint64_t ret = 0;
    if (!r.field_value("ret", &ret)) {
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

// sched:sched_wakeup: the woken thread is the record's pid field, not the task it was recorded
// in (the waker, or whatever ran: an interrupt's wake-up is recorded in the task it interrupted,
// the idle task's included), which makes no thread of the trace. A blocking call of the woken
// thread ends there (ImportBuilder::task_woken()), as with perf (perf_script.cpp).
void wakeup_record(Context* c, const TcRecord& r) {
  uint64_t woken = 0;
  if (!r.field_value("pid", &woken)) {
    c->status = field_error(*c, r, "has no pid field");
    return;
  }
  c->builder->task_woken(woken, r.ts);
}

// include/linux/sched.h: the task-state bits a sleeping task has (TASK_INTERRUPTIBLE up to
// TASK_REPORT_IDLE); sched_switch reports a preempted task with none of them (0, or
// TASK_REPORT_MAX since 4.14: __trace_sched_switch_state()).
constexpr uint64_t kSleepStateBits = 0xff;

// sched:sched_switch: a traced thread left its CPU (prev_pid), still runnable when preempted, and
// one came back (next_pid); each pair is off-CPU time, not think time, as perf's switch events
// (ImportBuilder::switch_out()). Records of other tasks (the pid filter keeps a switch when
// either side is traced) change nothing.
void switch_record(Context* c, const TcRecord& r) {
  uint64_t prev = 0, prev_state = 0, next = 0;
  if (!r.field_value("prev_pid", &prev) || !r.field_value("prev_state", &prev_state) ||
      !r.field_value("next_pid", &next)) {
    c->status = field_error(*c, r, "has no prev_pid, prev_state or next_pid");
    return;
  }
  if (c->builder->knows_thread(prev)) {
    c->builder->switch_out(prev, r.ts, (prev_state & kSleepStateBits) == 0);
  }
  if (c->builder->knows_thread(next)) c->builder->switch_in(next, r.ts);
}

// false stops the walk.
bool on_record(Context* c, const TcRecord& r) {
  c->builder->count_line();
  if (!r.described) {
    c->builder->unknown_line(r.offset, "record of an event the file does not describe");
    return true;
  }
  if (r.system == "sched" && r.name == "sched_wakeup") {
    wakeup_record(c, r);
    return static_cast<bool>(c->status);
  }
  if (r.system == "sched" && r.name == "sched_switch") {
    switch_record(c, r);
    return static_cast<bool>(c->status);
  }
  const auto tid = static_cast<uint64_t>(r.pid);
  if (r.has_comm) c->builder->set_name(tid, r.comm);
  const std::string_view system = r.system;
  const std::string_view name = r.name;
  if (system == kSyscalls) {
    syscall_record(c, r, tid);
  } else if (system == "exceptions" && (name == "page_fault_user" || name == "page_fault_kernel")) {
    uint64_t address = 0, error_code = 0;
    if (!r.field_value("address", &address) || !r.field_value("error_code", &error_code)) {
      c->status = field_error(*c, r, "has no address or error_code");
    } else if (name == "page_fault_kernel") {
      c->builder->kernel_page_fault(tid, r.ts, address, (error_code & kX86PfWrite) != 0);
    } else {
      c->builder->page_fault(tid, r.ts, address, (error_code & kX86PfWrite) != 0);
    }
  } else if (is_observation(system, name)) {
    // Values from the record's fields: pages of a flush, the contended lock, write of mmap_lock.
    uint64_t value = 0;
    const char* field = system == "tlb" ? "pages" : system == "lock" ? "lock_addr" : "write";
    if (!r.field_value(field, &value)) value = 0;
    c->builder->observation_value(tid, r.ts, fmt::format("{}:{}", system, name), value);
  } else {
    c->builder->ignored_event(fmt::format("{}:{}", system, name));
  }
  return static_cast<bool>(c->status);
}

}  // namespace

bool have_trace_dat_reader() {
  return true;
}

Status parse_trace_dat(const std::string& path, ImportBuilder* builder, RecorderInfo* recorder) {
  recorder->tool = "trace-cmd";
  Context c{builder, path, Status::ok()};
  int cpus = 0;
  if (Status s = read_trace_dat_records(
          path, [&c](const TcRecord& r) { return on_record(&c, r); }, &cpus);
      !s) {
    return s;
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

#include "formats/import/perf_script.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "formats/import/socket_pairs.h"
#include "formats/import/text_scan.h"

namespace mmreplay::formats {
namespace {

constexpr std::string_view kSysEnter = "syscalls:sys_enter_";
constexpr std::string_view kSysExit = "syscalls:sys_exit_";
constexpr std::string_view kPageFaultUser = "exceptions:page_fault_user";
constexpr std::string_view kPageFaultKernel = "exceptions:page_fault_kernel";
// One folio leaving the page cache (include/trace/events/filemap.h): "dev 254:0 ino 4f12
// pfn=0x1234 ofs=0 order=0", 1 << order pages.
constexpr std::string_view kPageCacheDelete = "filemap:mm_filemap_delete_from_page_cache";
// perf record --switch-events, perf script --show-switch-events: "PERF_RECORD_SWITCH OUT
// preempt", "PERF_RECORD_SWITCH OUT", "PERF_RECORD_SWITCH IN" (tools/perf/util/event.c).
constexpr std::string_view kSwitchRecord = "PERF_RECORD_SWITCH";
// record's wake-ups of blocked threads (tools/cli/record_perf.cpp, ImportBuilder::task_woken()).
constexpr std::string_view kSchedWakeup = "sched:sched_wakeup";
// --show-lost-events: "PERF_RECORD_LOST lost N", events perf dropped when its buffer was full.
constexpr std::string_view kLostRecord = "PERF_RECORD_LOST";
// --show-mmap-events: a file mapping's path (perf records executable mappings).
constexpr std::string_view kMmapRecord = "PERF_RECORD_MMAP";
constexpr std::string_view kMmap2Record = "PERF_RECORD_MMAP2";
// x86 page fault error code bits (arch/x86/include/asm/trap_pf.h).
constexpr uint64_t kX86PfWrite = 1u << 1;
constexpr uint64_t kKiB = 1024;

// Ground-truth tracepoints: kept as observations, not replayed.
bool is_observation(std::string_view event) {
  return event.starts_with("mmap_lock:") || event == "lock:contention_begin" ||
         event == "lock:contention_end" || event == "tlb:tlb_flush";
}

struct Line {
  std::string_view comm;
  uint64_t pid = 0;
  bool has_pid = false;
  uint64_t tid = 0;
  uint64_t ts = 0;
  int32_t cpu = -1;  // the [cpu] column when present
  std::string_view event;
  std::string_view payload;
};

bool is_timestamp_token(std::string_view tok) {
  if (tok.size() < 2 || tok.back() != ':') return false;
  uint64_t ns = 0;
  return parse_seconds_ns(tok.substr(0, tok.size() - 1), &ns);
}

bool is_cpu_token(std::string_view tok) {
  uint64_t cpu = 0;
  return tok.size() > 2 && tok.front() == '[' && tok.back() == ']' &&
         parse_dec(tok.substr(1, tok.size() - 2), &cpu);
}

// Splits "comm pid/tid [cpu] secs.ns: event: payload". False when the line has no such shape.
bool split_line(std::string_view text, Line* out) {
  // Find the timestamp token; the tid token is the one before it (or before [cpu]).
  std::string_view rest = text;
  std::string_view prev, prev2;
  size_t prev_pos = 0, prev2_pos = 0;
  for (;;) {
    std::string_view tok = next_token(&rest);
    if (tok.empty()) return false;
    const size_t pos = static_cast<size_t>(tok.data() - text.data());
    if (is_timestamp_token(tok) && !prev.empty()) {
      if (!parse_seconds_ns(tok.substr(0, tok.size() - 1), &out->ts)) return false;
      std::string_view id = prev;
      size_t id_pos = prev_pos;
      if (is_cpu_token(prev)) {
        if (prev2.empty()) return false;
        uint64_t cpu = 0;
        if (parse_dec(prev.substr(1, prev.size() - 2), &cpu)) out->cpu = static_cast<int32_t>(cpu);
        id = prev2;
        id_pos = prev2_pos;
      }
      const size_t slash = id.find('/');
      if (slash != std::string_view::npos) {
        if (!parse_dec(id.substr(0, slash), &out->pid)) return false;
        out->has_pid = true;
        if (!parse_dec(id.substr(slash + 1), &out->tid)) return false;
      } else if (!parse_dec(id, &out->tid)) {
        return false;
      }
      out->comm = trim(text.substr(0, id_pos));
      break;
    }
    prev2 = prev;
    prev2_pos = prev_pos;
    prev = tok;
    prev_pos = pos;
  }
  std::string_view event = next_token(&rest);
  if (event == kSwitchRecord || event == kLostRecord || event == kMmapRecord ||
      event == kMmap2Record) {  // no colon after these names
    out->event = event;
    out->payload = trim(rest);
    return true;
  }
  if (event.size() < 2 || event.back() != ':') return false;
  out->event = event.substr(0, event.size() - 1);
  out->payload = trim(rest);
  return true;
}

// "addr: 0x0, len: 0x2000, ..." -> values in order. False on a value that is not a number.
bool parse_enter_args(std::string_view payload, SyscallCall* call, size_t* count) {
  size_t n = 0;
  while (!payload.empty()) {
    const size_t comma = payload.find(", ");
    std::string_view field = payload.substr(0, comma);
    payload = comma == std::string_view::npos ? std::string_view() : payload.substr(comma + 2);
    const size_t colon = field.find(": ");
    if (colon == std::string_view::npos) return false;
    uint64_t v = 0;
    if (!parse_u64(trim(field.substr(colon + 2)), &v)) return false;
    if (n < kMaxSyscallArgs) call->args[n] = v;
    ++n;
  }
  *count = n;
  return true;
}

// "address=0x7f.. ip=0x.. error_code=0x14" -> address and error code.
bool parse_fault(std::string_view payload, uint64_t* address, uint64_t* error_code) {
  bool have_address = false, have_code = false;
  while (!payload.empty()) {
    std::string_view tok = next_token(&payload);
    if (tok.empty()) break;
    const size_t eq = tok.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = tok.substr(0, eq);
    if (key == "address") have_address = parse_u64(tok.substr(eq + 1), address);
    if (key == "error_code") have_code = parse_u64(tok.substr(eq + 1), error_code);
  }
  return have_address && have_code;
}

// Fills the recorder from perf's "# key : value" header lines.
void read_header_line(std::string_view text, RecorderInfo* rec) {
  text.remove_prefix(1);
  const size_t colon = text.find(" : ");
  if (colon == std::string_view::npos) return;
  const std::string_view key = trim(text.substr(0, colon));
  const std::string_view value = trim(text.substr(colon + 3));
  uint64_t n = 0;
  if (key == "os release") rec->kernel_release.assign(value);
  if (key == "cmdline") rec->command_line.assign(value);
  if (key == "nrcpus avail" && parse_dec(value, &n)) rec->cpus = static_cast<uint32_t>(n);
  if (key == "total memory" && value.ends_with(" kB") &&
      parse_dec(value.substr(0, value.size() - 3), &n)) {
    rec->memory_bytes = n * kKiB;
  }
}

class PerfScriptParser {
 public:
  PerfScriptParser(LineReader* lines, ImportBuilder* b, bool launcher_prologue)
      : lines_(*lines), b_(*b), in_launcher_(launcher_prologue) {}

  Status line(std::string_view text) {
    Line l;
    if (!split_line(text, &l)) {
      b_.unknown_line(lines_.line_number(), text);
      return Status::ok();
    }
    if (in_launcher_ && launcher_line(l)) {
      b_.launcher_line();
      return Status::ok();
    }
    // Before the thread is noted: perf's own records name the kernel under pid 0 ("swapper").
    if (l.event == kMmapRecord || l.event == kMmap2Record) return mapping(l);
    if (l.has_pid) b_.set_process(l.tid, l.pid);
    if (!l.comm.empty()) b_.set_name(l.tid, l.comm);
    if (l.cpu >= 0) b_.set_cpu(l.tid, l.cpu, l.ts);
    if (l.event.starts_with(kSysEnter)) return enter(l, l.event.substr(kSysEnter.size()));
    if (l.event.starts_with(kSysExit)) return exit(l, l.event.substr(kSysExit.size()));
    if (l.event == kPageFaultUser) return fault(l, false);
    if (l.event == kPageFaultKernel) return fault(l, true);
    if (l.event == kPageCacheDelete) return page_cache_delete(l);
    if (l.event == kSwitchRecord) return context_switch(l);
    if (l.event == kSchedWakeup) return wakeup(l);
    if (l.event == kLostRecord) return lost(l);
    if (is_probe(l.event, kOpenProbePrefix)) return open_path(l);
    if (is_probe(l.event, kPipeProbePrefix)) return pipe_fds(l);
    if (is_probe(l.event, kVectorProbePrefix)) return vector_ranges(l);
    if (is_probe(l.event, kSockoptProbePrefix)) return sockopt_value(l);
    if (is_probe(l.event, kSockaddrProbePrefix)) return sockaddr_path(l);
    if (is_observation(l.event)) {
      b_.observation(l.tid, l.ts, l.event, l.payload);
    } else {
      b_.ignored_event(l.event);
    }
    return Status::ok();
  }

 private:
  Status malformed(std::string_view what) const {
    return Status::corruption(fmt::format("{}:{}: malformed perf script line: {}", lines_.name(),
                                          lines_.line_number(), what));
  }

  Status enter(const Line& l, std::string_view name) {
    SyscallCall call;
    if (!syscall_from_name(name, &call.sc)) {
      b_.ignored_event(name);
      return Status::ok();
    }
    size_t n = 0;
    if (!parse_enter_args(l.payload, &call, &n)) {
      return malformed(fmt::format("arguments of sys_enter_{} are not 'name: number' pairs", name));
    }
    if (call.sc == Syscall::kClone3) call.clone_flags_known = false;
    b_.syscall_enter(l.tid, l.ts, std::move(call));
    return Status::ok();
  }

  Status exit(const Line& l, std::string_view name) {
    Syscall sc;
    if (!syscall_from_name(name, &sc)) {
      b_.ignored_event();
      return Status::ok();
    }
    uint64_t ret = 0;
    if (!parse_u64(l.payload, &ret)) {
      return malformed(fmt::format("return value of sys_exit_{} is not a number", name));
    }
    b_.syscall_exit(l.tid, l.ts, sc, static_cast<int64_t>(ret));
    return Status::ok();
  }

  static bool is_probe(std::string_view event, std::string_view prefix) {
    return event.starts_with(kOpenProbeGroup) && event.size() > kOpenProbeGroup.size() &&
           event[kOpenProbeGroup.size()] == ':' &&
           event.substr(kOpenProbeGroup.size() + 1).starts_with(prefix);
  }

  // "(7f.. <- 55..) fd0=3 fd1=5 ret=0": the fds of the thread's pipe call, when it succeeded.
  Status pipe_fds(const Line& l) {
    int64_t v[3] = {0, 0, 0};
    constexpr std::string_view kKeys[] = {"fd0=", "fd1=", "ret="};
    for (int k = 0; k < 3; ++k) {
      const size_t at = l.payload.find(kKeys[k]);
      std::string_view num =
          at == std::string_view::npos ? "" : l.payload.substr(at + kKeys[k].size());
      num = num.substr(0, num.find(' '));
      const bool negative = num.starts_with('-');
      uint64_t u = 0;
      if (!parse_dec(negative ? num.substr(1) : num, &u) || u > INT32_MAX) {
        return malformed("pipe probe without numeric fd0=, fd1= and ret=");
      }
      v[k] = negative ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
    }
    if (v[2] == 0 && v[0] >= 0 && v[1] >= 0) {
      // "mmreplay_pipe_socketpair_PID__return": the pair is two connected sockets.
      const bool socketpair = l.event.find("_socketpair_") != std::string_view::npos;
      b_.pipe_fds(l.tid, l.ts, static_cast<int32_t>(v[0]), static_cast<int32_t>(v[1]),
                  socketpair ? FileKind::kSocket : FileKind::kPipe);
    }
    return Status::ok();
  }

  // "(7f..) vlen=3 advice=20 b0=0x7f.. l0=8192 ...": the ranges of the thread's next
  // process_madvise, the first min(vlen, kVectorProbeRanges) entries; an entry perf could not
  // fetch ends them there.
  Status vector_ranges(const Line& l) {
    auto field = [&l](std::string_view key, uint64_t* value) {
      const std::string needle = fmt::format(" {}=", key);
      const size_t at = l.payload.find(needle);
      if (at == std::string_view::npos) return false;
      std::string_view num = l.payload.substr(at + needle.size());
      return parse_u64(num.substr(0, num.find(' ')), value);
    };
    uint64_t vlen = 0;
    if (!field("vlen", &vlen)) return malformed("process_madvise probe without a numeric vlen=");
    std::vector<Range> ranges;
    const uint64_t n = std::min<uint64_t>(vlen, kVectorProbeRanges);
    for (uint64_t i = 0; i < n; ++i) {
      Range r;
      if (!field(fmt::format("b{}", i), &r.addr) || !field(fmt::format("l{}", i), &r.len)) break;
      ranges.push_back(r);
    }
    b_.vector_ranges(l.tid, std::move(ranges), vlen);
    return Status::ok();
  }

  // "(7f..) val=65536": the int the thread's next setsockopt passes; anything else there (perf
  // could not read optval) gives none.
  Status sockopt_value(const Line& l) {
    constexpr std::string_view kVal = " val=";
    const size_t at = l.payload.find(kVal);
    if (at == std::string_view::npos) return Status::ok();
    std::string_view num = l.payload.substr(at + kVal.size());
    uint64_t value = 0;
    if (parse_dec(num.substr(0, num.find(' ')), &value)) b_.sockopt_value(l.tid, value);
    return Status::ok();
  }

  // "(7f..) fam=1 port=12079 path=\"/tmp/s\"": the address of the thread's next connect or bind,
  // an AF_UNIX path, or an IP port (sin_port and sin6_port sit at offset 2 in network order, and
  // the probe reads them as a little-endian u16). Recordings before the port was fetched have
  // fam and path only.
  Status sockaddr_path(const Line& l) {
    auto field = [&l](std::string_view key, uint64_t* value) {
      const size_t at = l.payload.find(key);
      if (at == std::string_view::npos) return false;
      const std::string_view rest = l.payload.substr(at + key.size());
      return parse_dec(rest.substr(0, rest.find(' ')), value);
    };
    uint64_t family = 0;
    if (!field(" fam=", &family)) return Status::ok();
    if (family == kAfInet || family == kAfInet6) {
      uint64_t raw = 0;
      if (!field(" port=", &raw) || raw > 0xffff) return Status::ok();
      const auto port = static_cast<uint16_t>(((raw & 0xff) << 8) | (raw >> 8));
      if (port != 0) b_.sockaddr_path(l.tid, detail::ip_port_address(port));
      return Status::ok();
    }
    if (family != kAfUnix) return Status::ok();
    // path="..." is last; abstract="..." (the bytes after a leading 0) comes before it.
    constexpr std::string_view kPath = " path=\"";
    constexpr std::string_view kAbstract = " abstract=\"";
    const size_t at = l.payload.rfind(kPath);
    const size_t end = l.payload.rfind('"');
    if (at == std::string_view::npos || end < at + kPath.size()) return Status::ok();
    const std::string_view path = l.payload.substr(at + kPath.size(), end - at - kPath.size());
    if (!path.empty()) {
      b_.sockaddr_path(l.tid, path);
      return Status::ok();
    }
    // An abstract name: sun_path[0] is 0, the name follows (strace prints it as @name).
    const size_t ab = l.payload.find(kAbstract);
    if (ab == std::string_view::npos || ab > at) return Status::ok();
    const size_t ab_end = l.payload.rfind('"', at);
    if (ab_end < ab + kAbstract.size()) return Status::ok();
    const std::string_view name =
        l.payload.substr(ab + kAbstract.size(), ab_end - ab - kAbstract.size());
    if (!name.empty()) b_.sockaddr_path(l.tid, "@" + std::string(name));
    return Status::ok();
  }

  // "(7f0166f98fc0) path=\"/dev/null\"": the name the thread's next open gets.
  Status open_path(const Line& l) {
    constexpr std::string_view kPath = "path=\"";
    const size_t at = l.payload.find(kPath);
    const size_t end = l.payload.rfind('"');
    if (at == std::string_view::npos || end < at + kPath.size()) {
      return malformed("open probe without path=\"...\"");
    }
    b_.open_path(l.tid, l.payload.substr(at + kPath.size(), end - at - kPath.size()));
    return Status::ok();
  }

  // Both tracepoints print "address=%ps ip=%ps error_code=0x%lx" (arch/x86/include/asm/trace/
  // exceptions.h); `kernel`: page_fault_kernel, a fault taken in kernel mode.
  Status fault(const Line& l, bool kernel) {
    uint64_t address = 0, error_code = 0;
    if (!parse_fault(l.payload, &address, &error_code)) {
      return malformed(fmt::format("{} without numeric address= and error_code=", l.event));
    }
    const bool write = (error_code & kX86PfWrite) != 0;
    if (kernel) {
      b_.kernel_page_fault(l.tid, l.ts, address, write);
    } else {
      b_.page_fault(l.tid, l.ts, address, write);
    }
    return Status::ok();
  }

  Status page_cache_delete(const Line& l) {
    constexpr std::string_view kOrder = "order=";
    const size_t at = l.payload.rfind(kOrder);
    uint64_t order = 0;
    if (at == std::string_view::npos ||
        !parse_dec(trim(l.payload.substr(at + kOrder.size())), &order) || order >= 32) {
      return malformed(fmt::format("{} without order=N", l.event));
    }
    b_.page_cache_deleted(l.tid, uint64_t{1} << order);
    return Status::ok();
  }

  // "18596/18596: [0x7f4d59cb1000(0x156000) @ 0x26000 fe:00 332835 0]: r-xp /usr/lib/libc.so.6"
  // (MMAP2; MMAP has "[addr(len) @ pgoff]: x path"): the path of the file mapped at addr. The
  // kernel's own ("[kernel.kallsyms]_text"), [vdso] and anonymous ("//anon") ones name no file.
  Status mapping(const Line& l) {
    const size_t open = l.payload.find('[');
    const size_t close = l.payload.find("]: ", open);
    if (open == std::string_view::npos || close == std::string_view::npos) {
      return malformed(fmt::format("{} without [address(length) ...]: ", l.event));
    }
    std::string_view inner = l.payload.substr(open + 1, close - open - 1);
    uint64_t addr = 0;
    if (!parse_u64(inner.substr(0, inner.find('(')), &addr)) {
      return malformed(fmt::format("{} address is not a number", l.event));
    }
    std::string_view rest = l.payload.substr(close + 3);
    next_token(&rest);  // protection ("r-xp") or "x"
    const std::string_view path = trim(rest);
    if (path.starts_with('/') && !path.starts_with("//")) b_.mapping_path(l.tid, l.ts, addr, path);
    return Status::ok();
  }

  Status context_switch(const Line& l) {
    std::string_view rest = l.payload;
    const std::string_view direction = next_token(&rest);
    if (direction == "OUT") {
      b_.switch_out(l.tid, l.ts, next_token(&rest) == "preempt");
    } else if (direction == "IN") {
      b_.switch_in(l.tid, l.ts);
    } else {
      return malformed("PERF_RECORD_SWITCH neither IN nor OUT");
    }
    return Status::ok();
  }

  // "comm=NAME pid=TID prio=P target_cpu=CPU" (4.x-6.x; "success=1" before target_cpu in 3.x):
  // the woken thread is pid=, not the line's thread (the one running when it happened).
  Status wakeup(const Line& l) {
    const size_t at = l.payload.find(" pid=");
    uint64_t tid = 0;
    if (at == std::string_view::npos) return malformed("sched_wakeup without pid=");
    std::string_view rest = l.payload.substr(at + 5);
    if (!parse_dec(next_token(&rest), &tid)) return malformed("sched_wakeup pid= is not a number");
    b_.task_woken(tid, l.ts);
    return Status::ok();
  }

  Status lost(const Line& l) {
    std::string_view rest = l.payload;
    uint64_t n = 0;
    if (next_token(&rest) != "lost" || !parse_dec(next_token(&rest), &n)) {
      return malformed("PERF_RECORD_LOST without 'lost N'");
    }
    b_.lost_events(n);
    return Status::ok();
  }

  // Whether `l` is record's launcher's (ImportOptions::launcher_prologue): a line of the first
  // thread perf saw (perf enables its events inside the launcher's own exec, so the launcher's
  // lines come first, that exec's return among them; perf's own records under pid 0 go on to
  // the builder), up to and with the execve it enters to run the command. What the exec does
  // after it has replaced the mm (kernel-mode faults writing the new stack and bss, perf's
  // records of the new mappings) and its return are kept: a recording without the launcher,
  // whose events perf enables at that point of the exec (perf_event_exec() in
  // begin_new_exec()), starts with them too.
  bool launcher_line(const Line& l) {
    if (l.tid == 0) return false;
    if (!launcher_tid_) launcher_tid_ = l.tid;
    if (l.tid != *launcher_tid_) return false;
    if (l.event.starts_with(kSysEnter)) {
      const std::string_view call = l.event.substr(kSysEnter.size());
      if (call == "execve" || call == "execveat") in_launcher_ = false;
    }
    return true;
  }

  LineReader& lines_;
  ImportBuilder& b_;
  bool in_launcher_;
  std::optional<uint64_t> launcher_tid_;
};

}  // namespace

Status parse_perf_script(LineReader* lines, ImportBuilder* builder, RecorderInfo* recorder,
                         bool launcher_prologue) {
  recorder->tool = "perf";
  PerfScriptParser parser(lines, builder, launcher_prologue);
  // "# event : name = filemap:mm_filemap_delete_from_page_cache, , id = { ... }, ..."
  const std::string page_cache_deletes = fmt::format("name = {},", kPageCacheDelete);
  std::string_view text;
  while (lines->next(&text)) {
    builder->count_line();
    if (text.empty()) continue;
    if (text.front() == '#') {
      read_header_line(text, recorder);
      if (text.find(page_cache_deletes) != std::string_view::npos) {
        builder->page_cache_deletes_traced();
      }
      continue;
    }
    Status s = parser.line(text);
    if (!s) return s;
  }
  return lines->status();
}

}  // namespace mmreplay::formats

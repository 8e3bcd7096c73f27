#include "tools/calibrate/madv_bomb_runs.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include "formats/trace_reader.h"
#include "replay/chunk_cache.h"
#include "tools/calibrate/probes.h"
#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/sample_stats.h"
#include "tools/calibrate/user_pages.h"
#include "tools/gen/generate.h"

namespace mmreplay::tools::calibrate {
namespace {

// The bomb's trace is a few dozen events: one chunk per process.
constexpr size_t kBombCacheChunks = 16;

// /proc/vmstat's swap and lazy-free counters.
std::map<std::string, uint64_t> read_vmstat() {
  std::ifstream in("/proc/vmstat");
  std::map<std::string, uint64_t> out;
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == "pswpin" || name == "pswpout" || name == "pglazyfreed") out[name] = value;
  }
  return out;
}

// One process of the bomb (tools/gen/madv_bomb.cpp emits the same with --write byte).
int bomb_process(const MadvBombShape& shape, int advice) {
  const size_t pages = shape.region_bytes / kUserPage;
  char* p = map_anon_pages(pages);
  if (p == nullptr) return 1;
  for (uint32_t l = 0; l < shape.loops; ++l) {
    write_pages(p, pages);
    if (::madvise(p, pages * kUserPage, advice) != 0) return 1;
  }
  ::munmap(p, pages * kUserPage);
  return 0;
}

// The leader: into the memory cgroup, then the processes, each in its own mm.
[[noreturn]] void bomb_leader(const MadvBombShape& shape, const MemcgSandbox& memcg, int advice) {
  if (!memcg.join(::getpid()).empty()) ::_exit(3);
  for (uint32_t i = 0; i < shape.processes; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) ::_exit(4);
    if (pid == 0) ::_exit(bomb_process(shape, advice));
  }
  bool failed = false;
  for (int status = 0; ::wait(&status) > 0;) {
    failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ::_exit(failed ? 5 : 0);
}

double seconds_of(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

}  // namespace

uint64_t bomb_page_writes(const MadvBombShape& shape) {
  return uint64_t{shape.processes} * (shape.region_bytes / kUserPage) * shape.loops;
}

const char* advice_name(bool free) {
  return free ? "free" : "dontneed";
}

Status run_native_bomb(const MadvBombShape& shape, const MemcgSandbox& memcg, bool free,
                       BombFigures* out) {
  const int advice = free ? MADV_FREE : MADV_DONTNEED;
  const auto before = read_vmstat();
  const std::optional<uint64_t> ipis_before = read_tlb_shootdowns();
  const auto start = std::chrono::steady_clock::now();
  const pid_t leader = ::fork();
  if (leader < 0) return Status::io_error("fork failed");
  if (leader == 0) bomb_leader(shape, memcg, advice);
  int status = 0;
  rusage ru{};
  if (::wait4(leader, &status, 0, &ru) < 0) return Status::io_error("wait4 failed");
  const auto end = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::io_error(
        fmt::format("the {} bomb failed (status {:#x})", advice_name(free), status));
  }
  const auto after = read_vmstat();
  const std::optional<uint64_t> ipis_after = read_tlb_shootdowns();
  const auto delta = [&](const char* name) {
    const auto a = after.find(name), b = before.find(name);
    return a == after.end() || b == before.end() ? uint64_t{0} : a->second - b->second;
  };
  *out = BombFigures();
  out->seconds = std::chrono::duration<double>(end - start).count();
  out->cpu_seconds = seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime);
  out->faults = static_cast<uint64_t>(ru.ru_minflt + ru.ru_majflt);
  out->swapouts = delta("pswpout");
  out->swapins = delta("pswpin");
  out->lazyfreed = delta("pglazyfreed");
  const uint64_t writes = bomb_page_writes(shape);
  out->reused = writes > out->faults ? writes - out->faults : 0;
  if (ipis_before && ipis_after && *ipis_after >= *ipis_before) {
    out->tlb_ipis = *ipis_after - *ipis_before;
    out->tlb_ipis_known = true;
  }
  return Status::ok();
}

Status write_bomb_trace(const MadvBombShape& shape, bool free, const std::string& path) {
  const std::vector<std::string> params = {"--processes", std::to_string(shape.processes),
                                           "--size",      std::to_string(shape.region_bytes),
                                           "--loops",     std::to_string(shape.loops),
                                           "--advice",    advice_name(free),
                                           "--write",     "byte"};
  gen::PreparedWorkload prepared;
  if (Status s = gen::prepare_workload("madv-bomb", params, path, &prepared); !s) return s;
  gen::GenStats stats;
  return gen::generate_to_file(prepared, path, formats::WriterOptions(), &stats);
}

bool set_bomb_machine(const MadvBombShape& shape, uint64_t swap_bytes, replay::RunSpec* spec) {
  spec->cpus = static_cast<uint32_t>(allowed_cpus());
  spec->swap_bytes = swap_bytes;
  spec->memory_bytes = 4 * shape.memcg_limit_bytes;
  spec->memcg_limit_bytes = shape.memcg_limit_bytes;
  if (spec->config.memcg != kernelsim::MemcgCounterKind::kOff) return false;
  spec->config.memcg = kernelsim::MemcgCounterKind::kPageCounter;
  return true;
}

Status run_model_bomb(const replay::RunSpec& spec, const std::string& path, BombFigures* out) {
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  if (!reader) return s;
  replay::RunResult r;
  replay::ChunkCache cache(kBombCacheChunks);
  if (s = replay::execute_run(spec, *reader, cache, &r); !s) return s;
  const auto counter = [&r](const char* name) {
    const auto it = r.counters.find(name);
    return it == r.counters.end() ? uint64_t{0} : it->second;
  };
  *out = BombFigures();
  out->seconds = static_cast<double>(r.makespan_ns) / kNsPerSecond;
  // What getrusage() of the bomb's processes holds: kernel threads' time (kswapd) is not theirs.
  const auto times = r.process_times();
  out->cpu_seconds = times ? static_cast<double>(times->busy_ns) / kNsPerSecond : 0.0;
  out->faults = counter("faults");
  out->swapouts = counter("swapouts");
  out->swapins = counter("swapins");
  out->lazyfreed = counter("pglazyfreed");
  out->reused = counter("lazyfree_reused");
  out->scanned = counter("pgscan_direct") + counter("pgscan_kswapd");
  out->tlb_ipis = counter("tlb_ipis_received");
  out->tlb_ipis_known = true;
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate

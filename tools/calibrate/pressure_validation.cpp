#include "tools/calibrate/pressure_validation.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formats/trace_reader.h"
#include "replay/chunk_cache.h"
#include "replay/cost_profile_json.h"
#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tools/calibrate/pressure_sandbox.h"
#include "tools/calibrate/user_pages.h"
#include "tools/gen/generate.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kCacheChunks = 64;
constexpr double kNsPerSecond = 1e9;

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

// One process of the bomb: its region written a page at a time and advised away, `loops` times
// (tools/gen/madv_bomb.cpp emits the same with --write byte).
int bomb_process(const PressureValidationOptions& o, int advice) {
  const size_t pages = o.region_bytes / kUserPage;
  char* p = map_anon_pages(pages);
  if (p == nullptr) return 1;
  for (uint32_t l = 0; l < o.loops; ++l) {
    write_pages(p, pages);
    if (::madvise(p, pages * kUserPage, advice) != 0) return 1;
  }
  ::munmap(p, pages * kUserPage);
  return 0;
}

// The leader: into the memory cgroup, then the processes, each in its own mm.
[[noreturn]] void bomb_leader(const PressureValidationOptions& o, const MemcgSandbox& memcg,
                              int advice) {
  if (!memcg.join(::getpid()).empty()) ::_exit(3);
  for (uint32_t i = 0; i < o.processes; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) ::_exit(4);
    if (pid == 0) ::_exit(bomb_process(o, advice));
  }
  int failed = 0;
  for (int status = 0; ::wait(&status) > 0;)
    failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ::_exit(failed ? 5 : 0);
}

double seconds_of(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// Runs the bomb natively; fills the native_* fields of `arm`.
Status run_native(const PressureValidationOptions& o, const MemcgSandbox& memcg, int advice,
                  PressureArm* arm) {
  const auto before = read_vmstat();
  const auto start = std::chrono::steady_clock::now();
  const pid_t leader = ::fork();
  if (leader < 0) return Status::io_error("fork failed");
  if (leader == 0) bomb_leader(o, memcg, advice);
  int status = 0;
  rusage ru{};
  if (::wait4(leader, &status, 0, &ru) < 0) return Status::io_error("wait4 failed");
  const auto end = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::io_error(fmt::format("the {} bomb failed (status {:#x})", arm->advice, status));
  }
  const auto after = read_vmstat();
  const auto delta = [&](const char* name) {
    const auto a = after.find(name), b = before.find(name);
    return a == after.end() || b == before.end() ? uint64_t{0} : a->second - b->second;
  };
  arm->native_seconds = std::chrono::duration<double>(end - start).count();
  arm->native_cpu_seconds = seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime);
  arm->native_faults = static_cast<uint64_t>(ru.ru_minflt + ru.ru_majflt);
  arm->native_swapouts = delta("pswpout");
  arm->native_swapins = delta("pswpin");
  arm->native_lazyfreed = delta("pglazyfreed");
  return Status::ok();
}

uint32_t usable_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return static_cast<uint32_t>(CPU_COUNT(&set));
}

// Generates the same bomb with gen and replays it; fills the model_* fields of `arm`.
Status run_model(const PressureValidationOptions& o, const replay::RunSpec& base,
                 const std::string& dir, PressureArm* arm) {
  const std::string path = dir + "/pressure-" + arm->advice + ".mmtrace";
  const std::vector<std::string> params = {"--processes", std::to_string(o.processes),
                                           "--size",      std::to_string(o.region_bytes),
                                           "--loops",     std::to_string(o.loops),
                                           "--advice",    arm->advice,
                                           "--write",     "byte"};
  gen::PreparedWorkload prepared;
  if (Status s = gen::prepare_workload("madv-bomb", params, path, &prepared); !s) return s;
  gen::GenStats stats;
  if (Status s = gen::generate_to_file(prepared, path, formats::WriterOptions(), &stats); !s) {
    return s;
  }
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  if (!reader) return s;
  replay::RunResult r;
  replay::ChunkCache cache(kCacheChunks);
  s = replay::execute_run(base, *reader, cache, &r);
  reader.reset();
  std::filesystem::remove(path);
  if (!s) return s;
  const auto counter = [&r](const char* name) {
    const auto it = r.counters.find(name);
    return it == r.counters.end() ? uint64_t{0} : it->second;
  };
  arm->model_seconds = static_cast<double>(r.makespan_ns) / kNsPerSecond;
  arm->model_cpu_seconds = static_cast<double>(counter("busy_ns")) / kNsPerSecond;
  arm->model_faults = counter("faults");
  arm->model_swapouts = counter("swapouts");
  arm->model_swapins = counter("swapins");
  arm->model_lazyfreed = counter("pglazyfreed");
  return Status::ok();
}

std::string ratio(double model, double native) {
  return native == 0 ? "-" : fmt::format("{:.2f}", model / native);
}

void print(const PressureValidationResult& result, std::ostream& out) {
  out << fmt::format("{:<9} {:<16} {:>12} {:>12} {:>8}\n", "advice", "metric", "native", "model",
                     "model/native");
  for (const PressureArm& a : result.arms) {
    const auto row = [&](const char* metric, double n, double m, const char* f) {
      out << fmt::format("{:<9} {:<16} {:>12} {:>12} {:>8}\n", a.advice, metric,
                         fmt::format(fmt::runtime(f), n), fmt::format(fmt::runtime(f), m),
                         ratio(m, n));
    };
    row("elapsed (s)", a.native_seconds, a.model_seconds, "{:.3f}");
    row("CPU (s)", a.native_cpu_seconds, a.model_cpu_seconds, "{:.3f}");
    row("faults", static_cast<double>(a.native_faults), static_cast<double>(a.model_faults),
        "{:.0f}");
    row("swap-outs", static_cast<double>(a.native_swapouts), static_cast<double>(a.model_swapouts),
        "{:.0f}");
    row("swap-ins", static_cast<double>(a.native_swapins), static_cast<double>(a.model_swapins),
        "{:.0f}");
    row("lazily freed", static_cast<double>(a.native_lazyfreed),
        static_cast<double>(a.model_lazyfreed), "{:.0f}");
  }
  if (result.arms.size() == 2) {
    const PressureArm& d = result.arms[0];
    const PressureArm& f = result.arms[1];
    out << fmt::format("free / dontneed: elapsed native {} model {}; CPU native {} model {}\n",
                       ratio(f.native_seconds, d.native_seconds),
                       ratio(f.model_seconds, d.model_seconds),
                       ratio(f.native_cpu_seconds, d.native_cpu_seconds),
                       ratio(f.model_cpu_seconds, d.model_cpu_seconds));
  }
}

Status write_json(const PressureValidationOptions& o, const PressureValidationResult& result) {
  nlohmann::json arms = nlohmann::json::array();
  for (const PressureArm& a : result.arms) {
    arms.push_back({{"advice", a.advice},
                    {"native",
                     {{"seconds", a.native_seconds},
                      {"cpu_seconds", a.native_cpu_seconds},
                      {"faults", a.native_faults},
                      {"swapouts", a.native_swapouts},
                      {"swapins", a.native_swapins},
                      {"lazyfreed", a.native_lazyfreed}}},
                    {"model",
                     {{"seconds", a.model_seconds},
                      {"cpu_seconds", a.model_cpu_seconds},
                      {"faults", a.model_faults},
                      {"swapouts", a.model_swapouts},
                      {"swapins", a.model_swapins},
                      {"lazyfreed", a.model_lazyfreed}}}});
  }
  const nlohmann::json doc = {{"skipped", result.skipped},
                              {"skip_reason", result.skip_reason},
                              {"processes", o.processes},
                              {"region_bytes", o.region_bytes},
                              {"loops", o.loops},
                              {"memcg_limit_bytes", o.memcg_limit_bytes},
                              {"profile", o.profile},
                              {"policy", o.policy},
                              {"arms", arms}};
  std::ofstream out(o.json_path);
  out << doc.dump(1) << "\n";
  out.flush();
  if (!out) return Status::io_error(o.json_path + ": cannot write");
  return Status::ok();
}

}  // namespace

Status run_pressure_validation(const PressureValidationOptions& o, std::ostream& out,
                               PressureValidationResult* result) {
  *result = PressureValidationResult();
  kernelsim::CostProfile costs;
  if (Status s = replay::resolve_cost_profile(o.profile, &costs); !s) return s;
  replay::RunSpec spec;
  spec.policy_name = o.policy;
  spec.profile = o.profile;
  if (Status s = replay::resolve_policy(o.policy, &spec.config, &spec.rewrites); !s) return s;
  if (spec.config.memcg == kernelsim::MemcgCounterKind::kOff) {
    spec.config.memcg = kernelsim::MemcgCounterKind::kPageCounter;
  }
  std::string dir = o.work_dir;
  const bool temporary = dir.empty();
  if (temporary) {
    // Not /tmp: a tmpfs there would hold the swap file in the memory it is meant to relieve.
    char tmpl[] = "/var/tmp/trace-replay-pressure.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return Status::io_error("cannot make a folder in /var/tmp");
    dir = tmpl;
  }
  out << fmt::format(
      "validate --real --pressure: {} processes x {} MiB x {} loops (write a byte a page, "
      "madvise) under a {} MiB memcg with swap; profile {}, policy {}\n",
      o.processes, o.region_bytes >> 20, o.loops, o.memcg_limit_bytes >> 20, o.profile, o.policy);
  Status status = Status::ok();
  {
    MemcgSandbox memcg;
    SwapArea swap;
    std::string why = memcg.create(o.memcg_limit_bytes);
    if (why.empty()) why = swap.ensure(dir, o.swap_file_bytes);
    if (!why.empty()) {
      result->skipped = true;
      result->skip_reason = why;
      out << "skipped: " << why << "\n";
    } else {
      spec.cpus = usable_cpus();
      spec.swap_bytes = swap.total_bytes();
      // Room beyond the limit, as the machine has: the memcg's limit is what reclaims.
      spec.memory_bytes = 4 * o.memcg_limit_bytes;
      spec.memcg_limit_bytes = o.memcg_limit_bytes;
      for (const auto& [advice, name] :
           {std::pair{MADV_DONTNEED, "dontneed"}, std::pair{MADV_FREE, "free"}}) {
        PressureArm arm;
        arm.advice = name;
        status = run_native(o, memcg, advice, &arm);
        if (status) status = run_model(o, spec, dir, &arm);
        if (!status) break;
        result->arms.push_back(arm);
      }
      if (status) print(*result, out);
    }
  }
  if (temporary) std::filesystem::remove_all(dir);
  if (!status) return status;
  if (!o.json_path.empty()) return write_json(o, *result);
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate

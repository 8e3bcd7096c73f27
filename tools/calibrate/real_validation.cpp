#include "tools/calibrate/real_validation.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "formats/trace_reader.h"
#include "kernelsim/costs/cost_profile.h"
#include "replay/chunk_cache.h"
#include "replay/cost_profile_json.h"
#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tools/calibrate/real_programs.h"
#include "tools/calibrate/spawn.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kCacheChunks = 64;
constexpr double kPercentiles[] = {50, 90, 99};

// The first line of `path` that names an error, else its last line.
std::string message_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("trace-replay record:") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

// The results key (common/op_table.h) of what validate --real records: system calls (perf
// syscalls:sys_enter/sys_exit) and page faults (exceptions:page_fault_user); "" for the rest.
std::string_view op_key(formats::EventKind k) {
  const common::OpInfo& op = formats::op_info(k);
  return op.syscall.empty() && k != formats::EventKind::kPageFault ? std::string_view()
                                                                   : op.results_key;
}

struct Observed {
  std::map<std::string, std::vector<uint64_t>> durations;  // per op key
  std::map<std::string, uint64_t> counts;
};

Status observe(const formats::TraceReader& reader, Observed* obs) {
  for (uint32_t s = 0; s < reader.meta().threads.size(); ++s) {
    formats::StreamCursor cur(reader, s);
    while (cur.next()) {
      const std::string key(op_key(cur.event().kind));
      if (key.empty()) continue;
      ++obs->counts[key];
      if (cur.event().has_duration()) obs->durations[key].push_back(cur.event().duration_ns);
    }
    if (!cur.status()) return cur.status();
  }
  return Status::ok();
}

uint64_t nearest_rank(std::vector<uint64_t>& v, double pct) {
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(pct / 100.0 * static_cast<double>(v.size()));
  return v[std::min(v.size() - 1, rank < 1 ? size_t{0} : static_cast<size_t>(rank) - 1)];
}

std::string triple(const std::vector<uint64_t>& v) {
  return v.empty() ? "-" : fmt::format("{}/{}/{}", v[0], v[1], v[2]);
}

std::vector<uint64_t> percentiles_of(std::vector<uint64_t>& v) {
  std::vector<uint64_t> p;
  if (!v.empty()) {
    for (double pct : kPercentiles) p.push_back(nearest_rank(v, pct));
  }
  return p;
}

// The model's p50 over a measured one, or "-".
std::string p50_ratio(const std::vector<uint64_t>& model, const std::vector<uint64_t>& measured) {
  return model.empty() || measured.empty() || measured[0] == 0
             ? "-"
             : fmt::format("{:.2f}",
                           static_cast<double>(model[0]) / static_cast<double>(measured[0]));
}

void print_header(std::ostream& out) {
  out << fmt::format("{:<10} {:<9} {:>6} {:>6} {:>22} {:>22} {:>22} {:>8} {:>8}\n", "program", "op",
                     "seen", "model", "observed", "untraced", "predicted", "x traced", "x untr.");
}

void print_program(const std::string& name, Observed& obs, CallTimes& untraced,
                   const replay::RunResult& r, std::ostream& out) {
  for (const auto& [key, count] : obs.counts) {
    const std::vector<uint64_t> seen = percentiles_of(obs.durations[key]);
    std::vector<uint64_t> plain;
    if (auto it = untraced.find(key); it != untraced.end()) plain = percentiles_of(it->second);
    std::vector<uint64_t> model;
    uint64_t modelled = 0;
    if (auto it = r.ops.find(key); it != r.ops.end() && it->second.count() > 0) {
      modelled = it->second.count();
      for (double p : kPercentiles) model.push_back(it->second.percentile(p));
    }
    out << fmt::format("{:<10} {:<9} {:>6} {:>6} {:>22} {:>22} {:>22} {:>8} {:>8}\n", name, key,
                       count, modelled, triple(seen), triple(plain), triple(model),
                       p50_ratio(model, seen), p50_ratio(model, plain));
  }
}

}  // namespace

Status resolve_real_run(const std::string& profile, const std::string& policy,
                        replay::RunSpec* spec) {
  kernelsim::CostProfile costs;
  if (Status s = replay::resolve_cost_profile(profile, &costs); !s) return s;
  spec->policy_name = policy;
  spec->profile = profile;
  return replay::resolve_policy(policy, &spec->config, &spec->rewrites);
}

Status run_real_validation(const RealValidationOptions& o, std::ostream& out) {
  replay::RunSpec spec;
  if (Status s = resolve_real_run(o.profile, o.policy, &spec); !s) return s;
  const std::vector<std::string>& programs = o.programs.empty() ? real_program_names() : o.programs;
  for (const std::string& p : programs) {
    const auto& known = real_program_names();
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      return Status::invalid_argument("unknown program '" + p + "'");
    }
  }
  std::string dir = o.work_dir;
  const bool temporary = dir.empty();
  if (temporary) {
    char tmpl[] = "/tmp/trace-replay-validate.XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return Status::io_error("cannot make a temporary folder");
    dir = tmpl;
  }
  auto cleanup = [&] {
    if (temporary) std::filesystem::remove_all(dir);
  };
  out << fmt::format(
      "validate --real: profile {}, policy {}; latencies in ns (p50/p90/p99): observed by perf "
      "syscall enter/exit, untraced (the same program run without perf, each of its calls timed "
      "from user space), predicted by the model; x: predicted p50 over each\n",
      o.profile, o.policy);
  print_header(out);
  for (const std::string& name : programs) {
    const std::string trace = dir + "/" + name + ".mmtrace", log = dir + "/" + name + ".log";
    // The untraced run first, in the same minutes as the recording: a host's phase moves both.
    const std::string times_path = dir + "/" + name + ".times";
    if (spawn_and_wait(
            {o.trace_replay, "calibrate", "--run-program", name, "--call-times", times_path},
            log) != 0) {
      cleanup();
      return Status::io_error(name + ": the untraced run failed: " + message_of(log));
    }
    CallTimes untraced;
    if (Status s = read_call_times(times_path, &untraced); !s) {
      cleanup();
      return s.with_context(name);
    }
    const int rc =
        spawn_and_wait({o.trace_replay, "record", "--ground-truth", "--no-baseline", "-o", trace,
                        "--", o.trace_replay, "calibrate", "--run-program", name},
                       log);
    if (rc != 0) {
      out << "skipped: recording is unavailable here (" << message_of(log) << ")\n";
      cleanup();
      return Status::ok();
    }
    Status s;
    auto reader = formats::TraceReader::open(trace, formats::ReaderOptions{}, &s);
    Observed obs;
    if (reader && s) s = observe(*reader, &obs);
    replay::RunResult result;
    replay::ChunkCache cache(kCacheChunks);
    if (reader && s) s = replay::execute_run(spec, *reader, cache, &result);
    if (!reader || !s) {
      cleanup();
      return s.with_context(name);
    }
    print_program(name, obs, untraced, result, out);
  }
  out << "faults: counts only (perf sees no fault duration). The recordings include the "
         "program's start-up (loader mmaps, brk); the untraced times only the program's own "
         "calls.\n";
  cleanup();
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate

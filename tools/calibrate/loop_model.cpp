#include "tools/calibrate/loop_model.h"

#include <filesystem>

#include "kernelsim/fs/file.h"
#include "kernelsim/simulation.h"
#include "replay/chunk_cache.h"
#include "replay/policy_spec.h"
#include "replay/run.h"
#include "replay/running_kernel.h"
#include "tools/calibrate/model_fit.h"
#include "tools/calibrate/sample_stats.h"
#include "tools/gen/generate.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::Op;

constexpr size_t kCacheChunks = 16;
// Rounds per worker of the two runs whose difference is the steady state: enough operations in
// the difference (a thousand or more) that one round's ragged end does not show, few enough that
// a fit replays every loop dozens of times in seconds.
struct Rounds {
  uint64_t few;
  uint64_t more;
};
Rounds rounds_of(LoopKind k) {
  switch (k) {
    case LoopKind::kPageFault1:
    case LoopKind::kPageFault2:
      return {1, 3};
    case LoopKind::kTlbFlush2:
      return {2, 6};
    case LoopKind::kMmapMunmap:
      return {100, 500};
    case LoopKind::kMadvDontneed:
    case LoopKind::kMadvFree:
      return {2, 8};
    case LoopKind::kReadCached:
      return {2, 10};
    case LoopKind::kReadPage:
      return {1, 5};
    case LoopKind::kPingPong:
      return {50, 250};
  }
  return {1, 2};
}

// The gen command line of a loop made by gen; empty for the op-built ones.
std::vector<std::string> gen_args(LoopKind k, int workers, uint64_t rounds) {
  const std::string w = std::to_string(workers), r = std::to_string(rounds);
  auto bytes = [](uint64_t b) { return std::to_string(b); };
  switch (k) {
    case LoopKind::kPageFault1:
      return {"page_fault1",          "--processes", w, "--threads", "1", "--size",
              bytes(kFaultLoopBytes), "--loops",     r};
    case LoopKind::kPageFault2:
      return {"page_fault2",          "--processes", w, "--threads", "1", "--size",
              bytes(kFaultLoopBytes), "--loops",     r};
    case LoopKind::kTlbFlush2:
      return {"tlb_flush2",         "--processes", "1", "--threads", w, "--size",
              bytes(kTlbLoopBytes), "--loops",     r};
    case LoopKind::kMmapMunmap:
      return {"mmap-munmap",         "--processes", "1", "--threads", w, "--size",
              bytes(kMmapLoopBytes), "--loops",     r};
    case LoopKind::kMadvDontneed:
    case LoopKind::kMadvFree:
      return {"madv-bomb",
              "--processes",
              w,
              "--size",
              bytes(kReuseLoopBytes),
              "--loops",
              r,
              "--advice",
              k == LoopKind::kMadvFree ? "free" : "dontneed",
              "--write",
              "byte"};
    case LoopKind::kReadCached:
    case LoopKind::kReadPage:
    case LoopKind::kPingPong:
      break;
  }
  return {};
}

// The cached read in calls of `call` bytes, `rounds` passes per worker, worker i in its own process
// on CPU i with its own cached file.
void add_read_tasks(kernelsim::Simulation& sim, int workers, uint64_t rounds, uint64_t call) {
  for (int i = 0; i < workers; ++i) {
    const uint32_t file = static_cast<uint32_t>(i) + 1;
    sim.files().set(file, kernelsim::FileSpec{kernelsim::FileType::kRegular, true});
    std::vector<Op> ops;
    for (uint64_t r = 0; r < rounds; ++r) {
      for (uint64_t off = 0; off < kReadFileBytes; off += call) {
        ops.push_back(Op::file_read(file, off, call));
      }
    }
    sim.spawn_thread(file, static_cast<uint32_t>(i),
                     std::make_unique<kernelsim::VectorOpSource>(std::move(ops)));
  }
}

}  // namespace

Status LoopModel::create(const ThroughputLoop& loop, int workers, uint32_t cpus,
                         kernelsim::TlbFlushMethod tlb, const std::string& dir,
                         std::unique_ptr<LoopModel>* out) {
  std::unique_ptr<LoopModel> m(new LoopModel(loop, workers, cpus, tlb));
  const Rounds r = rounds_of(loop.kind);
  m->rounds_[0] = r.few;
  m->rounds_[1] = r.more;
  for (uint64_t rounds : m->rounds_) {
    std::vector<std::string> args = gen_args(loop.kind, workers, rounds);
    if (args.empty()) break;
    const std::string name = args.front();
    args.erase(args.begin());
    const std::string path = dir + "/" + loop.name + "-" + std::to_string(workers) + "-" +
                             std::to_string(rounds) + ".mmtrace";
    gen::PreparedWorkload prepared;
    Status s = gen::prepare_workload(name, args, path, &prepared);
    gen::GenStats stats;
    if (s) s = gen::generate_to_file(prepared, path, formats::WriterOptions(), &stats);
    if (!s) return s.with_context("loop " + loop.name);
    m->paths_.push_back(path);
    auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
    if (!reader) return s.with_context("loop " + loop.name);
    m->readers_.push_back(std::move(reader));
  }
  *out = std::move(m);
  return Status::ok();
}

LoopModel::~LoopModel() {
  readers_.clear();
  std::error_code ec;
  for (const std::string& p : paths_) std::filesystem::remove(p, ec);
}

Status LoopModel::run(size_t which, const kernelsim::CostProfile& costs, Run* out) const {
  if (!readers_.empty()) {
    replay::RunSpec spec;
    spec.policy_name = std::string(replay::kRunningKernelPreset);
    if (Status s = replay::resolve_policy(spec.policy_name, &spec.config, &spec.rewrites); !s)
      return s;
    spec.config.tlb = tlb_;
    spec.cpus = cpus_;
    spec.costs = costs;
    spec.profile = "calibrate candidate";
    // page_fault2's files stay cached between rounds on the machine; the model's first round
    // would otherwise read them from the device.
    spec.cache = replay::CacheStart::kWarm;
    replay::ChunkCache cache(kCacheChunks);
    replay::RunResult result;
    if (Status s = replay::execute_run(spec, *readers_[which], cache, &result); !s) {
      return s.with_context("loop " + loop_.name);
    }
    out->makespan_ns = static_cast<double>(result.makespan_ns);
    out->ipis = 0;
    for (const replay::CpuResult& c : result.per_cpu)
      out->ipis += static_cast<double>(c.ipis_received);
    return Status::ok();
  }
  kernelsim::MachineConfig machine;
  machine.nr_cpus = cpus_;
  std::string error;
  // The read loops and the ping-pong flush no TLB; the policy follows the others all the same.
  std::string policy;
  if (Status s = replay::substitute_running_kernel(replay::kRunningKernelPreset, &policy); !s)
    return s;
  if (tlb_ == kernelsim::TlbFlushMethod::kParavirt) policy += "+tlb=pv";
  auto sim = kernelsim::Simulation::create(machine, costs, policy, &error);
  if (!sim) return Status::invalid_argument("loop " + loop_.name + ": " + error);
  if (loop_.kind == LoopKind::kPingPong) {
    // The ping-pong as model_fit.h's wake-up scenario, 1 byte each way, on one CPU or two.
    add_pipe_ping_pong(*sim, rounds_[which], /*bytes=*/1, workers_ > 1 ? 1 : 0);
  } else {
    add_read_tasks(*sim, workers_, rounds_[which], read_call_bytes(loop_.kind));
  }
  sim->run();
  out->makespan_ns = static_cast<double>(sim->now().count_ns());
  out->ipis = 0;
  for (uint32_t c = 0; c < sim->nr_cpus(); ++c) {
    out->ipis += static_cast<double>(sim->cpu(c).counters.ipis_received);
  }
  return Status::ok();
}

Status LoopModel::predict(const kernelsim::CostProfile& costs, ModelPrediction* out) const {
  Run few, more;
  if (Status s = run(0, costs, &few); !s) return s;
  if (Status s = run(1, costs, &more); !s) return s;
  // The ping-pong's operations are its round trips, counted once for the pair.
  const double tasks = loop_.kind == LoopKind::kPingPong ? 1 : static_cast<double>(workers_);
  const double ops = tasks * static_cast<double>(rounds_[1] - rounds_[0]) *
                     static_cast<double>(loop_.ops_per_round);
  const double ns = more.makespan_ns - few.makespan_ns;
  if (ns <= 0 || ops <= 0) {
    return Status::internal("loop " + loop_.name + ": the model's time did not grow with rounds");
  }
  out->ops_per_s = ops * kNsPerSecond / ns;
  out->ipis_per_op = (more.ipis - few.ipis) / ops;
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate

#include "tools/calibrate/model_fit.h"

#include <cmath>
#include <memory>
#include <string>

#include "kernelsim/fs/file.h"
#include "kernelsim/simulation.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::CostProfile;
using kernelsim::Op;
using kernelsim::SimTime;

// Trial step for the slope: any value works (the time is linear in x); a round one.
constexpr double kTrialStep = 1000;
// Where the scenarios map (any free user address) and the id of their file.
constexpr uint64_t kScenarioBase = 0x10000000;
constexpr uint32_t kScenarioFile = 1;

// The ping-pong's pipes: a to b, b to a.
constexpr uint32_t kPipeToB = 1;
constexpr uint32_t kPipeToA = 2;

// A default machine of `cpus` CPUs under `costs`; nullptr only if the model rejected it, which
// it does not for 1 or 2 CPUs.
std::unique_ptr<kernelsim::Simulation> make_sim(const CostProfile& costs, uint32_t cpus) {
  kernelsim::MachineConfig machine;
  machine.nr_cpus = cpus;
  std::string error;
  return kernelsim::Simulation::create(machine, costs, "", &error);
}

// The summed latency of the ops of `kind` when one thread runs `ops` on a one-CPU model.
double kind_ns(const CostProfile& costs, const std::vector<Op>& ops, kernelsim::OpKind kind,
               const ModelScenario& scenario) {
  std::unique_ptr<kernelsim::Simulation> sim = make_sim(costs, 1);
  if (sim == nullptr) return 0;
  if (scenario.cached_file != 0) {
    sim->files().set(scenario.cached_file,
                     kernelsim::FileSpec{kernelsim::FileType::kRegular, true});
  }
  if (scenario.pipe_file != 0) {
    sim->files().set(scenario.pipe_file, kernelsim::FileSpec{kernelsim::FileType::kPipe, false});
  }
  if (scenario.socket_file != 0) {
    sim->files().set(scenario.socket_file,
                     kernelsim::FileSpec{kernelsim::FileType::kSocket, false});
  }
  sim->spawn_thread(/*mm_id=*/1, /*cpu=*/0, std::make_unique<kernelsim::VectorOpSource>(ops));
  sim->run();
  return static_cast<double>(sim->stats().latency(kind).sum());
}

// The makespan of `rounds` round trips of model_wakeup_round_trip_ns()'s ping-pong.
double ping_pong_makespan_ns(const CostProfile& costs, int rounds) {
  std::unique_ptr<kernelsim::Simulation> sim = make_sim(costs, 2);
  if (sim == nullptr) return 0;
  add_pipe_ping_pong(*sim, static_cast<uint64_t>(rounds), kPipeSmallBytes, /*b_cpu=*/1);
  sim->run();
  return static_cast<double>(sim->now().count_ns());
}

}  // namespace

void add_pipe_ping_pong(kernelsim::Simulation& sim, uint64_t rounds, uint64_t bytes,
                        uint32_t b_cpu) {
  for (uint32_t f : {kPipeToB, kPipeToA}) {
    sim.files().set(f, kernelsim::FileSpec{kernelsim::FileType::kPipe, false});
  }
  std::vector<Op> a, b;
  for (uint64_t k = 1; k <= rounds; ++k) {
    const uint64_t to_b = 2 * k - 1;
    const uint64_t to_a = to_b + 1;
    const uint64_t offset = (k - 1) * bytes;
    a.push_back(Op::file_write(kPipeToB, offset, bytes));
    a.push_back(Op::futex_wake(to_b));
    a.push_back(Op::futex_wait(to_a, SimTime::zero()));
    a.push_back(Op::file_read(kPipeToA, offset, bytes));
    b.push_back(Op::futex_wait(to_b, SimTime::zero()));
    b.push_back(Op::file_read(kPipeToB, offset, bytes));
    b.push_back(Op::file_write(kPipeToA, offset, bytes));
    b.push_back(Op::futex_wake(to_a));
  }
  // Threads of one process, as the probe's: no switch_mm between them.
  sim.spawn_thread(/*mm_id=*/1, /*cpu=*/0,
                   std::make_unique<kernelsim::VectorOpSource>(std::move(a)));
  sim.spawn_thread(/*mm_id=*/1, b_cpu, std::make_unique<kernelsim::VectorOpSource>(std::move(b)));
}

double model_op_ns(const CostProfile& costs, const ModelScenario& scenario) {
  std::vector<Op> with = scenario.setup;
  with.push_back(scenario.op);
  const kernelsim::OpKind kind = scenario.op.kind;
  return kind_ns(costs, with, kind, scenario) - kind_ns(costs, scenario.setup, kind, scenario);
}

ModelScenario mmap_anon_scenario() {
  using namespace kernelsim;
  // [PROT_NONE][hole][PROT_NONE], the page mapped into the hole (no merge).
  ModelScenario s;
  s.setup = {Op::mmap_anon(kScenarioBase, PAGE_SIZE, PROT_NONE),
             Op::mmap_anon(kScenarioBase + 2 * PAGE_SIZE, PAGE_SIZE, PROT_NONE)};
  s.op = Op::mmap_anon(kScenarioBase + PAGE_SIZE, PAGE_SIZE, PROT_READ);
  return s;
}

ModelScenario anon_fresh_scenario(uint64_t pages) {
  using namespace kernelsim;
  ModelScenario s;
  s.setup = {Op::mmap_anon(kScenarioBase, pages * PAGE_SIZE, PROT_READ | PROT_WRITE)};
  s.op = Op::touch(kScenarioBase, pages * PAGE_SIZE, /*write=*/true);
  return s;
}

ModelScenario munmap_empty_scenario() {
  using namespace kernelsim;
  ModelScenario s = mmap_anon_scenario();
  s.setup.push_back(s.op);
  s.op = Op::munmap(kScenarioBase + PAGE_SIZE, PAGE_SIZE);
  return s;
}

ModelScenario mremap_expand_scenario() {
  using namespace kernelsim;
  constexpr uint64_t kPages = 4;  // as probe_mremap_expand()
  ModelScenario s;
  s.setup = {Op::mmap_anon(kScenarioBase, kPages * PAGE_SIZE, PROT_READ | PROT_WRITE)};
  s.op = Op::mremap(kScenarioBase, kPages * PAGE_SIZE, (kPages + 1) * PAGE_SIZE, 0);
  return s;
}

ModelScenario mremap_move_scenario(uint64_t pages) {
  using namespace kernelsim;
  const uint64_t len = pages * PAGE_SIZE;
  ModelScenario s;
  s.setup = {Op::mmap_anon(kScenarioBase, len, PROT_READ | PROT_WRITE),
             Op::touch(kScenarioBase, len, /*write=*/true),
             Op::mmap_anon(kScenarioBase + len, PAGE_SIZE, PROT_READ)};
  s.op = Op::mremap(kScenarioBase, len, len + PAGE_SIZE, MREMAP_MAYMOVE);
  return s;
}

ModelScenario cached_read_scenario(uint64_t pages) {
  using namespace kernelsim;
  // Read once first: the model gives a page cached at the start its frame on first touch, which
  // the machine did not pay for.
  ModelScenario s;
  s.cached_file = kScenarioFile;
  s.setup = {Op::file_read(kScenarioFile, 0, pages * PAGE_SIZE)};
  s.op = Op::file_read(kScenarioFile, 0, pages * PAGE_SIZE);
  return s;
}

namespace {

// A write of `bytes` to file kScenarioFile of a stream kind (the pipe or socket field names it),
// or a read of what such a write left there.
ModelScenario stream_scenario(uint32_t ModelScenario::*kind, uint64_t bytes, bool read) {
  ModelScenario s;
  s.*kind = kScenarioFile;
  s.op = Op::file_write(kScenarioFile, 0, bytes);
  if (read) {
    s.setup = {s.op};
    s.op = Op::file_read(kScenarioFile, 0, bytes);
  }
  return s;
}

}  // namespace

ModelScenario pipe_write_scenario(uint64_t bytes) {
  return stream_scenario(&ModelScenario::pipe_file, bytes, false);
}

ModelScenario pipe_read_scenario(uint64_t bytes) {
  return stream_scenario(&ModelScenario::pipe_file, bytes, true);
}

ModelScenario socket_write_scenario(uint64_t bytes) {
  return stream_scenario(&ModelScenario::socket_file, bytes, false);
}

ModelScenario socket_read_scenario(uint64_t bytes) {
  return stream_scenario(&ModelScenario::socket_file, bytes, true);
}

double model_wakeup_round_trip_ns(const CostProfile& costs) {
  return ping_pong_makespan_ns(costs, kWakeupScenarioRounds + 1) -
         ping_pong_makespan_ns(costs, kWakeupScenarioRounds);
}

ModelMeasure measure_of(std::vector<ModelTerm> terms) {
  return [terms = std::move(terms)](const CostProfile& c) {
    double sum = 0;
    for (const ModelTerm& t : terms) sum += t.weight * model_op_ns(c, t.scenario);
    return sum;
  };
}

std::optional<double> solve_linear(const CostProfile& costs, const ProfileSetter& set,
                                   const std::vector<ModelTerm>& terms, double measured_ns) {
  return solve_linear(costs, set, measure_of(terms), measured_ns);
}

std::optional<double> solve_linear(const CostProfile& costs, const ProfileSetter& set,
                                   const ModelMeasure& measure, double measured_ns) {
  auto total = [&](double x) {
    CostProfile c = costs;
    set(c, x);
    return measure(c);
  };
  const double base = total(0);
  const double per_unit = (total(kTrialStep) - base) / kTrialStep;
  if (per_unit <= 0) return std::nullopt;
  return (measured_ns - base) / per_unit;
}

std::optional<double> solve_field(const CostProfile& costs, SimTime CostProfile::*field,
                                  const ModelMeasure& measure, double measured_ns) {
  auto set = [field](CostProfile& c, double x) { c.*field = SimTime::ns(std::llround(x)); };
  return solve_linear(costs, set, measure, measured_ns);
}

std::optional<double> solve_field(const CostProfile& costs, SimTime CostProfile::*field,
                                  const std::vector<ModelTerm>& terms, double measured_ns) {
  return solve_field(costs, field, measure_of(terms), measured_ns);
}

}  // namespace mmreplay::tools::calibrate

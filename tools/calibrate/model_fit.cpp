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

// The summed latency of the ops of `kind` when one thread runs `ops` on a one-CPU model.
double kind_ns(const CostProfile& costs, const std::vector<Op>& ops, kernelsim::OpKind kind,
               uint32_t cached_file) {
  kernelsim::MachineConfig machine;
  machine.nr_cpus = 1;
  std::string error;
  std::unique_ptr<kernelsim::Simulation> sim =
      kernelsim::Simulation::create(machine, costs, "", &error);
  if (sim == nullptr) return 0;  // a one-CPU default machine is always valid
  if (cached_file != 0) {
    sim->files().set(cached_file, kernelsim::FileSpec{kernelsim::FileType::kRegular, true});
  }
  sim->spawn_thread(/*mm_id=*/1, /*cpu=*/0, std::make_unique<kernelsim::VectorOpSource>(ops));
  sim->run();
  return static_cast<double>(sim->stats().latency(kind).sum());
}

}  // namespace

double model_op_ns(const CostProfile& costs, const ModelScenario& scenario) {
  std::vector<Op> with = scenario.setup;
  with.push_back(scenario.op);
  const kernelsim::OpKind kind = scenario.op.kind;
  return kind_ns(costs, with, kind, scenario.cached_file) -
         kind_ns(costs, scenario.setup, kind, scenario.cached_file);
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

std::optional<double> solve_linear(const CostProfile& costs, const ProfileSetter& set,
                                   const std::vector<ModelTerm>& terms, double measured_ns) {
  auto total = [&](double x) {
    CostProfile c = costs;
    set(c, x);
    double sum = 0;
    for (const ModelTerm& t : terms) sum += t.weight * model_op_ns(c, t.scenario);
    return sum;
  };
  const double base = total(0);
  const double per_unit = (total(kTrialStep) - base) / kTrialStep;
  if (per_unit <= 0) return std::nullopt;
  return (measured_ns - base) / per_unit;
}

std::optional<double> solve_field(const CostProfile& costs, SimTime CostProfile::*field,
                                  const std::vector<ModelTerm>& terms, double measured_ns) {
  auto set = [field](CostProfile& c, double x) { c.*field = SimTime::ns(std::llround(x)); };
  return solve_linear(costs, set, terms, measured_ns);
}

}  // namespace mmreplay::tools::calibrate

// Fitting a cost field by running the model: the field's value for which kernelsim's own path for
// a probe's operation takes as long as the machine took. A syscall path charges several fields
// (syscall_entry, get_unmapped_area, vma_alloc, the TLB flush, ...); solving through the model
// keeps the fitted field consistent with whatever else that path charges, instead of a
// hand-written sum that drifts when the path changes.
//
// The model's time for an operation is deterministic and linear in each cost field (a path charges
// a field a whole number of times), so two runs of the scenario give the line and the solution.

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/sim/op.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::kernelsim {
class Simulation;
}

namespace mmreplay::tools::calibrate {

// An operation as a probe ran it: `setup` brings one thread of a one-CPU model into the probe's
// state (mappings made and touched), then `op` is timed. `cached_file`: file id 1 is a regular
// file whose pages are in the page cache at the start (0: no file). `pipe_file`: a file id that
// is a pipe (0: none); `socket_file`: one that is a connected socket (0: none).
struct ModelScenario {
  std::vector<kernelsim::Op> setup;
  kernelsim::Op op;
  uint32_t cached_file = 0;
  uint32_t pipe_file = 0;
  uint32_t socket_file = 0;
};

// The model's time for scenario.op with profile `costs`, in ns.
double model_op_ns(const kernelsim::CostProfile& costs, const ModelScenario& scenario);

// The probes' operations (probes.h) as model scenarios.
ModelScenario mmap_anon_scenario();  // probe_mmap_munmap(): the mmap
// probe_anon_fault_fresh(): a write to each of `pages` pages of a fresh mapping, on a machine whose
// pcp list starts empty.
ModelScenario anon_fresh_scenario(uint64_t pages);
ModelScenario munmap_empty_scenario();  // probe_mmap_munmap(): the munmap
ModelScenario mremap_expand_scenario();
ModelScenario mremap_move_scenario(uint64_t pages);
ModelScenario cached_read_scenario(uint64_t pages);
ModelScenario pipe_write_scenario(uint64_t bytes);    // probe_pipe_rw(): the write
ModelScenario pipe_read_scenario(uint64_t bytes);     // probe_pipe_rw(): the read of those bytes
ModelScenario socket_write_scenario(uint64_t bytes);  // probe_socket_rw(): the write
ModelScenario socket_read_scenario(uint64_t bytes);   // probe_socket_rw(): the read

// probe_wakeup() in the model: two threads of one mm on the two CPUs of a two-CPU machine
// ping-pong kPipeSmallBytes through two pipes. Each read follows the other thread's write through
// the wake-up edge the importer gives a read that waited (futex_wait before the read, futex_wake
// after the write: formats/import/pipe_wakeups.h), so each round trip wakes a sleeping task on an
// idle CPU twice. Returns the model's time of one round trip in ns: the makespan of
// kWakeupScenarioRounds + 1 round trips minus that of kWakeupScenarioRounds (start and exit
// cancel).
inline constexpr int kWakeupScenarioRounds = 2;
double model_wakeup_round_trip_ns(const kernelsim::CostProfile& costs);

// Adds that ping-pong's two threads (one mm) to `sim`: `rounds` round trips of `bytes` each way,
// thread a on CPU 0 and thread b on `b_cpu`. Wake ids 2k - 1 (a's write read by b) and 2k (b's
// write read by a) for round trip k; files 1 (a to b) and 2 (b to a) become pipes.
void add_pipe_ping_pong(kernelsim::Simulation& sim, uint64_t rounds, uint64_t bytes,
                        uint32_t b_cpu);

// One scenario's time counted `weight` times (a slope is many - few: weights 1 and -1).
struct ModelTerm {
  ModelScenario scenario;
  double weight = 1;
};

// Something the model computes under a profile, in ns (an operation's time, a round trip).
using ModelMeasure = std::function<double(const kernelsim::CostProfile&)>;
// The weighted sum of the model's times of `terms`, as a measure.
ModelMeasure measure_of(std::vector<ModelTerm> terms);

// The x for which `measure` (or the weighted sum of the model's times of `terms`), with
// `set(profile, x)` applied to `costs`, is `measured_ns`; nullopt when x does not change it. The
// value may come out negative (the rest of the path already costs more): the caller decides.
using ProfileSetter = std::function<void(kernelsim::CostProfile&, double)>;
std::optional<double> solve_linear(const kernelsim::CostProfile& costs, const ProfileSetter& set,
                                   const ModelMeasure& measure, double measured_ns);
std::optional<double> solve_linear(const kernelsim::CostProfile& costs, const ProfileSetter& set,
                                   const std::vector<ModelTerm>& terms, double measured_ns);
// solve_linear() for one field's value in ns.
std::optional<double> solve_field(const kernelsim::CostProfile& costs,
                                  kernelsim::SimTime kernelsim::CostProfile::*field,
                                  const ModelMeasure& measure, double measured_ns);
std::optional<double> solve_field(const kernelsim::CostProfile& costs,
                                  kernelsim::SimTime kernelsim::CostProfile::*field,
                                  const std::vector<ModelTerm>& terms, double measured_ns);

}  // namespace mmreplay::tools::calibrate

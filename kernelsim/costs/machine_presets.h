// Machine presets: the seeds' machines and two current ones, each a topology (sched/topology.h),
// a memory size and the costs that depend on the hardware's distances (cache-line transfers and
// IPI delivery by distance). A cost profile (cost_profile.h) says what an era's kernel and core
// cost; a preset says what one box's interconnect costs, so `--machine NAME --profile ERA`
// combine: the preset's distance costs replace the profile's, every other cost stays.
//
// Every value carries its source in the table's comments (the seed thread, a vendor document, a
// published measurement) or "(unverified)" for an estimate of the right order; what the thread
// does not say (a CPU model) is stated as an assumption in the preset's description.

#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernelsim/arch/x86/stlb.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/sched/topology.h"

namespace mmreplay::kernelsim {

struct MachineConfig;

struct MachinePreset {
  std::string_view name;         // what --machine takes
  std::string_view description;  // the box, the CPU model assumed, where the figures come from
  CpuTopology topology;
  uint64_t memory_bytes = 0;
  // Distance costs; nullopt = the profile's value.
  std::optional<SimTime> cacheline_transfer;  // another core of the socket
  std::optional<SimTime> cacheline_transfer_smt;
  std::optional<SimTime> cacheline_transfer_remote;
  std::optional<SimTime> ipi_delivery;
  std::optional<SimTime> ipi_delivery_remote;
  // A node's memory channels moving 4 KiB at sustained bandwidth (nullopt: not modelled).
  std::optional<SimTime> dram_page_transfer;
  // Each CPU's second-level TLB for 4 KiB pages (arch/x86/stlb.h); nullopt: MachineConfig's
  // default, Ivy Bridge's 512 entries, 4-way (the seeds' era).
  std::optional<StlbGeometry> stlb;
  // MachineConfig::idle_polls: an idle CPU waits in MWAIT, and a wake-up sends it no IPI.
  bool idle_polls = false;

  uint32_t nr_cpus() const { return topology.nr_cpus(); }
};

// Every preset, in the order `trace-replay machines` lists them.
std::span<const MachinePreset> machine_presets();
// The preset called `name`; nullptr for another name.
const MachinePreset* find_machine_preset(std::string_view name);
// The names, comma-separated (for error messages and --help).
std::string machine_preset_names();

// Sets `machine`'s CPUs, memory and topology to the preset's.
void apply_machine_preset(const MachinePreset& preset, MachineConfig* machine);
// Replaces `costs`' distance costs by the preset's where it has them.
void apply_machine_costs(const MachinePreset& preset, CostProfile* costs);

}  // namespace mmreplay::kernelsim

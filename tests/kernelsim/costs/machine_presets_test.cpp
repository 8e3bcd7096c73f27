// Machine presets: the seeds' machines are there with the shape their threads give, every preset
// builds a Simulation, and a preset's distance costs replace only the profile's distance fields.

#include "kernelsim/costs/machine_presets.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

TEST(MachinePresetsTest, EveryPresetBuildsASimulation) {
  std::set<std::string_view> names;
  for (const MachinePreset& p : machine_presets()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_TRUE(check_topology(p.topology).empty()) << p.name;
    MachineConfig m;
    apply_machine_preset(p, &m);
    EXPECT_EQ(m.nr_cpus, p.nr_cpus());
    EXPECT_EQ(m.memory_bytes, p.memory_bytes);
    CostProfile c = cost_profile_xeon_2014();
    apply_machine_costs(p, &c);
    std::string error;
    EXPECT_NE(Simulation::create(m, c, "", &error), nullptr) << p.name << ": " << error;
    EXPECT_EQ(find_machine_preset(p.name), &p);
    EXPECT_NE(machine_preset_names().find(p.name), std::string::npos);
  }
  EXPECT_EQ(find_machine_preset("no-such-box"), nullptr);
}

TEST(MachinePresetsTest, SeedMachinesHaveTheirThreadsShape) {
  const MachinePreset* hansen = find_machine_preset("westmere-ex-8s");
  ASSERT_NE(hansen, nullptr);
  EXPECT_EQ(hansen->nr_cpus(), 160u);  // "8-socket, 160-thread"
  EXPECT_EQ(hansen->topology.sockets, 8u);
  const MachinePreset* hocko = find_machine_preset("xeon-2s-48");
  ASSERT_NE(hocko, nullptr);
  EXPECT_EQ(hocko->nr_cpus(), 48u);
  EXPECT_EQ(hocko->memory_bytes, uint64_t{32} << 30);  // "48CPU with 32G of RAM"
  const MachinePreset* madvisev = find_machine_preset("xeon-2s-32");
  ASSERT_NE(madvisev, nullptr);
  EXPECT_EQ(madvisev->nr_cpus(), 32u);
  EXPECT_EQ(madvisev->topology.sockets, 2u);
  const MachinePreset* minchan = find_machine_preset("kvm-12");
  ASSERT_NE(minchan, nullptr);
  EXPECT_EQ(minchan->nr_cpus(), 12u);
  EXPECT_EQ(minchan->memory_bytes, uint64_t{3} << 30);  // "my 3G machine + 12 CPU"
  const MachinePreset* zen3 = find_machine_preset("epyc-milan-1s");
  ASSERT_NE(zen3, nullptr);
  EXPECT_EQ(zen3->topology.sockets, 1u);
  ASSERT_NE(find_machine_preset("sapphire-rapids-2s"), nullptr);
}

// Bare metal idles in MWAIT and a wake-up sends no IPI; seed 000's KVM guest of 2015 halts.
TEST(MachinePresetsTest, BareMetalIdlesInMwaitAndTheGuestHalts) {
  for (const MachinePreset& p : machine_presets()) {
    MachineConfig m;
    apply_machine_preset(p, &m);
    EXPECT_EQ(m.idle_polls, p.name != "kvm-12") << p.name;
  }
  EXPECT_FALSE(MachineConfig{}.idle_polls);  // without --machine: HLT, as the PVM guest measured
}

TEST(MachinePresetsTest, PresetCostsReplaceOnlyDistanceFields) {
  const MachinePreset* p = find_machine_preset("westmere-ex-8s");
  ASSERT_NE(p, nullptr);
  const CostProfile before = cost_profile_xeon_2014();
  CostProfile c = before;
  apply_machine_costs(*p, &c);
  EXPECT_EQ(c.cacheline_transfer_remote, *p->cacheline_transfer_remote);
  EXPECT_GT(c.cacheline_transfer_remote, c.cacheline_transfer);
  // The node's memory bandwidth is the preset's too; the profiles leave it unmodelled.
  EXPECT_EQ(before.dram_page_transfer, SimTime::zero());
  EXPECT_EQ(c.dram_page_transfer, *p->dram_page_transfer);
  EXPECT_EQ(c.ipi_delivery, before.ipi_delivery);  // the preset keeps the profile's
  EXPECT_EQ(c.fault_entry, before.fault_entry);
  EXPECT_EQ(c.clear_page, before.clear_page);
}

}  // namespace
}  // namespace mmreplay::kernelsim

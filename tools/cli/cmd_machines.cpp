// trace-replay machines: the machine presets that --machine takes (kernelsim's
// costs/machine_presets.h): topology, memory, the distance costs each sets and where they come
// from.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>

#include "kernelsim/costs/machine_presets.h"
#include "tools/cli/commands.h"

namespace mmreplay::tools {
namespace {

std::string ns_or_profile(const std::optional<kernelsim::SimTime>& v) {
  return v ? std::to_string(v->count_ns()) : std::string("profile");
}

}  // namespace

void register_machines_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "machines", "List machine presets (--machine NAME on replay, compare and scale)");
  cmd->callback([exit_code] {
    std::printf(
        "machine presets (--machine NAME; --cpus and --memory override; distance costs in ns,\n"
        "\"profile\" = the --profile's value):\n");
    for (const kernelsim::MachinePreset& p : kernelsim::machine_presets()) {
      const kernelsim::CpuTopology& t = p.topology;
      const kernelsim::StlbGeometry stlb = p.stlb.value_or(kernelsim::StlbGeometry{});
      std::printf(
          "  %-19s %u CPUs = %u sockets x %u cores x %u threads, %llu GiB, STLB %u entries "
          "%u-way\n",
          std::string(p.name).c_str(), p.nr_cpus(), t.sockets, t.cores_per_socket,
          t.threads_per_core, static_cast<unsigned long long>(p.memory_bytes >> 30), stlb.entries,
          stlb.ways);
      std::printf(
          "  %-19s line transfer: smt %s, socket %s, other socket %s; ipi delivery: %s, "
          "other socket %s; idle in %s\n",
          "", ns_or_profile(p.cacheline_transfer_smt).c_str(),
          ns_or_profile(p.cacheline_transfer).c_str(),
          ns_or_profile(p.cacheline_transfer_remote).c_str(), ns_or_profile(p.ipi_delivery).c_str(),
          ns_or_profile(p.ipi_delivery_remote).c_str(),
          p.idle_polls ? "MWAIT (a wake-up sends no IPI)" : "HLT (a wake-up sends an IPI)");
      std::printf("  %-19s %s\n", "", std::string(p.description).c_str());
    }
    std::printf(
        "\nwithout --machine: one socket, no SMT; every line transfer costs the profile's "
        "cacheline_transfer; idle in HLT.\nsources: kernelsim/costs/machine_presets.cpp\n");
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools

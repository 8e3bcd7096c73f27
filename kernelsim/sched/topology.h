// CPU topology: sockets, cores and SMT siblings, and what moving a cache line or an IPI between
// two CPUs costs at their distance (arch/x86/kernel/smpboot.c builds the kernel's view:
// cpu_sibling_map for SMT siblings, cpu_core_map for a package).
//
// CpuTopology is the machine's shape as a preset or a test states it; Topology is that shape laid
// over the simulation's CPUs with the distance costs of its cost profile, built once per
// Simulation, so the hot paths (a lock handoff, an atomic on a shared counter, an IPI) look a
// cost up in a four-entry table.
//
// CPU numbering follows what Linux shows on Intel servers: logical CPUs 0..C-1 are the first
// hardware thread of each core, socket by socket (C = sockets x cores_per_socket), C..2C-1 their
// second threads, and so on. A machine with fewer CPUs than its shape uses the first ones (as
// booting with maxcpus=N does); one with more gets further sockets of the same shape.
//
// The default shape (one socket, every CPU its own core, no SMT) puts every pair of CPUs at
// kSameSocket, whose cost is the profile's cacheline_transfer and ipi_delivery: the model before
// topology existed.
//
// NUMA nodes: one per socket (each package has its own memory controller, and the firmware's SRAT
// gives each its proximity domain; no preset has sub-NUMA clustering or a memory-only node), so
// cpu_to_node() is the socket. A node has its own pglist_data: its zone with zone->lock and free
// lists, its LRU lists and lru_lock (mm/page_alloc.h, mm/lru.h). A one-socket machine has node 0
// only: the model before nodes existed.
//
// Invariants (asserted in topology.cpp):
//  (1) distance(a, b) == distance(b, a), and distance(a, a) == kSameCpu.
//  (2) SMT siblings are on one socket.

#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

enum class CpuDistance : uint8_t {
  kSameCpu,      // the line is already in this CPU's L1
  kSmtSibling,   // another hardware thread of the same core: shared L1/L2
  kSameSocket,   // another core of the same package: through the shared L3 / ring / mesh
  kOtherSocket,  // a core on another package: over QPI/UPI/Infinity Fabric
};
inline constexpr size_t kNrCpuDistances = 4;
const char* cpu_distance_name(CpuDistance d);

struct CpuTopology {
  uint32_t sockets = 1;
  uint32_t cores_per_socket = 0;  // 0 = every CPU of the machine a core of one socket
  uint32_t threads_per_core = 1;  // SMT siblings per core (1 = no SMT)

  bool is_default() const { return sockets == 1 && cores_per_socket == 0 && threads_per_core == 1; }
  // CPUs the shape describes (0 for the default shape: as many as the machine has).
  uint32_t nr_cpus() const { return sockets * cores_per_socket * threads_per_core; }
};

// "" when `shape` can describe a machine, else why not (one line).
std::string check_topology(const CpuTopology& shape);

class Topology {
 public:
  // REQUIRES: check_topology(shape) is empty; nr_cpus >= 1.
  Topology(const CpuTopology& shape, uint32_t nr_cpus, const CostProfile& costs);

  CpuDistance distance(uint32_t a, uint32_t b) const {
    if (a == b) return CpuDistance::kSameCpu;
    if (flat_) return CpuDistance::kSameSocket;  // no table loads on a one-socket, no-SMT machine
    if (socket_[a] != socket_[b]) return CpuDistance::kOtherSocket;
    return core_[a] == core_[b] ? CpuDistance::kSmtSibling : CpuDistance::kSameSocket;
  }
  // What an atomic RMW costs when the line comes from `from` to `to` (atomic_local when they
  // are one CPU).
  SimTime line_transfer(uint32_t from, uint32_t to) const {
    return transfer_[static_cast<size_t>(distance(from, to))];
  }
  // From the sender's APIC write to the handler's start on `to` (native_send_call_func_ipi()).
  SimTime ipi_delivery(uint32_t from, uint32_t to) const {
    return ipi_[static_cast<size_t>(distance(from, to))];
  }

  uint32_t socket_of(uint32_t cpu) const { return socket_[cpu]; }
  // Models cpu_to_node(): the NUMA node of `cpu` (its socket's).
  uint32_t node_of(uint32_t cpu) const { return socket_[cpu]; }
  // Models nr_node_ids: nodes 0 .. nr_nodes() - 1, one per socket.
  uint32_t nr_nodes() const { return nr_sockets_; }
  // A machine-wide core number (topology_core_id() made unique across sockets).
  uint32_t core_of(uint32_t cpu) const { return core_[cpu]; }
  uint32_t nr_sockets() const { return nr_sockets_; }

 private:
  std::vector<uint32_t> socket_;
  std::vector<uint32_t> core_;
  uint32_t nr_sockets_ = 1;
  bool flat_ = true;  // one socket and no SMT: every pair of CPUs is kSameSocket
  std::array<SimTime, kNrCpuDistances> transfer_{};
  std::array<SimTime, kNrCpuDistances> ipi_{};
};

}  // namespace mmreplay::kernelsim

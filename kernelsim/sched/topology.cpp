#include "kernelsim/sched/topology.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

const char* cpu_distance_name(CpuDistance d) {
  switch (d) {
    case CpuDistance::kSameCpu:
      return "same-cpu";
    case CpuDistance::kSmtSibling:
      return "smt-sibling";
    case CpuDistance::kSameSocket:
      return "same-socket";
    case CpuDistance::kOtherSocket:
      return "other-socket";
  }
  return "?";
}

std::string check_topology(const CpuTopology& shape) {
  if (shape.is_default()) return "";
  if (shape.sockets == 0 || shape.cores_per_socket == 0 || shape.threads_per_core == 0)
    return "topology: sockets, cores per socket and threads per core must be at least 1";
  if (uint64_t{shape.sockets} * shape.cores_per_socket * shape.threads_per_core > NR_CPUS)
    return "topology: " + std::to_string(shape.sockets) + "x" +
           std::to_string(shape.cores_per_socket) + "x" + std::to_string(shape.threads_per_core) +
           " CPUs is more than NR_CPUS (" + std::to_string(NR_CPUS) + ")";
  return "";
}

Topology::Topology(const CpuTopology& shape, uint32_t nr_cpus, const CostProfile& costs)
    : socket_(nr_cpus), core_(nr_cpus) {
  assert(check_topology(shape).empty() && nr_cpus >= 1);
  const uint32_t threads = shape.threads_per_core;
  const uint32_t cores = shape.cores_per_socket != 0 ? shape.cores_per_socket : nr_cpus;
  // Sockets enough for every CPU: a machine larger than its shape gets more of them.
  const uint32_t per_socket = cores * threads;
  nr_sockets_ = std::max(shape.sockets, (nr_cpus + per_socket - 1) / per_socket);
  const uint32_t first_threads = nr_sockets_ * cores;  // C: the first thread of every core
  for (uint32_t cpu = 0; cpu < nr_cpus; ++cpu) {
    core_[cpu] = cpu % first_threads;
    socket_[cpu] = core_[cpu] / cores;
    assert(cpu / first_threads < threads && "invariant (2)");
  }
  flat_ = nr_sockets_ == 1 && nr_cpus <= first_threads;
  transfer_[static_cast<size_t>(CpuDistance::kSameCpu)] = costs.atomic_local;
  transfer_[static_cast<size_t>(CpuDistance::kSmtSibling)] = costs.cacheline_transfer_smt;
  transfer_[static_cast<size_t>(CpuDistance::kSameSocket)] = costs.cacheline_transfer;
  transfer_[static_cast<size_t>(CpuDistance::kOtherSocket)] = costs.cacheline_transfer_remote;
  // An IPI to a sibling or the sender itself takes the socket's path (the local APIC bus);
  // across sockets it crosses the interconnect.
  ipi_.fill(costs.ipi_delivery);
  ipi_[static_cast<size_t>(CpuDistance::kOtherSocket)] = costs.ipi_delivery_remote;
}

}  // namespace mmreplay::kernelsim

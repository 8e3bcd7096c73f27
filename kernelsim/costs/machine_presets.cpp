#include "kernelsim/costs/machine_presets.h"

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

constexpr uint64_t GiB = uint64_t{1} << 30;

// Line handoffs of a two-socket, 8-core, 2-thread Sandy Bridge-EP (two Xeon E5-2690, 2.9 GHz), a
// CAS ping-pong per CPU pair (github.com/nviennot/core-to-core-latency, results/"Dual Intel(R)
// Xeon(R) CPU E5-2690 0 @ 2.90GHz.csv"): medians of the pairs 32 ns in a socket (most 25-45), 114
// ns across QPI (most 100-160), 9 ns between siblings (8.3-10.4). The two-socket Ivy Bridge-EP
// presets take them (unverified there: the same ring and QPI 1.1 one generation on, at other
// clocks and core counts; no measurement of that part was found).
constexpr SimTime kSandyBridgeEpSocket = SimTime::ns(32);
constexpr SimTime kSandyBridgeEpSmt = SimTime::ns(9);
constexpr SimTime kSandyBridgeEpRemote = SimTime::ns(114);

// Columns: name, description, {sockets, cores per socket, threads per core}, memory, then the
// distance costs (cacheline_transfer, _smt, _remote, ipi_delivery, ipi_delivery_remote) and,
// where a source gives it, a node's sustained memory bandwidth as dram_page_transfer.
// Core-to-core figures are what a CAS ping-pong between two CPUs measures (AnandTech's and
// Chips and Cheese's "core to core latency" charts), one line per handoff.
const MachinePreset kPresets[] = {
    {
        "westmere-ex-8s",
        "seed 001: Dave Hansen's 8-socket, 160-thread Westmere-EX (the 3.16/3.17-rc2 page_fault2 "
        "figures, 2014). Assumed Xeon E7-8870 (10 cores, 2 threads, 2.4 GHz, glueless 8-socket "
        "QPI: one or two hops); memory not in the thread",
        {8, 10, 2},
        256 * GiB,          // (unverified) not in the thread; 8-socket boxes of 2011-14
        SimTime::ns(60),    // (unverified) line via the socket's ring + L3 at 2.4 GHz
        SimTime::ns(15),    // (unverified) siblings share L1D and L2
        SimTime::ns(250),   // (unverified) kernel-mm.md: 100-200+ ns across; 2 QPI hops
        std::nullopt,       // the profile's (xeon-2014: xAPIC, no posted interrupts)
        SimTime::ns(1300),  // (unverified) ipi_delivery + up to two QPI hops
        // 4 KiB at ~13.5 GB/s per socket. Westmere-EX keeps the Xeon 7500 (Nehalem-EX) memory
        // system: four SMI links per socket to buffers driving DDR3-1066 channels in lockstep,
        // so 8 channels give 4 channels' bandwidth, 34.1 GB/s peak (AnandTech, "Quad Ivy
        // Bridge EX", 2014, p. 3). Sustained: AnandTech's Xeon 7500 review (Dell R810, 2010)
        // measured STREAM Triad 25-29 GB/s, Intel expecting 36 GB/s; taken as two sockets
        // (unverified: the R810 takes two or four), i.e. ~13.5 GB/s, 40% of peak, per socket.
        SimTime::ns(300),
        StlbGeometry{512, 4},  // Nehalem/Westmere: a 512-entry, 4-way STLB (Intel's manual)
        true,                  // bare metal: intel_idle's MWAIT states (Westmere's table)
    },
    {
        "xeon-2s-48",
        "seed 001: Michal Hocko's 48-CPU, 32 GB box ('I was playing with 48CPU with 32G of RAM "
        "machine'). Model not in the thread: assumed two Xeon E5-2697 v2 (Ivy Bridge-EP, 12 "
        "cores, 2 threads)",
        {2, 12, 2},
        32 * GiB,              // seed 001 thread: "48CPU with 32G of RAM"
        kSandyBridgeEpSocket,  // (unverified for a 12-core, 2.7 GHz part) see above
        kSandyBridgeEpSmt,     // (unverified) as above
        kSandyBridgeEpRemote,  // (unverified) as above
        std::nullopt,          // the profile's
        SimTime::ns(1100),     // (unverified) ipi_delivery + one QPI hop
        std::nullopt,          // memory bandwidth not modelled
        StlbGeometry{512, 4},  // Ivy Bridge: a 512-entry, 4-way STLB (Intel's manual)
        true,                  // bare metal: intel_idle's MWAIT states
    },
    {
        "xeon-2s-32",
        "seed 002: Shaohua Li's 32-CPU two-socket Xeon (madvisev, 2015). Model not in the "
        "thread: assumed two Xeon E5-2650 v2 (Ivy Bridge-EP, 8 cores, 2 threads); memory not in "
        "the thread",
        {2, 8, 2},
        64 * GiB,  // (unverified) not in the thread
        // This machine's shape measured one generation earlier (above); the assumed E5-2650 v2
        // runs at 2.6 GHz against the E5-2690's 2.9 (unverified: how much slower its ring is).
        kSandyBridgeEpSocket,  // cacheline_transfer
        kSandyBridgeEpSmt,     // cacheline_transfer_smt
        kSandyBridgeEpRemote,  // cacheline_transfer_remote
        std::nullopt,          // the profile's
        SimTime::ns(1100),     // (unverified) ipi_delivery + one QPI hop
        std::nullopt,          // memory bandwidth not modelled
        StlbGeometry{512, 4},  // Ivy Bridge: a 512-entry, 4-way STLB (Intel's manual)
        true,                  // bare metal: intel_idle's MWAIT states
    },
    {
        "kvm-12",
        "seed 000: Minchan Kim's '3G machine + 12 CPU + 8G swap' (MADV_FREE throttling, 2015), "
        "taken as a 12-vCPU guest: its vCPUs float over the host's CPUs, so the model keeps one "
        "distance between any two (one socket, no SMT: the profile's costs)",
        {1, 12, 1},
        3 * GiB,  // seed 000 thread: "my 3G machine + 12 CPU + 8G swap"
        std::nullopt,
        std::nullopt,
        std::nullopt,
        std::nullopt,
        std::nullopt,
        std::nullopt,  // memory bandwidth not modelled
        std::nullopt,  // the host's CPU is not in the thread: MachineConfig's (Ivy Bridge)
        false,         // a 2015 KVM guest idles in HLT (no MWAIT, no haltpoll driver before 5.4)
    },
    {
        "sapphire-rapids-2s",
        "a current 2-socket server: two Xeon Platinum 8480+ (Sapphire Rapids, 56 cores, 2 "
        "threads, 4 dies per socket on EMIB, UPI between sockets)",
        {2, 56, 2},
        512 * GiB,         // (unverified) a typical configuration
        SimTime::ns(70),   // (unverified) order of Chips and Cheese's 2023 SPR core-to-core chart
        SimTime::ns(10),   // (unverified) siblings share L1D and L2
        SimTime::ns(180),  // (unverified) order of the same chart across sockets
        std::nullopt,      // the profile's (default: x2APIC)
        SimTime::ns(800),  // (unverified) ipi_delivery + one UPI hop
        std::nullopt,      // memory bandwidth not modelled
        StlbGeometry{2048, 16},  // (unverified) Golden Cove: a 2,048-entry STLB for 4 KiB pages
        true,                    // bare metal: intel_idle's MWAIT states
    },
    {
        "epyc-milan-1s",
        "a 1-socket AMD EPYC 7763 (Zen 3 Milan, 64 cores in 8 CCDs of 8, 2 threads) with "
        "INVLPGB/TLBSYNC broadcast invalidation (policy tlb=broadcast). The model has no CCX "
        "level: a same-socket transfer is priced as crossing CCDs, which 7 of 8 other cores are",
        {1, 64, 2},
        256 * GiB,               // (unverified) a typical configuration
        SimTime::ns(100),        // (unverified) cross-CCD through the IO die; AnandTech's Zen 3
                                 //     2-CCD desktop parts show ~80 ns across CCDs
        SimTime::ns(15),         // AnandTech (Zen 3 review): 15-19 ns between cores of one CCX L3
        std::nullopt,            // one socket: never charged
        std::nullopt,            // the profile's
        std::nullopt,            // one socket: never charged
        std::nullopt,            // memory bandwidth not modelled
        StlbGeometry{2048, 16},  // (unverified) Zen 3: a 2,048-entry L2 DTLB
        // (unverified) acpi_idle: C1 is MWAIT (FFH) on Zen, which polls; C2 is an I/O port
        // read, which does not. The model has one state: C1's.
        true,
    },
};

}  // namespace

std::span<const MachinePreset> machine_presets() {
  return kPresets;
}

const MachinePreset* find_machine_preset(std::string_view name) {
  for (const MachinePreset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string machine_preset_names() {
  std::string names;
  for (const MachinePreset& p : kPresets) {
    if (!names.empty()) names += ", ";
    names += p.name;
  }
  return names;
}

void apply_machine_preset(const MachinePreset& preset, MachineConfig* machine) {
  machine->nr_cpus = preset.nr_cpus();
  machine->memory_bytes = preset.memory_bytes;
  machine->topology = preset.topology;
  machine->stlb = preset.stlb.value_or(StlbGeometry{});
  machine->idle_polls = preset.idle_polls;
}

void apply_machine_costs(const MachinePreset& preset, CostProfile* costs) {
  auto set = [](const std::optional<SimTime>& v, SimTime* field) {
    if (v) *field = *v;
  };
  set(preset.cacheline_transfer, &costs->cacheline_transfer);
  set(preset.cacheline_transfer_smt, &costs->cacheline_transfer_smt);
  set(preset.cacheline_transfer_remote, &costs->cacheline_transfer_remote);
  set(preset.ipi_delivery, &costs->ipi_delivery);
  set(preset.ipi_delivery_remote, &costs->ipi_delivery_remote);
  set(preset.dram_page_transfer, &costs->dram_page_transfer);
}

}  // namespace mmreplay::kernelsim

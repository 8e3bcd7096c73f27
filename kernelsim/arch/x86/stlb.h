// The second-level TLB (STLB) of one CPU: which user pages of the loaded mm it can translate
// without a page walk.
//
// A flush empties it (the whole of it for a full flush or a CR3 write, one entry per INVLPG), and
// the accesses after a flush pay a page walk each until the pages they use are back in it. That
// walk is what a shootdown costs the interrupted program beyond the handler: seed 002's per-call
// purging made each CPU take 3.0M flush IPIs in 18.9 s and madvisev 0.14M in 15.0 s, and 23 s of
// the 87 s of CPU time madvisev saved was user time. kernel-mm.md ("Hardware costs"): refilling a
// 512-entry dTLB takes ~22,000 cycles (IvyBridge), i.e. one walk per entry (the profile's
// tlb_refill_walk).
//
// The geometry is the machine's (MachineConfig::stlb): `entries` in `ways`-way sets indexed by the
// low bits of the virtual page number, least recently used replaced first, as Intel's and AMD's
// STLBs are organised (4-way 512 on Sandy/Ivy Bridge, Intel's optimization manual). 4 KiB pages
// only: the model maps no huge pages. The first-level dTLB is not modelled: an STLB hit costs
// what user_access covers.
//
// Entries are tagged with the CPU's ASID (cpu_tlbstate.ctxs[], arch/x86/mm/tlb.c). Without PCID
// (pcid=off: the seeds' 3.x-4.13 kernels) there is one, and a switch to another mm empties it.
// With PCID (4.14+: 660da7c9228f enables CR4.PCIDE, 10af6235e0d3 "x86/mm: Implement PCID based
// optimization: try to preserve old TLB entries using PCID") a CPU keeps the translations of its
// last TLB_NR_DYN_ASIDS (6)
// mms: switch_mm_irqs_off() -> choose_new_asid() finds the mm's ASID again, and flushes it only
// when the mm's tlb_gen moved on while the CPU was away; a seventh mm takes the next ASID round
// robin, emptying it.
//
// Invariants (asserted in stlb.cpp):
//  (1) a page is in at most one entry of an ASID, in the set its vpn indexes;
//  (2) an entry is valid iff its generation is the current one of an ASID: a flush or an ASID
//      change takes a new generation in O(1) (but once in 2^24 generations, when they wrap).
//
// Not modelled: Intel SMT siblings share one STLB (each hardware thread has its own here); PTI's
// flush of the whole user PCID on every INVLPG without INVPCID (4.15+); 4.14+'s upgrade of a
// partial flush to a full one when flushes of one mm overlap; under a hypervisor, the 2-D walk of
// a guest (charged as a bare-metal one).

#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

class Mm;

// An STLB's size for 4 KiB pages. entries == 0: not modelled (every access hits).
struct StlbGeometry {
  uint32_t entries = 512;  // Ivy Bridge (kernel-mm.md's measurement): 512 entries, 4-way
  uint32_t ways = 4;
  friend bool operator==(const StlbGeometry&, const StlbGeometry&) = default;
};

// "" when `g` can be built: entries a multiple of ways and entries / ways a power of two.
const char* check_stlb_geometry(const StlbGeometry& g);

class Stlb {
 public:
  // REQUIRES: check_stlb_geometry(g) == "".
  void configure(const StlbGeometry& g);

  // A user access to page `vpn` of the loaded mm: true when the STLB translates it. Otherwise the
  // page walk installs it in place of its set's least recently used or dead entry, and it returns
  // false. A vpn beyond 40 bits is not modelled (true).
  bool access(uint64_t vpn);

  // A full flush of the loaded mm (flush_tlb_func() with TLB_FLUSH_ALL, a stale tlb_gen on return
  // from lazy mode): its ASID's entries go.
  void flush_all() { ctxs_[cur_].gen = fresh_gen(); }
  // INVLPG of every page in [start_vpn, end_vpn) of the loaded mm.
  void flush_range(uint64_t start_vpn, uint64_t end_vpn) {
    // Most INVLPGs a CPU takes are of pages it never used: the filter answers without a call.
    if (ways_ == 0 || start_vpn >= end_vpn) return;
    if (end_vpn - start_vpn == 1 && (loaded_filter_ & filter_bit(start_vpn)) == 0) return;
    flush_range_slow(start_vpn, end_vpn);
  }

  // Models the ASID part of switch_mm_irqs_off() loading `next` (nullptr: init_mm) at its
  // tlb_gen `next_tlb_gen`; `prev_tlb_gen` is the tlb_gen the CPU saw of the mm it leaves
  // (cpu_tlbstate.ctxs[].tlb_gen). An mm is known by its address, as the kernel's ctx_id: the
  // simulation frees no Mm before its end.
  void load_mm(const Mm* next, uint64_t next_tlb_gen, uint64_t prev_tlb_gen, bool pcid);

  // Valid entries of the loaded mm (tests).
  uint32_t nr_valid() const;

 private:
  // An entry is one word, (generation << kVpnBits) | vpn, so a 4-way set is half a cache line:
  // 64 CPUs' STLBs are 256 KiB of host memory the fault path touches. 0 is never valid.
  static constexpr uint32_t kVpnBits = 40;  // 52-bit user addresses (x86-64: 47, LA57: 56)
  static constexpr uint64_t kVpnMask = (uint64_t{1} << kVpnBits) - 1;
  static constexpr uint64_t kMaxGen = (uint64_t{1} << (64 - kVpnBits)) - 1;
  // One ASID: the mm it holds (ctx_id), the tlb_gen it was flushed to, the generation its
  // entries carry and, while it is not loaded, the Bloom filter of the pages filled under that
  // generation.
  struct Ctx {
    const Mm* mm = nullptr;
    uint64_t tlb_gen = 0;
    uint64_t gen = 0;
    uint64_t filled = 0;
  };
  uint64_t tag(uint64_t vpn) const { return (ctxs_[cur_].gen << kVpnBits) | vpn; }
  // True when `e` belongs to no ASID's current generation (a flushed or never used entry).
  bool dead(uint64_t e) const;
  // A generation no entry carries, for the loaded ASID (cur_), whose filter it empties.
  uint64_t fresh_gen();
  // Loads `asid` for `mm` at `tlb_gen`, emptied: a CR3 write without PCID, or an ASID reused.
  void take_asid(uint32_t asid, const Mm* mm, uint64_t tlb_gen);
  void invalidate(uint64_t vpn);
  void flush_range_slow(uint64_t start_vpn, uint64_t end_vpn);
  // One bit of a 64-bit Bloom filter for `vpn`. A shootdown's INVLPG of a page this CPU never
  // used (the common case: each thread purges its own pages) tests it and leaves the set's
  // line alone.
  static uint64_t filter_bit(uint64_t vpn) {
    constexpr uint64_t kFibonacciHash = 0x9E3779B97F4A7C15;  // 2^64 / the golden ratio
    constexpr uint32_t kFilterIndexBits = 6;                 // a bit of 64
    return uint64_t{1} << ((vpn * kFibonacciHash) >> (64 - kFilterIndexBits));
  }

  // The fields a shootdown's INVLPG reads first, together: the filter of the loaded ASID
  // (ctxs_[cur_].filled keeps it while another ASID is loaded) and the geometry.
  uint64_t loaded_filter_ = 0;
  uint32_t ways_ = 0;
  uint32_t cur_ = 0;  // the loaded ASID
  uint64_t set_mask_ = 0;
  std::vector<uint64_t> entries_;  // set s is entries_[s * ways_ .. s * ways_ + ways_), MRU first
  uint32_t next_asid_ = 1;         // cpu_tlbstate.next_asid
  uint64_t last_gen_ = 0;          // the last generation handed out
  std::array<Ctx, TLB_NR_DYN_ASIDS> ctxs_{};
};

}  // namespace mmreplay::kernelsim

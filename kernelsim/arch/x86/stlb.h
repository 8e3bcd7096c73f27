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
// Entries carry no ASID: the model has the CPU hold the translations of one mm, and any switch to
// another mm empties it (switch_mm_irqs_off() writing CR3 without PCID, as the seeds' 3.x-4.x
// kernels did; with PCID, 4.14+, the kernel keeps up to TLB_NR_DYN_ASIDS mms' entries, which the
// model does not, so it charges more walks after context switches between processes).
//
// Invariants (asserted in stlb.cpp):
//  (1) a page is in at most one entry, in the set its vpn indexes;
//  (2) an entry is valid iff its generation is the current one: flush_all() is O(1) (but once
//      in 2^24 flushes, when the generation wraps).

#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mmreplay::kernelsim {

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

  // A user access to page `vpn`: true when the STLB translates it. Otherwise the page walk
  // installs it in place of its set's least recently used entry, and it returns false. A vpn
  // beyond 40 bits is not modelled (true).
  bool access(uint64_t vpn);

  // A CR3 write or a full flush (flush_tlb_func() with TLB_FLUSH_ALL): every entry goes.
  void flush_all() {
    filled_ = 0;
    if (++gen_ > kMaxGen) {  // the generation wraps: clear the entries once and start again
      std::fill(entries_.begin(), entries_.end(), 0);
      gen_ = 1;
    }
  }
  // INVLPG of every page in [start_vpn, end_vpn).
  void flush_range(uint64_t start_vpn, uint64_t end_vpn);

  // Valid entries (tests).
  uint32_t nr_valid() const;

 private:
  // An entry is one word, (generation << kVpnBits) | vpn, so a 4-way set is half a cache line:
  // 64 CPUs' STLBs are 256 KiB of host memory the fault path touches. 0 is never valid.
  static constexpr uint32_t kVpnBits = 40;  // 52-bit user addresses (x86-64: 47, LA57: 56)
  static constexpr uint64_t kVpnMask = (uint64_t{1} << kVpnBits) - 1;
  static constexpr uint64_t kMaxGen = (uint64_t{1} << (64 - kVpnBits)) - 1;
  uint64_t valid(uint64_t vpn) const { return (gen_ << kVpnBits) | vpn; }
  bool is_valid(uint64_t e) const { return (e >> kVpnBits) == gen_; }
  void invalidate(uint64_t vpn);
  // One bit of a 64-bit Bloom filter for `vpn`. A shootdown's INVLPG of a page this CPU never
  // used (the common case: each thread purges its own pages) tests it and leaves the set's
  // line alone.
  static uint64_t filter_bit(uint64_t vpn) {
    constexpr uint64_t kFibonacciHash = 0x9E3779B97F4A7C15;  // 2^64 / the golden ratio
    return uint64_t{1} << ((vpn * kFibonacciHash) >> 58);    // its top 6 bits: 0..63
  }

  uint64_t filled_ = 0;            // filter_bit() of every vpn filled since the last flush_all()
  std::vector<uint64_t> entries_;  // set s is entries_[s * ways_ .. s * ways_ + ways_), MRU first
  uint64_t set_mask_ = 0;
  uint32_t ways_ = 0;
  uint64_t gen_ = 1;
};

}  // namespace mmreplay::kernelsim

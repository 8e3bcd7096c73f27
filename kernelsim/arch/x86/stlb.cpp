#include "kernelsim/arch/x86/stlb.h"

#include <algorithm>
#include <cassert>

namespace mmreplay::kernelsim {

const char* check_stlb_geometry(const StlbGeometry& g) {
  if (g.entries == 0) return "";
  if (g.ways == 0 || g.entries % g.ways != 0) return "stlb entries must be a multiple of its ways";
  const uint32_t sets = g.entries / g.ways;
  if ((sets & (sets - 1)) != 0) return "stlb entries / ways must be a power of two";
  return "";
}

void Stlb::configure(const StlbGeometry& g) {
  assert(*check_stlb_geometry(g) == '\0');
  entries_.assign(g.entries, 0);
  ways_ = g.entries == 0 ? 0 : g.ways;
  set_mask_ = g.entries == 0 ? 0 : g.entries / g.ways - 1;
  ctxs_ = {};
  cur_ = 0;
  next_asid_ = 1;
  last_gen_ = 0;
  ctxs_[cur_].gen = fresh_gen();
}

uint64_t Stlb::fresh_gen() {
  if (++last_gen_ > kMaxGen) {
    // The generations wrap: every entry goes once, and each ASID in use starts again empty (one
    // never used keeps generation 0, its mark).
    std::fill(entries_.begin(), entries_.end(), 0);
    last_gen_ = 0;
    for (Ctx& c : ctxs_) {
      if (c.gen == 0) continue;
      c.gen = ++last_gen_;
      c.filled = 0;
    }
    ++last_gen_;
  }
  loaded_filter_ = 0;
  assert(std::none_of(ctxs_.begin(), ctxs_.end(),
                      [this](const Ctx& c) { return c.gen == last_gen_; }) &&
         "invariant (2): a generation handed out twice");
  return last_gen_;
}

bool Stlb::dead(uint64_t e) const {
  if (e == 0) return true;
  const uint64_t gen = e >> kVpnBits;
  if (gen == ctxs_[cur_].gen) return false;  // the common case: the loaded mm's own
  return std::none_of(ctxs_.begin(), ctxs_.end(), [gen](const Ctx& c) { return c.gen == gen; });
}

bool Stlb::access(uint64_t vpn) {
  if (ways_ == 0 || vpn > kVpnMask) return true;
  uint64_t* set = &entries_[(vpn & set_mask_) * ways_];
  const uint64_t want = tag(vpn);
  for (uint32_t i = 0; i < ways_; ++i) {
    if (set[i] == want) {
      std::rotate(set, set + i, set + i + 1);  // most recently used first
      return true;
    }
  }
  // The walk fills a dead entry, else the least recently used one (any ASID's).
  uint32_t victim = ways_ - 1;
  for (uint32_t i = 0; i < ways_; ++i) {
    if (dead(set[i])) {
      victim = i;
      break;
    }
  }
  std::move_backward(set, set + victim, set + victim + 1);
  set[0] = want;
  assert(std::count(set, set + ways_, want) == 1 && "invariant (1)");
  loaded_filter_ |= filter_bit(vpn);
  return false;
}

void Stlb::invalidate(uint64_t vpn) {
  if ((loaded_filter_ & filter_bit(vpn)) == 0) return;  // never filled since its flush
  uint64_t* set = &entries_[(vpn & set_mask_) * ways_];
  const uint64_t want = tag(vpn);
  for (uint32_t i = 0; i < ways_; ++i) {
    if (set[i] != want) continue;
    // The rest of the set moves up over the hole, keeping its order; a dead entry goes last.
    std::move(set + i + 1, set + ways_, set + i);
    set[ways_ - 1] = 0;
    return;
  }
}

void Stlb::flush_range_slow(uint64_t start_vpn, uint64_t end_vpn) {
  if (end_vpn - start_vpn <= set_mask_ + 1) {
    for (uint64_t v = start_vpn; v < end_vpn && v <= kVpnMask; ++v) invalidate(v);
    return;
  }
  // A range wider than the sets: look at every entry once instead.
  const uint64_t gen = ctxs_[cur_].gen;
  for (uint64_t s = 0; s <= set_mask_; ++s) {
    uint64_t* set = &entries_[s * ways_];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ways_; ++i) {
      const uint64_t vpn = set[i] & kVpnMask;
      const bool flushed = (set[i] >> kVpnBits) == gen && vpn >= start_vpn && vpn < end_vpn;
      if (!flushed) set[kept++] = set[i];
    }
    for (uint32_t i = kept; i < ways_; ++i) set[i] = 0;
  }
}

void Stlb::load_mm(const Mm* next, uint64_t next_tlb_gen, uint64_t prev_tlb_gen, bool pcid) {
  ctxs_[cur_].tlb_gen = prev_tlb_gen;
  ctxs_[cur_].filled = loaded_filter_;
  if (!pcid) {  // one ASID: the CR3 write drops the old mm's translations
    take_asid(cur_, next, next_tlb_gen);
    return;
  }
  // choose_new_asid(): the ASID that holds the mm, flushed if its tlb_gen fell behind.
  for (uint32_t a = 0; a < TLB_NR_DYN_ASIDS; ++a) {
    if (ctxs_[a].mm != next || ctxs_[a].gen == 0) continue;
    cur_ = a;
    loaded_filter_ = ctxs_[a].filled;
    if (ctxs_[a].tlb_gen >= next_tlb_gen) return;
    ctxs_[a].tlb_gen = next_tlb_gen;  // need_flush
    ctxs_[a].gen = fresh_gen();
    return;
  }
  // Else the next one round robin, emptied for it.
  const uint32_t a = next_asid_;
  next_asid_ = (next_asid_ + 1) % TLB_NR_DYN_ASIDS;
  take_asid(a, next, next_tlb_gen);
}

void Stlb::take_asid(uint32_t asid, const Mm* mm, uint64_t tlb_gen) {
  cur_ = asid;
  ctxs_[asid] = Ctx{mm, tlb_gen, 0, 0};
  ctxs_[asid].gen = fresh_gen();
}

uint32_t Stlb::nr_valid() const {
  const uint64_t gen = ctxs_[cur_].gen;
  return static_cast<uint32_t>(std::count_if(entries_.begin(), entries_.end(), [gen](uint64_t e) {
    return e != 0 && (e >> kVpnBits) == gen;
  }));
}

}  // namespace mmreplay::kernelsim

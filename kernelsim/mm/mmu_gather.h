// MmuGather: batching of TLB flushes and page frees across one operation (struct mmu_gather,
// mm/mmu_gather.c, include/asm-generic/tlb.h).
//
//   MmuGather tlb(mm);                        // tlb_gather_mmu()
//   ... zap: tlb.tlb_adjust_range(addr) for each cleared present pte,
//            if (tlb.tlb_remove_page()) co_await tlb_flush_mmu(t, tlb);   // batch full
//   co_await tlb_finish_mmu(t, tlb);          // one flush of the whole range, then the frees
//
// The flush covers [start, end) of the ptes actually cleared (__tlb_adjust_range() is only called
// for present ptes) and one page at each PMD whose page table was freed, so one operation makes
// at most one flush unless its page batch fills (MAX_GATHER_BATCH * MAX_GATHER_BATCH_COUNT
// pages), and none if nothing was cleared or freed. Its stride is a page when ptes were cleared,
// a PMD when only tables were (tlb_get_unmap_shift()); exit_mmap()'s gather flushes the whole mm.
//
// The gather also keeps, in order, which of its pages were on an LRU list and whose lruvec (node,
// memcg) it was: release_pages() takes that lru_lock when it frees them (mmu_gather.cpp).
//
// Invariants: (1) a queued page is freed only after a flush that covers it;
// (2) the range is reset after every flush; (3) the runs cover exactly the queued pages.

#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Mm;
class Task;

// A run of consecutive gathered pages that were on one lruvec's lists (on_lru) or on none.
struct GatheredLruRun {
  uint32_t memcg = 0;
  uint16_t nid = 0;
  bool on_lru = false;
  uint64_t pages = 0;
};

class MmuGather {
 public:
  static constexpr uint64_t kMaxPages = MAX_GATHER_BATCH * MAX_GATHER_BATCH_COUNT;

  explicit MmuGather(Mm& mm) : mm_(mm) {}

  // Models tlb_remove_tlb_entry() -> __tlb_adjust_range() for one cleared pte (cleared_ptes).
  void tlb_adjust_range(uint64_t addr) {
    start_ = std::min(start_, addr);
    end_ = std::max(end_, addr + PAGE_SIZE);
    cleared_ptes_ = true;
  }
  // Models tlb_gather_mmu_fullmm() (exit_mmap()): the whole address space goes, so a flush is
  // of the whole mm (tlb_flush(): flush_tlb_mm()), whatever range was gathered.
  void set_fullmm() { fullmm_ = true; }
  // Models __tlb_remove_page(): queue one page to free after the flush. Returns true when the
  // batch is full and the caller must co_await tlb_flush_mmu().
  bool tlb_remove_page() { return ++nr_pages_ >= kMaxPages; }
  // Says where the page the next tlb_remove_page() queues was: on node nid's lists of memcg's
  // lruvec (PageLRU) or not on an LRU list.
  void note_page_lru(bool on_lru, uint16_t nid, uint32_t memcg) {
    if (!on_lru) {
      nid = 0;
      memcg = 0;
    }
    if (!runs_.empty()) {
      GatheredLruRun& r = runs_.back();
      if (r.on_lru == on_lru && r.nid == nid && r.memcg == memcg) {
        ++r.pages;
        return;
      }
    }
    runs_.push_back(GatheredLruRun{memcg, nid, on_lru, 1});
  }
  // Models free_pte_range() -> pte_free_tlb(): a PTE page to free after the flush. The range
  // grows by one page at the table's PMD (tlb_flush_pmd_range(tlb, addr, PAGE_SIZE): the
  // paging-structure caches are flushed with it), not by the 2 MiB it mapped.
  void tlb_remove_table(uint64_t pmd_start) {
    ++nr_tables_;
    freed_tables_ = true;
    cleared_pmds_ = true;
    start_ = std::min(start_, pmd_start);
    end_ = std::max(end_, pmd_start + PAGE_SIZE);
  }

  Mm& mm() const { return mm_; }
  bool need_flush() const { return end_ > start_; }
  uint64_t start() const { return start_; }
  uint64_t end() const { return end_; }
  bool freed_tables() const { return freed_tables_; }
  bool fullmm() const { return fullmm_; }
  // tlb_get_unmap_shift(): INVLPG a page at a time when ptes were cleared, else one per PMD
  // whose table went.
  uint32_t stride_shift() const { return cleared_ptes_ || !cleared_pmds_ ? PAGE_SHIFT : PMD_SHIFT; }
  uint64_t queued_pages() const { return nr_pages_; }
  uint64_t queued_tables() const { return nr_tables_; }
  uint64_t flushes() const { return flushes_; }

  // Used by tlb_flush_mmu().
  void reset_range() {
    start_ = std::numeric_limits<uint64_t>::max();
    end_ = 0;
    freed_tables_ = false;
    cleared_ptes_ = false;
    cleared_pmds_ = false;
    ++flushes_;
  }
  void take_queued(uint64_t* pages, uint64_t* tables, std::vector<GatheredLruRun>* runs) {
    *pages = nr_pages_;
    *tables = nr_tables_;
    runs->swap(runs_);
    runs_.clear();
    nr_pages_ = 0;
    nr_tables_ = 0;
  }

 private:
  Mm& mm_;
  uint64_t start_ = std::numeric_limits<uint64_t>::max();
  uint64_t end_ = 0;
  bool freed_tables_ = false;
  bool cleared_ptes_ = false;
  bool cleared_pmds_ = false;
  bool fullmm_ = false;
  uint64_t nr_pages_ = 0;
  uint64_t nr_tables_ = 0;
  uint64_t flushes_ = 0;
  std::vector<GatheredLruRun> runs_;
};

// Models tlb_flush_mmu(): flush the gathered range (if any) then free the queued pages and tables.
Co<void> tlb_flush_mmu(Task& t, MmuGather& tlb);
// Models tlb_finish_mmu().
Co<void> tlb_finish_mmu(Task& t, MmuGather& tlb);

}  // namespace mmreplay::kernelsim

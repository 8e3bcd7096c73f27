// SwapInfo: the one swap device (struct swap_info_struct, mm/swapfile.c).
//
// Slots are counted, not placed: a swapped pte (pgtable.h state `swapped`) holds one slot until it
// is swapped in, zapped or freed by MADV_FREE (free-swapped). The device's costs are CostProfile
// fields (swap_out_page, swap_io_page, swap_in_page, swap_in_readahead_page, and the CPU time of
// a read, swap_read_submit). The swap cache is a page's bit (PageFrame::swapcache): a page read
// back by a read fault keeps its slot while swap is at most half full (do_swap_page():
// try_to_free_swap() only when vm_swap_full()), and the pages readahead read with it keep theirs
// until each is faulted, so reclaiming one again, unwritten, needs no write; a write to it frees
// the slot (reuse_swap_page()), as does freeing the page.
// Reads and writes queue on the device one after another (swap_writepage() / swap_readpage() ->
// submit_bio()), so anon memory freed by swapping out, and swap-ins, are bounded by the device's
// speed, and the two compete for it. A synchronous device (SWP_SYNCHRONOUS_IO: zram) has no queue:
// its reads and writes are the CPU's (de)compression, in the faulting or reclaiming task.
//
// An entry fork duplicated (mm/swap_count.h) is one slot held by several ptes: swap_map's count
// above 1 (swap_duplicate()); shared_refs() counts those extra holders.
//
// Invariant: (1) inuse() <= nr_pages(); inuse() == sum over mms of Mm::swapents +
// swap_cache_pages() (the frames with PageFrame::swapcache set) - shared_refs().

#pragma once

#include <cassert>
#include <cstdint>
#include <deque>

#include "kernelsim/constants.h"
#include "kernelsim/mm/swap_readahead.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// The kind of the swap device: a block device, whose reads complete by interrupt while the
// faulting task sleeps (a disk, an SSD, NVMe), or a synchronous one (SWP_SYNCHRONOUS_IO, set by
// zram since 4.15: swap_readpage() decompresses the page on the faulting CPU before it returns).
enum class SwapDevice : uint8_t { kBlock, kSynchronous };

class SwapInfo {
 public:
  explicit SwapInfo(uint64_t nr_pages, SwapDevice device = SwapDevice::kBlock)
      : pages_(nr_pages), device_(device) {}

  // si->flags & SWP_SYNCHRONOUS_IO.
  bool synchronous_io() const { return device_ == SwapDevice::kSynchronous; }

  // Models get_swap_page(): takes one slot; false when the device is full or absent.
  bool get_swap_page() {
    if (inuse_ >= pages_) return false;
    ++inuse_;
    return true;
  }
  // Models swap_free() / free_swap_and_cache() of one entry.
  void swap_free() {
    assert(inuse_ > 0 && "invariant (1): freeing a slot that is not in use");
    --inuse_;
  }
  // Models swap_duplicate(): one more pte holds an entry in use (fork's copy_nonpresent_pte()).
  void swap_duplicate() { ++shared_refs_; }
  // One of several holders of an entry lets go of it: the slot stays in use for the others.
  void swap_put_shared() {
    assert(shared_refs_ > 0 && "invariant (1): no entry is shared");
    --shared_refs_;
  }
  // The holders of entries beyond the first (swap_map counts above 1).
  uint64_t shared_refs() const { return shared_refs_; }
  // A swap-in read's slot stays in use, held by the page now (add_to_swap_cache() by the read,
  // not freed by do_swap_page()).
  void keep_in_swap_cache() { ++cached_; }
  // A page in the swap cache lets go of its slot (Lruvec::try_to_free_swap()).
  void free_swap_cache() {
    assert(cached_ > 0 && "invariant (1): no page holds a slot");
    --cached_;
    --inuse_;
  }
  // Reclaim unmapped a page of the swap cache: its slot is its pte's again (try_to_unmap() sets
  // the swap entry; a clean page is freed without a write, a dirty one is written to the slot).
  void swap_cache_slot_to_pte() {
    assert(cached_ > 0 && "invariant (1): no page holds a slot");
    --cached_;
  }
  // Slots held by pages in the swap cache.
  uint64_t swap_cache_pages() const { return cached_; }
  // swapin_readahead_hits, prev_offset and last_readahead_pages: the device's readahead state
  // before 4.14 (mm/swap_readahead.h).
  SwapRaState& readahead_state() { return ra_; }
  // Models vm_swap_full(): more than half of the slots are in use.
  bool vm_swap_full() const { return inuse_ * 2 > pages_; }
  // get_nr_swap_pages(): free slots.
  uint64_t nr_swap_pages() const { return pages_ - inuse_; }
  uint64_t nr_pages() const { return pages_; }
  uint64_t inuse() const { return inuse_; }
  // Models submit_bio() of a swap write (__swap_writepage()) or read (swap_readpage()): queues
  // `device_time` of transfer behind the I/O in flight as one request; returns when it completes.
  SimTime queue_io(SimTime now, SimTime device_time) {
    retire(now);
    requests_.push_back((requests_.empty() ? now : requests_.back()) + device_time);
    return requests_.back();
  }
  // When a submitter at `now` gets a request: at once while fewer than BLKDEV_DEFAULT_RQ are in
  // flight (the queue's depth); else it sleeps for one (get_request(); blk-mq:
  // blk_mq_get_tag()) until SBQ_WAKE_BATCH more have completed than would make room.
  SimTime request_slot_free(SimTime now) {
    retire(now);
    if (requests_.size() < BLKDEV_DEFAULT_RQ) return now;
    return requests_[requests_.size() - BLKDEV_DEFAULT_RQ + SBQ_WAKE_BATCH - 1];
  }

 private:
  // Drops the requests completed by `now`: the rest are in flight, the last ending when the
  // device has done all the I/O queued so far.
  void retire(SimTime now) {
    while (!requests_.empty() && requests_.front() <= now) requests_.pop_front();
  }

  uint64_t pages_;
  SwapDevice device_;
  uint64_t inuse_ = 0;
  uint64_t cached_ = 0;           // of inuse_, the slots pages in the swap cache hold
  uint64_t shared_refs_ = 0;      // holders of shared entries beyond the first
  std::deque<SimTime> requests_;  // when each request in flight completes, in order
  SwapRaState ra_;
};

}  // namespace mmreplay::kernelsim

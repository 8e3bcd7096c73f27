// KernelConfig: every policy knob of the model as a typed field.
//
// A knob is one field here, with the model's default as its initializer, and one row of the knob
// table (knob_table.cpp) that gives its key, allowed values, documentation and the kernel commit
// each value comes from. Parsing, `trace-replay policies`, the results' `policy_knobs` and error
// messages are all derived from that table. Model code reads the fields at its decision points
// (`sim.config().pagevec_size`); only policies that are real decision procedures over the model's
// state keep an object (madv_free.h, fault_lock.h, watermarks.h), built from these fields.
//
// The defaults describe a current (6.x) kernel as far as the model goes; kernel releases and the
// seed threads' policies are presets over them (presets.h).

#pragma once

#include <cstdint>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

// What MADV_FREE does (seed 000, "mm: throttle MADV_FREE"); madv_free.h decides per call.
enum class MadvFreeMode : uint8_t { kLazy, kAsDontneed, kThrottled, kFreeSwapped };

// How a vector madvise (seed 002's madvisev, process_madvise) executes.
enum class MadviseVectorMode : uint8_t { kPerCall, kVector, kProcessMadvise };

// Which lock MADV_DONTNEED and MADV_FREE take (mm/madvise.c: get_lock_mode()).
enum class MadviseLockMode : uint8_t { kMmapSem, kPerVma };

// Whether munmap() zaps under mmap_sem held for write or downgraded to read (mm/vma.c).
enum class MunmapLockMode : uint8_t { kWrite, kDowngrade };

// How remote TLB entries are invalidated (arch/x86/tlb.cpp): shootdown IPIs, broadcast
// invalidation (INVLPGB), or a paravirt flush_tlb_multi() hypercall.
enum class TlbFlushMethod : uint8_t { kIpi, kBroadcast, kParavirt };

// Which lock a page fault takes first (fault_lock.h decides per fault).
enum class FaultLockMode : uint8_t { kMmapSem, kPerVma, kPerVmaAll };

// How a CPU in lazy-TLB mode takes a shootdown (arch/x86/tlb.cpp).
enum class LazyTlbMode : uint8_t { kLeaveMm, kSkip };

enum class PcidMode : uint8_t { kOff, kOn };

// Which readers rwsem_mark_wake() wakes (locking/rwsem.cpp).
enum class RwsemWakeMode : uint8_t { kPhaseFair, kContiguous };

// What rwsem_mark_wake() gives a writer at the head of the wait list (locking/rwsem.cpp):
// the lock itself (before 3.10), or a wake-up after which it tries again and others may take
// the lock first (3.10+, writer lock stealing), bounded by the handoff bit after
// RWSEM_WAIT_TIMEOUT (5.3+).
enum class RwsemWriterWake : uint8_t { kGrant, kSteal, kHandoff };

// Whether a reader whose fast path failed on waiters takes a lock nobody holds past them
// (locking/rwsem.cpp): queued behind them (before 5.11), or reader optimistic lock stealing
// (5.11+).
enum class RwsemReaderSteal : uint8_t { kOff, kOn };

// Whether a reader whose fast path failed spins before it queues (locking/rwsem.cpp): no (before
// 5.3, and since 5.11), or reader optimistic spinning (5.3-5.10, cf69482d62d9): it spins on a
// running writer owner and takes a lock no writer holds, past waiting writers, until the handoff
// or until a writer that waited on readers turns it off for the lock (RWSEM_RD_NONSPINNABLE).
enum class RwsemReaderSpin : uint8_t { kOff, kOn };

// Whom a writer spins on instead of sleeping (locking/rwsem.cpp rwsem_can_spin_on_owner()): a
// running writer owner only (before 5.3); a reader-owned lock too, for rwsem_rspin_threshold(),
// after which the lock is non-spinnable (5.3+); and the head waiter that set the HANDOFF bit spins
// on a running writer owner instead of sleeping (5.4+, 91d2a812dfb9).
enum class RwsemSpin : uint8_t { kWriter, kReaders, kHandoff };

// How the zone watermarks are placed above min (watermarks.h).
enum class WatermarkFormula : uint8_t { k3x, kScaleFactor };

// The LRU list MADV_FREE moves a lazyfree page to (mm/lru.cpp).
enum class LazyfreeLru : uint8_t { kInPlace, kInactiveAnon, kInactiveFile };

// Whether MADV_FREE clears PG_dirty of the pages it hints (the discard test in mm/vmscan.cpp):
// the 2015 series kept it, so a page that came back from swap (PG_dirty) could never be
// discarded; 4.5+ clears it.
enum class LazyfreePgDirty : uint8_t { kKept, kCleared };

// How do_swap_page() maps an exclusive page a read fault brought back from swap: read-only, so
// its first write takes do_wp_page() (before 6.11), or writable and clean (6.11+).
enum class SwapinPte : uint8_t { kReadOnly, kWritable };

// How do_swap_page() reads a page from a synchronous swap device (SWP_SYNCHRONOUS_IO: zram):
// through the swap cache with readahead like any device (before 4.15), or alone into a fresh page
// that skips the swap cache when no other pte holds the entry (4.15+, 0bcac06f27d7).
enum class SyncSwapin : uint8_t { kSwapCache, kSkipSwapCache };

// How swap-in readahead sizes and places its window (mm/swap_state.c): the whole page-cluster
// around the entry (before 3.15), a window sized by the device's readahead hits around the entry
// (3.15-4.13: swapin_nr_pages(), 579f82901f6f), or one sized and placed per VMA by the faults'
// direction (4.14+: swap_vma_readahead(), ec560175c0b6).
enum class SwapReadahead : uint8_t { kClusterFixed, kCluster, kVma };

// What shrink_inactive_list() does with an isolated page whose reclaim write completed before the
// batch put it back, so that folio_rotate_reclaimable() found it off the LRU and did not move it:
// nothing, it goes back to the list's head (before 6.14); or it is tried again at once, clean,
// and freed (6.14+, 431614f1580a; multi-gen LRU since 6.2, 359a5e1416ca).
enum class WrittenBackRetry : uint8_t { kOff, kOn };

// How reclaim flushes the TLB entries of the ptes try_to_unmap() clears (mm/vmscan.cpp,
// mm/rmap.c): each page's at once (ptep_clear_flush(), before 4.3), or deferred while another CPU
// has the mm loaded (should_defer_flush(): TTU_BATCH_FLUSH) and flushed once for the batch, a
// full flush, before a dirty page is written and before the batch's pages are freed
// (try_to_unmap_flush_dirty(), try_to_unmap_flush(): 4.3+, 72b252aed506 and d950c9477d51).
enum class ReclaimTlbFlush : uint8_t { kPerPage, kBatched };

// What x86's mm_cpumask holds (arch/x86/mm/tlb.c): the CPUs that have the mm loaded, a CPU
// leaving it as it switches to another (before 6.14); or every CPU that ran it, a CPU leaving it
// only when a flush finds it running another mm, at most once a second per mm (6.14+,
// 209954cbc7d0 "x86/mm/tlb: Update mm_cpumask lazily", 6db2526c1d69). Flushes of one mm reach
// only the CPUs running it either way (should_flush_tlb()); reclaim's batched flush, which names
// no mm, reaches every busy CPU of the mask (arch_tlbbatch_flush()).
enum class MmCpumaskMode : uint8_t { kEager, kLazy };

// Where a new anon page starts on the LRU and how reclaim treats its first reference
// (mm/lru.cpp, mm/vmscan.cpp): active, and activated when referenced (before 5.9); or inactive,
// and looked at twice like a mapped file page (5.9+, b518154e59aa).
enum class AnonLruMode : uint8_t { kActiveFirst, kInactiveFirst };

// Whether user pages are charged to a memcg, and how its counter is kept (mm/memcontrol.cpp).
enum class MemcgCounterKind : uint8_t { kOff, kResCounter, kPageCounter };

// Pages per memcg uncharge on the zap path (seed 001).
enum class UnchargeBatchMode : uint8_t { kPagevec, kGather };

// How release_pages() takes the lru_lock for the LRU pages a zap frees (mm/mmu_gather.cpp, seed
// 001): per PAGEVEC_SIZE chunk that free_pages_and_swap_cache() passes it (<= 3.17-rc2), per
// mmu_gather batch dropping it every SWAP_CLUSTER_MAX pages (3.17+, aabfb57296e3), or not at
// all (the model before issue 17: the LRU removal took no lock).
enum class ReleasePagesLock : uint8_t { kOff, kPagevec, kCluster };

// How fine the lock over the LRU lists is (mm/lru.cpp).
enum class LruLockScope : uint8_t { kNode, kLruvec };

// How the per-CPU bh_lrus let go of buffer heads a contiguous allocation must migrate (seed 004).
enum class BhInvalidateMode : uint8_t { kAll, kCond, kSelected, kNone, kDrain };

// When kswapd starts (seed 003): at the low watermark, or earlier on a free-page trend.
enum class ReclaimMode : uint8_t { kReactive, kPredictive };

// Which targets of a cross-CPU call get an IPI (kernel/smp.h): every one (before 4.15), or only a
// CPU whose call_single_queue was empty when the csd was queued (4.15+, "smp: Avoid sending
// needless IPI in smp_call_function_many()": llist_add() says whether the list was empty).
enum class CsdIpiMode : uint8_t { kAlways, kIfQueueEmpty };

// How a contended spinlock hands over (locking/qspinlock.h): x86 ticket spinlocks (<= 4.1) or
// queued spinlocks (4.2+).
enum class SpinlockImpl : uint8_t { kTicket, kQueued };

// How high a CPU's pcp list may grow before free_unref_page() gives pages back to the buddy lists
// (mm/pcp_high.h): 6 x batch (before 5.14); the zone's low watermark split over
// the node's CPUs, with drains that double while frees run on (5.14-6.6, Mel Gorman's "Calculate
// pcp->high based on zone sizes and active CPUs"); or tuned between that and an eighth of the
// zone by the CPU's own allocations and frees, decayed every second (6.7+, Huang Ying's
// "mm: tune PCP high automatically", 51a755c56dc0).
enum class PcpHighMode : uint8_t { kBatch, kWatermark, kAuto };

// Where a sync wake-up puts the woken task (sched/wake_affine.h).
enum class WakeAffineMode : uint8_t { kOff, kSync, kSyncIdlePrev };

// Whether a CPU about to idle pulls a task waiting on another CPU (sched/load_balance.h): never,
// always (5.13+), or when its idle periods average sysctl_sched_migration_cost (2.6.35-5.12).
enum class IdleBalanceMode : uint8_t { kOff, kNewidle, kNewidleAvgIdle };

// The fair class's time slice (sched/time_slice.h): CFS's share of sched_latency (3.x-6.5) or
// EEVDF's base slice (6.6+).
enum class SchedSliceMode : uint8_t { kCfs, kEevdf };

// When an EEVDF wake-up preempts the running task (sched/eevdf_lag.h). 6.6-6.11: a sleeper keeps
// the lag it left with, and the running task keeps its CPU while it is eligible and inside the
// slice it was picked for (RUN_TO_PARITY); 6.12+: DELAY_DEQUEUE keeps a sleeper that left
// ineligible queued until its lag is paid back, and an eligible wakee preempts (measured on
// 6.18).
enum class EevdfWakeup : uint8_t { kParity, kEligible };

struct KernelConfig {
  MadvFreeMode madv_free = MadvFreeMode::kFreeSwapped;
  MadviseVectorMode madvise = MadviseVectorMode::kPerCall;
  MadviseLockMode madvise_lock = MadviseLockMode::kMmapSem;
  MunmapLockMode munmap_lock = MunmapLockMode::kWrite;
  TlbFlushMethod tlb = TlbFlushMethod::kIpi;
  FaultLockMode fault_lock = FaultLockMode::kMmapSem;
  LazyTlbMode lazy_tlb = LazyTlbMode::kSkip;
  CsdIpiMode csd_ipi = CsdIpiMode::kIfQueueEmpty;
  PcidMode pcid = PcidMode::kOn;  // x86 PCID: ASID-tagged TLB entries survive a switch_mm (4.14+)
  RwsemWakeMode rwsem_wake = RwsemWakeMode::kPhaseFair;
  RwsemWriterWake rwsem_writer_wake = RwsemWriterWake::kHandoff;
  RwsemReaderSteal rwsem_reader_steal = RwsemReaderSteal::kOn;
  RwsemReaderSpin rwsem_reader_spin = RwsemReaderSpin::kOff;
  RwsemSpin rwsem_spin = RwsemSpin::kHandoff;
  WatermarkFormula watermarks = WatermarkFormula::kScaleFactor;
  LazyfreeLru lazyfree_lru = LazyfreeLru::kInactiveFile;
  LazyfreePgDirty lazyfree_pgdirty = LazyfreePgDirty::kCleared;
  SwapinPte swapin_pte = SwapinPte::kWritable;
  SyncSwapin sync_swapin = SyncSwapin::kSkipSwapCache;
  SwapReadahead swap_readahead = SwapReadahead::kVma;
  AnonLruMode anon_lru = AnonLruMode::kInactiveFirst;
  WrittenBackRetry written_back_retry = WrittenBackRetry::kOn;
  ReclaimTlbFlush reclaim_tlb_flush = ReclaimTlbFlush::kBatched;
  // eager, though 6.14+ is lazy (linux-6.18 sets it): at calibrate's price of a shootdown (16.5 us
  // on the development guest: mprotect of a page with a sibling thread spinning on the other CPU)
  // the twice as many IPIs lazy sends in the real madv-bomb doubled the model's CPU time there
  // (2.6 -> 5.1 s), and the reclaim fit of calibrate --reclaim found no better costs in one step:
  // RealPrograms.MadvBombUnderMemcgPressure failed (5.60 s against 4.23 s native).
  MmCpumaskMode mm_cpumask = MmCpumaskMode::kEager;
  PcpHighMode pcp_high = PcpHighMode::kAuto;
  uint32_t pagevec_size = PAGEVEC_SIZE_FOLIO_BATCH;  // pages per per-CPU LRU batch
  uint32_t bh_lru_size = BH_LRU_SIZE;                // entries per per-CPU bh_lru
  uint32_t read_ahead_kb = VM_READAHEAD_KB;          // readahead window of a device the trace does
                                                     // not describe (0: one page per miss)
  uint32_t fault_around_bytes = FAULT_AROUND_BYTES;  // a read fault's cached neighbours mapped
                                                     // with it (0: its page alone)
  MemcgCounterKind memcg = MemcgCounterKind::kOff;
  uint32_t charge_batch = MEMCG_CHARGE_BATCH;  // pages per memcg counter charge
  UnchargeBatchMode uncharge_batch = UnchargeBatchMode::kGather;
  LruLockScope lru_lock = LruLockScope::kLruvec;
  ReleasePagesLock release_pages = ReleasePagesLock::kCluster;
  bool zap_lru_drain = true;  // lru_add_drain() before a zap
  BhInvalidateMode bh_invalidate = BhInvalidateMode::kDrain;
  ReclaimMode reclaim = ReclaimMode::kReactive;
  uint32_t predict_window = LSQ_LOOKBACK;  // samples in the predictive lookback
  WakeAffineMode wake_affine = WakeAffineMode::kSync;
  IdleBalanceMode idle_balance = IdleBalanceMode::kNewidle;
  SchedSliceMode sched = SchedSliceMode::kEevdf;
  EevdfWakeup eevdf_wakeup = EevdfWakeup::kEligible;
  SpinlockImpl spinlock = SpinlockImpl::kQueued;  // x86 qspinlock (4.2+)

  bool memcg_enabled() const { return memcg != MemcgCounterKind::kOff; }
  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

}  // namespace mmreplay::kernelsim

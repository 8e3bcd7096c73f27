#include "kernelsim/policy/knob_table.h"

#include <initializer_list>
#include <utility>

namespace mmreplay::kernelsim {
namespace {

// One allowed value of a field of type T: the typed value, its name and its doc.
template <typename T>
struct Allowed {
  T value;
  KnobValue text;
};

// A row: the field `field` of KernelConfig, with its allowed values in the order `policies` lists
// them. The field's default is its initializer in kernel_config.h.
template <typename T>
KnobInfo knob(std::string key, T KernelConfig::*field, std::string doc,
              std::initializer_list<Allowed<T>> allowed) {
  KnobInfo k;
  k.key = std::move(key);
  k.doc = std::move(doc);
  std::vector<T> typed;
  for (const Allowed<T>& a : allowed) {
    typed.push_back(a.value);
    k.values.push_back(a.text);
  }
  k.index_of = [field, typed](const KernelConfig& c) {
    size_t i = 0;
    while (i < typed.size() && !(typed[i] == c.*field)) ++i;
    return i;
  };
  k.set = [field, typed](KernelConfig& c, size_t i) { c.*field = typed[i]; };
  return k;
}

// Integer values are named by their number.
Allowed<uint32_t> n(uint32_t value, std::string doc) {
  return {value, {std::to_string(value), std::move(doc)}};
}

std::vector<KnobInfo> build_table() {
  std::vector<KnobInfo> t;
  t.push_back(knob(
      "madv_free", &KernelConfig::madv_free, "what MADV_FREE does (seed 000)",
      {{MadvFreeMode::kLazy,
        {"lazy",
         "seed 000 as measured (2015 series, before its fix): pages stay mapped and become "
         "lazyfree; swapped PTEs in the range stay, and the next touch swaps them in"}},
       {MadvFreeMode::kAsDontneed,
        {"as-dontneed",
         "MADV_FREE zaps like MADV_DONTNEED (swapless 4.5-4.11, pre-4.5 allocators)"}},
       {MadvFreeMode::kThrottled,
        {"throttled", "seed 000 RFC: DONTNEED while free pages <= 1.5 x min watermark, else lazy"}},
       {MadvFreeMode::kFreeSwapped,
        {"free-swapped",
         "lazy, and swap entries in the range are freed: seed 000's fix, part of MADV_FREE as "
         "merged (4.5+, 854e9ed09ded)"}}}));
  t.push_back(knob(
      "madvise", &KernelConfig::madvise, "how a vector madvise executes (seed 002)",
      {{MadviseVectorMode::kPerCall,
        {"per-call", "one madvise() per range: a lock acquisition and a flush each"}},
       {MadviseVectorMode::kVector,
        {"vector", "one syscall, one mmap_sem hold and one mmu_gather flush for all ranges"}},
       {MadviseVectorMode::kProcessMadvise,
        {"process-madvise",
         "6.16+ process_madvise() on self: one syscall, the lock per range as knob madvise_lock "
         "says, one mmu_gather for the DONTNEED/FREE ranges (SeongJae Park, \"mm/madvise: batch "
         "tlb flushes for MADV_DONTNEED[_LOCKED]\"; one mmap_lock per call 6.15, "
         "4000e3d0a367)"}}}));
  t.push_back(knob(
      "madvise_lock", &KernelConfig::madvise_lock, "lock taken by MADV_DONTNEED and MADV_FREE",
      {{MadviseLockMode::kMmapSem, {"mmap_sem", "mmap_sem for read (all kernels before 6.17)"}},
       {MadviseLockMode::kPerVma,
        {"per-vma",
         "6.17+: the per-VMA read lock when the range lies in one VMA of the caller's mm, else "
         "mmap_sem for read (Barry Song, \"mm: use per_vma lock for MADV_DONTNEED\", version per "
         "the mm tree; MADV_FREE too on 6.18 per perf stat mmap_lock:* on this machine)"}}}));
  t.push_back(knob(
      "munmap_lock", &KernelConfig::munmap_lock, "mmap_sem mode of munmap()'s zap",
      {{MunmapLockMode::kWrite,
        {"write", "held for write until the zap and frees are done (before 4.20)"}},
       {MunmapLockMode::kDowngrade,
        {"downgrade",
         "4.20+ (dd2283f2605e): VMAs detached under write, then mmap_write_downgrade() and the "
         "zap under read (6.12+ vms_complete_munmap_vmas())"}}}));
  t.push_back(knob("tlb", &KernelConfig::tlb, "remote TLB invalidation mechanism",
                   {{TlbFlushMethod::kIpi,
                     {"ipi", "shootdown IPIs to mm_cpumask, initiator waits for all acks"}},
                    {TlbFlushMethod::kBroadcast,
                     {"broadcast",
                      "INVLPGB + TLBSYNC: no IPIs (AMD, 6.15+, Rik van Riel, 4afeb0ed1753 "
                      "\"x86/mm: Enable broadcast TLB invalidation for multi-threaded "
                      "processes\"); Intel RAR would behave alike"}},
                    {TlbFlushMethod::kParavirt,
                     {"pv",
                      "a guest's pv_ops flush_tlb_multi(): one hypercall names the other CPUs "
                      "of mm_cpumask and the host invalidates them (Hyper-V "
                      "hyperv_flush_tlb_multi(), Xen xen_flush_tlb_multi(), a PVM guest's "
                      "PVM_HC_FLUSH_TLB_MULTI): no guest IPIs, the TLB line of /proc/interrupts "
                      "stays 0"}}}));
  t.push_back(knob(
      "fault_lock", &KernelConfig::fault_lock, "lock taken by the page-fault path",
      {{FaultLockMode::kMmapSem, {"mmap_sem", "every fault takes mmap_sem for read"}},
       {FaultLockMode::kPerVma,
        {"per-vma",
         "6.4+: per-VMA read lock for anonymous VMAs, falling back to mmap_sem when "
         "write-locked"}},
       {FaultLockMode::kPerVmaAll,
        {"per-vma-all",
         "6.7+: file-backed VMAs too (read, COW and shared faults; Matthew Wilcox, 12214eba1992 "
         "\"mm: handle read faults under the VMA lock\" and its series)"}}}));
  t.push_back(
      knob("lazy_tlb", &KernelConfig::lazy_tlb, "how lazy-TLB CPUs take shootdowns",
           {{LazyTlbMode::kLeaveMm, {"leave_mm", "3.x: lazy CPUs get the IPI and leave the mm"}},
            {LazyTlbMode::kSkip,
             {"skip",
              "4.19+: lazy CPUs skipped unless page tables are freed; tlb_gen on "
              "return (145f573b89a6)"}}}));
  t.push_back(
      knob("csd_ipi", &KernelConfig::csd_ipi, "which CPUs of a cross-CPU call get an IPI",
           {{CsdIpiMode::kAlways,
             {"always",
              "before 4.15: every target; a csd an earlier interrupt already ran still interrupts "
              "its CPU when its IPI lands"}},
            {CsdIpiMode::kIfQueueEmpty,
             {"if-empty",
              "4.15+: only a CPU whose call_single_queue was empty (llist_add() returned true; "
              "\"smp: Avoid sending needless IPI in smp_call_function_many()\")"}}}));
  t.push_back(
      knob("pcid", &KernelConfig::pcid, "whether a CPU's TLB keeps mms' translations",
           {{PcidMode::kOff,
             {"off", "3.x-4.13: every switch to another mm writes CR3 and empties the TLB"}},
            {PcidMode::kOn,
             {"on",
              "4.14+: ASID-tagged entries of the last 6 mms (TLB_NR_DYN_ASIDS) survive a "
              "switch unless the mm's tlb_gen moved on (660da7c9228f, 10af6235e0d3)"}}}));
  t.push_back(knob("rwsem_wake", &KernelConfig::rwsem_wake, "readers woken by one rwsem wake-up",
                   {{RwsemWakeMode::kPhaseFair,
                     {"phase-fair", "5.3+: up to MAX_READERS_WAKEUP readers, skipping writers"}},
                    {RwsemWakeMode::kContiguous,
                     {"contiguous", "3.x: the readers before the first waiting writer"}}}));
  t.push_back(knob(
      "rwsem_writer_wake", &KernelConfig::rwsem_writer_wake,
      "what a writer at the head of an rwsem's wait list gets on a release",
      {{RwsemWriterWake::kGrant,
        {"grant", "before 3.10: the lock, at the wake-up; nobody takes it past the woken writer"}},
       {RwsemWriterWake::kSteal,
        {"steal",
         "3.10-5.2: a wake-up; it tries again when it runs, and a writer arriving or spinning "
         "meanwhile takes the lock first (Alex Shi's writer lock-stealing); no bound"}},
       {RwsemWriterWake::kHandoff,
        {"handoff",
         "5.3+: as steal, until the head has waited RWSEM_WAIT_TIMEOUT: then the handoff bit "
         "keeps the lock for it (4f23dbc1e657)"}}}));
  t.push_back(knob(
      "rwsem_reader_steal", &KernelConfig::rwsem_reader_steal,
      "whether a reader takes an rwsem nobody holds past its waiters (a woken writer yet to run)",
      {{RwsemReaderSteal::kOff,
        {"off",
         "before 5.11: the fast path fails on WAITERS and the reader queues behind them (5.3-5.10: "
         "unless it spins first, rwsem_reader_spin)"}},
       {RwsemReaderSteal::kOn,
        {"on",
         "5.11+: rwsem_down_read_slowpath() takes a lock no writer holds and no other reader "
         "shares unless the handoff bit is set (reader optimistic lock stealing, "
         "1a728dff855a)"}}}));
  t.push_back(knob(
      "rwsem_reader_spin", &KernelConfig::rwsem_reader_spin,
      "whether a reader whose fast path failed spins before it queues",
      {{RwsemReaderSpin::kOff, {"off", "before 5.3, and since 5.11 (617f3ef95177): it queues"}},
       {RwsemReaderSpin::kOn,
        {"on",
         "5.3-5.10 (cf69482d62d9): it spins on a running writer owner and takes any lock no "
         "writer holds, past waiting writers, unless the handoff bit is set or a writer that "
         "waited on readers got the lock since (RWSEM_RD_NONSPINNABLE, 5cfd92e12e13)"}}}));
  t.push_back(knob(
      "rwsem_spin", &KernelConfig::rwsem_spin,
      "whom a writer spins on instead of sleeping in an rwsem's wait list",
      {{RwsemSpin::kWriter,
        {"writer",
         "3.16-5.2: only a writer owner that runs; a reader-owned lock sends it to the wait list "
         "(3.x: no owner to spin on; 4.9+: RWSEM_READER_OWNED), and a spin ends when the owner "
         "downgrades to a reader"}},
       {RwsemSpin::kReaders,
        {"readers",
         "5.3: also a reader-owned lock, for rwsem_rspin_threshold(); a spin that runs out marks "
         "the lock non-spinnable (RWSEM_WR_NONSPINNABLE) until a writer takes it or the last "
         "reader leaves it to waiters"}},
       {RwsemSpin::kHandoff,
        {"handoff",
         "5.4+: as readers, and the head writer that set the HANDOFF bit and still found the lock "
         "taken spins on a running writer owner instead of sleeping (91d2a812dfb9)"}}}));
  t.push_back(
      knob("watermarks", &KernelConfig::watermarks, "zone low/high watermark formula",
           {{WatermarkFormula::k3x, {"3.x", "low = min + min/4, high = min + min/2 (before 4.6)"}},
            {WatermarkFormula::kScaleFactor,
             {"scale-factor",
              "gap = max(min/4, managed * watermark_scale_factor / 10000) "
              "(4.6+, 795ae7a0de6b)"}}}));
  t.push_back(knob(
      "lazyfree_lru", &KernelConfig::lazyfree_lru, "LRU list of MADV_FREE'd pages",
      {{LazyfreeLru::kInPlace,
        {"in-place", "the 2015 RFC (seed 000): pages keep their place on the LRU, clean and old"}},
       {LazyfreeLru::kInactiveAnon,
        {"inactive-anon", "4.5-4.11: inactive anon list, still swap-backed"}},
       {LazyfreeLru::kInactiveFile,
        {"inactive-file", "4.12+: PG_swapbacked cleared, inactive file list (f7ad2a6cb9f7)"}}}));
  t.push_back(knob(
      "lazyfree_pgdirty", &KernelConfig::lazyfree_pgdirty,
      "PG_dirty of a page MADV_FREE hints (a page swapped back in has it)",
      {{LazyfreePgDirty::kKept,
        {"kept",
         "the 2015 series (seed 000): PG_dirty and the swap cache stay, so a page that came back "
         "from swap is never discarded and reclaim swaps it out again (fixed by 'mm: decouple "
         "PG_dirty from MADV_FREE', Minchan Kim, June 2015)"}},
       {LazyfreePgDirty::kCleared,
        {"cleared",
         "4.5+ (854e9ed09ded): madvise_free_pte_range() drops the swap cache and clears "
         "PG_dirty of a page it hints, so only the pte's dirty bit keeps it"}}}));
  t.push_back(knob(
      "swapin_pte", &KernelConfig::swapin_pte,
      "the pte do_swap_page() maps for a read fault on an exclusive swapped page",
      {{SwapinPte::kReadOnly,
        {"read-only",
         "before 6.11: write-protected; the first write takes do_wp_page(), whose "
         "reuse_swap_page() frees the swap slot and dirties the page"}},
       {SwapinPte::kWritable,
        {"writable",
         "6.11+ (c18160dba5ff, Barry Song): writable and clean; the first write takes no fault "
         "and the page keeps its slot, which reclaim's pageout() rewrites"}}}));
  t.push_back(
      knob("sync_swapin", &KernelConfig::sync_swapin,
           "how do_swap_page() reads from a synchronous swap device (zram: --swap-device zram)",
           {{SyncSwapin::kSwapCache,
             {"swapcache",
              "before 4.15: swapin_readahead() as for any device, each page decompressed on the "
              "faulting CPU, the pages kept in the swap cache"}},
            {SyncSwapin::kSkipSwapCache,
             {"skip-swapcache",
              "4.15+ (0bcac06f27d7, Minchan Kim): a page no other pte shares is read alone into a "
              "fresh page, with no readahead and no swap cache, and its slot is freed at once"}}}));
  t.push_back(knob(
      "swap_readahead", &KernelConfig::swap_readahead,
      "how a swap-in's readahead window is sized and placed (mm/swap_state.c)",
      {{SwapReadahead::kClusterFixed,
        {"cluster-fixed",
         "before 3.15: the whole aligned page-cluster around the entry, every time"}},
       {SwapReadahead::kCluster,
        {"cluster",
         "3.15-4.13 (579f82901f6f): the aligned window sized by the device's readahead hits "
         "since the last swap-in (swapin_nr_pages()): one page with none unless the entry "
         "follows the last"}},
       {SwapReadahead::kVma,
        {"vma",
         "4.14+ (ec560175c0b6): sized the same way per VMA, after the fault when the faults go "
         "up, before it when they go down, around it otherwise (swap_vma_readahead()); the kernel "
         "keeps cluster while a rotational swap device is on (swap_use_vma_readahead())"}}}));
  t.push_back(
      knob("anon_lru", &KernelConfig::anon_lru,
           "LRU list a new anon page starts on, and what reclaim does with its first reference",
           {{AnonLruMode::kActiveFirst,
             {"active-first",
              "before 5.9: new and swapped-in anon pages start active "
              "(lru_cache_add_active_or_unevictable()); a referenced one is activated at once "
              "(page_check_references(): PageSwapBacked -> PAGEREF_ACTIVATE)"}},
            {AnonLruMode::kInactiveFirst,
             {"inactive-first",
              "5.9+: they start inactive and a referenced one gets PG_referenced and a second "
              "trip, as a mapped file page does (b518154e59aa \"mm/vmscan: protect the workingset "
              "on anonymous LRU\")"}}}));
  t.push_back(knob(
      "written_back_retry", &KernelConfig::written_back_retry,
      "what reclaim does with an isolated page whose write completed before the batch's putback",
      {{WrittenBackRetry::kOff,
        {"off",
         "before 6.14: folio_rotate_reclaimable() missed it (not on the LRU), so it goes back to "
         "the inactive list's head and waits a whole trip before reclaim frees it"}},
       {WrittenBackRetry::kOn,
        {"on",
         "6.14+ (431614f1580a, Chen Ridong, \"mm: vmscan: retry folios written back while "
         "isolated for traditional LRU\"): shrink_inactive_list() tries it again at once and "
         "frees it, clean"}}}));
  t.push_back(knob(
      "reclaim_tlb_flush", &KernelConfig::reclaim_tlb_flush,
      "how reclaim flushes the TLB entries of the ptes it unmaps",
      {{ReclaimTlbFlush::kPerPage,
        {"per-page",
         "before 4.3: try_to_unmap_one() flushes each page as it clears its pte "
         "(ptep_clear_flush(): IPIs to the mm's other CPUs, page by page)"}},
       {ReclaimTlbFlush::kBatched,
        {"batched",
         "4.3+ (72b252aed506, Mel Gorman, \"mm: send one IPI per CPU to TLB flush all entries "
         "after unmapping pages\"): a pte whose mm another CPU has loaded is flushed later, once "
         "for the batch (a full flush), and before a page is written (d950c9477d51 \"mm: defer "
         "flush of writable TLB entries\") and before the batch's pages are freed"}}}));
  t.push_back(
      knob("mm_cpumask", &KernelConfig::mm_cpumask,
           "which CPUs x86's mm_cpumask holds, and so which CPUs reclaim's batched flush reaches",
           {{MmCpumaskMode::kEager,
             {"eager",
              "before 6.14: the CPUs that have the mm loaded; switch_mm_irqs_off() takes a CPU out "
              "of the mask of the mm it leaves"}},
            {MmCpumaskMode::kLazy,
             {"lazy",
              "6.14+ (209954cbc7d0, Rik van Riel, \"x86/mm/tlb: Update mm_cpumask lazily\"): a CPU "
              "stays in the mask after it switches away, until a flush of the mm finds it running "
              "another one, at most once a second (6db2526c1d69); arch_tlbbatch_flush() reaches "
              "every busy CPU of its mms' masks"}}}));
  t.push_back(knob(
      "pcp_high", &KernelConfig::pcp_high,
      "how many free pages a CPU's pcp list keeps before it gives some back under zone->lock",
      {{PcpHighMode::kBatch,
        {"batch",
         "before 5.14: high = 6 x batch (pageset_set_batch()); a full list gives batch pages "
         "back"}},
       {PcpHighMode::kWatermark,
        {"wmark",
         "5.14-6.6 (Mel Gorman, \"Calculate pcp->high based on zone sizes and active CPUs\"): "
         "high = the zone's low watermark / the node's CPUs, at least 4 x batch; a drain doubles "
         "while frees run on without an allocation, up to high - batch; 4 x batch while kswapd "
         "reclaims"}},
       {PcpHighMode::kAuto,
        {"auto",
         "6.7+ (51a755c56dc0, Huang Ying, \"mm: tune PCP high automatically\"): high moves "
         "between that and managed pages / 8 / the node's CPUs, up by each refill and by frees "
         "that find the list full, down while free pages are below the high watermark and by "
         "an eighth each second (decay_pcp_high()); refills double while allocations run on"}}}));
  t.push_back(knob("pagevec_size", &KernelConfig::pagevec_size,
                   "pages per per-CPU LRU batch (lru_add, lru_lazyfree)",
                   {n(PAGEVEC_SIZE_3X, "3.x PAGEVEC_SIZE"), n(PAGEVEC_SIZE, "~4.15+ PAGEVEC_SIZE"),
                    n(PAGEVEC_SIZE_FOLIO_BATCH,
                      "6.9+ folio_batch (9cecde80aae0 \"mm: increase folio batch size\")")}));
  t.push_back(knob("bh_lru_size", &KernelConfig::bh_lru_size,
                   "entries per per-CPU buffer-head LRU (BH_LRU_SIZE)",
                   {n(BH_LRU_SIZE_PRE_3_18, "BH_LRU_SIZE before 3.18"),
                    n(BH_LRU_SIZE, "3.18+ BH_LRU_SIZE (86cf78d73de8)")}));
  t.push_back(knob("memcg", &KernelConfig::memcg,
                   "memory cgroup charging of user pages and its counter",
                   {{MemcgCounterKind::kOff, {"off", "no memcg charging"}},
                    {MemcgCounterKind::kResCounter,
                     {"res_counter", "<= 3.18: spinlocked res_counter (seed 001)"}},
                    {MemcgCounterKind::kPageCounter,
                     {"page_counter", "3.19+: lockless page_counter (3e32cb2e0a12)"}}}));
  t.push_back(knob("charge_batch", &KernelConfig::charge_batch,
                   "pages per memcg counter charge kept in the per-CPU charge stock",
                   {n(CHARGE_BATCH, "3.x CHARGE_BATCH, MEMCG_CHARGE_BATCH before 6.1"),
                    n(MEMCG_CHARGE_BATCH, "6.1+ MEMCG_CHARGE_BATCH")}));
  t.push_back(
      knob("uncharge_batch", &KernelConfig::uncharge_batch,
           "pages per memcg uncharge when a zap frees its gathered pages",
           {{UnchargeBatchMode::kPagevec,
             {"pagevec", "3.17-rc: one uncharge per PAGEVEC_SIZE pages (seed 001 regression)"}},
            {UnchargeBatchMode::kGather,
             {"gather", "3.17+: one uncharge per mmu_gather batch (aabfb57296e3)"}}}));
  t.push_back(knob(
      "lru_lock", &KernelConfig::lru_lock, "granularity of the LRU lock",
      {{LruLockScope::kNode, {"node", "<= 5.10: zone->lru_lock, pgdat->lru_lock (4.8)"}},
       {LruLockScope::kLruvec, {"lruvec", "5.11+: lruvec->lru_lock per memcg (6168d0da2b47)"}}}));
  t.push_back(knob(
      "release_pages", &KernelConfig::release_pages,
      "lru_lock rounds of release_pages() when a zap frees its gathered LRU pages",
      {{ReleasePagesLock::kOff, {"off", "no lru_lock round (the model before issue 17)"}},
       {ReleasePagesLock::kPagevec,
        {"pagevec", "<= 3.17-rc2: free_pages_and_swap_cache() passes PAGEVEC_SIZE pages per call"}},
       {ReleasePagesLock::kCluster,
        {"cluster",
         "3.17+ (aabfb57296e3): the whole gather batch, lock dropped every SWAP_CLUSTER_MAX"}}}));
  t.push_back(knob("zap_lru_drain", &KernelConfig::zap_lru_drain,
                   "lru_add_drain() before zapping (MADV_DONTNEED, munmap)",
                   {{true, {"on", "lru_add_drain() in the zap paths (all versions)"}},
                    {false, {"off", "no drain before the zap (experiment)"}}}));
  t.push_back(knob(
      "bh_invalidate", &KernelConfig::bh_invalidate,
      "how bh_lru entries pinning pages are dropped before migration (seed 004)",
      {{BhInvalidateMode::kAll,
        {"all", "seed 004 patch: invalidate_bh_lrus() IPI to every CPU in alloc_contig_range()"}},
       {BhInvalidateMode::kCond,
        {"cond", "IPIs only to CPUs with has_bh_in_lru() (on_each_cpu_cond)"}},
       {BhInvalidateMode::kSelected,
        {"selected",
         "drop only the migrated pages' buffer heads, searching every CPU's bh_lru (no IPI)"}},
       {BhInvalidateMode::kNone,
        {"none", "before 5.13: migration fails and retries on busy buffer heads"}},
       {BhInvalidateMode::kDrain,
        {"drain",
         "5.13+ (8cc621d2f45d): invalidate in lru_add_drain(); lru_cache_disable() skips "
         "installs"}}}));
  t.push_back(knob(
      "reclaim", &KernelConfig::reclaim,
      "when kswapd starts: at the low watermark, or earlier on a free-page trend "
      "(seed 003)",
      {{ReclaimMode::kReactive,
        {"reactive", "kswapd woken at the low watermark, asleep above high"}},
       {ReclaimMode::kPredictive,
        {"predictive", "seed 003 RFC: least-squares trend of free pages wakes kswapd early"}}}));
  t.push_back(knob("predict_window", &KernelConfig::predict_window,
                   "(time, free pages) samples in the reclaim=predictive lookback window",
                   {n(LSQ_LOOKBACK, "LSQ_LOOKBACK of the seed 003 RFC"),
                    n(2 * LSQ_LOOKBACK, "twice the RFC's window: slower, smoother trend"),
                    n(4 * LSQ_LOOKBACK, "four times the RFC's window")}));
  t.push_back(knob(
      "wake_affine", &KernelConfig::wake_affine,
      "where a sync wake-up (a pipe's reader or writer woken by the other side) runs the wakee",
      {{WakeAffineMode::kOff, {"off", "the wakee stays on its own CPU (the model before)"}},
       {WakeAffineMode::kSync,
        {"sync",
         "wake_affine_idle(): pulled to the waker's CPU when the waker runs there alone (as "
         "recorded on a KVM guest, where an idle vCPU counts as preempted)"}},
       {WakeAffineMode::kSyncIdlePrev,
        {"sync-idle-prev",
         "as sync, but select_idle_sibling() keeps the wakee on its own CPU when that one is "
         "idle (bare metal)"}}}));
  t.push_back(knob(
      "idle_balance", &KernelConfig::idle_balance,
      "whether a CPU about to go idle pulls a task waiting on another CPU's run queue "
      "(sched_balance_newidle())",
      {{IdleBalanceMode::kOff,
        {"off", "tasks stay on the CPU they were placed on (the model before)"}},
       {IdleBalanceMode::kNewidle,
        {"newidle",
         "5.13+: the busiest CPU's least recently run task that is not cache hot, whenever the "
         "CPU would idle"}},
       {IdleBalanceMode::kNewidleAvgIdle,
        {"newidle-avg-idle",
         "2.6.35-5.12: the same, only while the CPU's idle periods average at least "
         "sysctl_sched_migration_cost (0.5 ms)"}}}));
  t.push_back(knob(
      "sched", &KernelConfig::sched,
      "how long a task keeps a CPU others wait for: the slice, enforced at the next tick (HZ=250)",
      {{SchedSliceMode::kCfs,
        {"cfs",
         "3.x-6.5 CFS: sched_slice(), an equal share of sysctl_sched_latency (6 ms x "
         "(1 + ilog2(min(cpus, 8)))), at least sysctl_sched_min_granularity; a wakee that slept "
         "sysctl_sched_wakeup_granularity (1 ms, scaled alike) preempts at once"}},
       {SchedSliceMode::kEevdf,
        {"eevdf",
         "6.6+ EEVDF (147f3efaa241): sysctl_sched_base_slice, 0.75 ms x (1 + ilog2(min(cpus, "
         "8))), whatever the load; whether a wakee preempts at once: knob eevdf_wakeup"}}}));
  t.push_back(
      knob("eevdf_wakeup", &KernelConfig::eevdf_wakeup,
           "when an EEVDF wake-up preempts the running task (sched/eevdf_lag.h; sched=eevdf only)",
           {{EevdfWakeup::kParity,
             {"parity",
              "6.6-6.11: a sleeper keeps the lag it left with (PLACE_LAG); the wakee preempts when "
              "pick_eevdf() would pick it: eligible, with the earliest deadline among the eligible "
              "tasks queued, the running one among them once past the deadline it was picked with "
              "(RUN_TO_PARITY)"}},
            {EevdfWakeup::kEligible,
             {"eligible",
              "6.12+: a sleeper that leaves ineligible stays queued until the others' running pays "
              "its lag back (DELAY_DEQUEUE, DELAY_ZERO); an eligible wakee preempts at once (as "
              "measured on 6.18: 20,000 of 20,000 wake-ups of a sleeper beside a spinner)"}}}));
  t.push_back(
      knob("spinlock", &KernelConfig::spinlock,
           "how a contended spinlock (zone->lock, lru_lock, counter->lock) hands over",
           {{SpinlockImpl::kTicket,
             {"ticket",
              "<= 4.1 x86 ticket spinlock: every waiter spins on the lock word, so a release is "
              "re-read by all of them and the handoff grows with their number"}},
            {SpinlockImpl::kQueued,
             {"queued",
              "4.2+ x86 qspinlock (Waiman Long, MCS queue): each waiter spins on its own node, one "
              "line transfer per handoff"}}}));
  t.push_back(
      knob("read_ahead_kb", &KernelConfig::read_ahead_kb,
           "readahead window of a file or block device (queue/read_ahead_kb) whose device the "
           "trace does not describe; given in a policy, replay uses it for every device",
           {n(0, "off: a missing page is read alone (force_page_cache_ra() of one page)"),
            n(VM_READAHEAD_KB, "the kernel's default (VM_READAHEAD_PAGES)"),
            n(4 * VM_READAHEAD_KB, "a common tuning for streaming reads"),
            n(16 * VM_READAHEAD_KB, "a large window (RAID, network block devices)")}));
  t.push_back(knob(
      "fault_around_bytes", &KernelConfig::fault_around_bytes,
      "fault-around (mm/memory.c do_fault_around()): a read fault on a file mapping also maps the "
      "cached, uptodate pages around it, in the aligned window of this size inside its PTE page "
      "and VMA",
      {n(0,
         "off: each read fault maps its own page (before 3.15, or fault_around_bytes set to "
         "one page)"),
       n(FAULT_AROUND_BYTES, "the kernel's default since 3.15 (16 pages)")}));
  return t;
}

std::string known_keys() {
  std::string out;
  for (const KnobInfo& k : kernel_knobs()) out += (out.empty() ? "" : ", ") + k.key;
  return out;
}

std::string known_values(const KnobInfo& k) {
  std::string out;
  for (const KnobValue& v : k.values) out += (out.empty() ? "" : "|") + v.name;
  return out;
}

}  // namespace

std::string_view KnobInfo::value_of(const KernelConfig& c) const {
  const size_t i = index_of(c);
  return i < values.size() ? std::string_view(values[i].name) : std::string_view("?");
}

const KnobValue* KnobInfo::find_value(std::string_view name) const {
  for (const KnobValue& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const std::vector<KnobInfo>& kernel_knobs() {
  static const std::vector<KnobInfo> kTable = build_table();
  return kTable;
}

const KnobInfo* find_knob(std::string_view key) {
  for (const KnobInfo& k : kernel_knobs()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

std::string format_knobs(const KernelConfig& config) {
  std::string out;
  for (const KnobInfo& k : kernel_knobs()) {
    if (!out.empty()) out += ',';
    out += k.key;
    out += '=';
    out += k.value_of(config);
  }
  return out;
}

Status apply_knobs(std::string_view text, KernelConfig* config) {
  KernelConfig c = *config;
  std::vector<std::string_view> seen;
  text = trim_knob_text(text);
  while (!text.empty()) {
    const size_t sep = text.find_first_of(",+");
    const std::string_view item = trim_knob_text(text.substr(0, sep));
    text = sep == std::string_view::npos ? std::string_view{} : text.substr(sep + 1);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) {
      return Status::invalid_argument("policy item '" + std::string(item) + "' is not knob=value");
    }
    const std::string_view key = trim_knob_text(item.substr(0, eq));
    const std::string_view val = trim_knob_text(item.substr(eq + 1));
    const KnobInfo* knob = find_knob(key);
    if (knob == nullptr) {
      return Status::invalid_argument("unknown policy knob '" + std::string(key) +
                                      "' (known: " + known_keys() + ")");
    }
    for (std::string_view s : seen) {
      if (s == key) {
        return Status::invalid_argument("policy knob '" + std::string(key) + "' given twice");
      }
    }
    seen.push_back(key);
    const KnobValue* v = knob->find_value(val);
    if (v == nullptr) {
      return Status::invalid_argument("unknown value '" + std::string(val) + "' for policy knob '" +
                                      std::string(key) + "' (expected " + known_values(*knob) +
                                      ")");
    }
    knob->set(c, static_cast<size_t>(v - knob->values.data()));
  }
  *config = c;
  return Status::ok();
}

std::string_view trim_knob_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace mmreplay::kernelsim

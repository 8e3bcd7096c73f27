// The counters a run reports, each declared once: the kernel's vm_event_item + vmstat_text[]
// (include/linux/vm_event_item.h, mm/vmstat.c) as one list per struct.
//
//   X(field, results_key, doc)
//     field        the member of kernelsim::VmCounters (kernelsim/sim/stats.h) or
//                  kernelsim::CpuCounters (kernelsim/sched/cpu.h); named after /proc/vmstat where
//                  an equivalent exists. The model reads and writes it by name
//                  (sim.vm().pgfault++).
//     results_key  its key under "counters" in the results (replay/run.cpp): issue 5's names for
//                  the counters it had ("faults" for pgfault), the field name for the rest
//     doc          what it counts (the report shows it beside the counter)
//
// Everything that names a counter comes from these lists: the struct fields, the results keys,
// the report's counter display (tools/report), the timeline's counter tracks
// (kernelsim/trace_counters.cpp) and the keys validate accepts (tools/validate). A new
// counter is one line here; it reaches all of them.
//
// Invariants: (1) results keys are unique across both lists (static_assert below); (2) every
// member of the two structs is declared here (static_asserts on their sizes beside them).

#pragma once

#include <cstddef>
#include <string_view>

// clang-format off
// vm_event_item: counters of the whole machine (kernelsim::VmCounters, Simulation::vm()).
#define MMREPLAY_VM_COUNTERS(X)                                                                    \
  /* ---- Faults, pages, TLB flushes, madvise (mm/memory.c, mm/madvise.c, x86 tlb.c) ---- */       \
  X(pgfault, "faults", "faults taken (all kinds)")                                                 \
  X(fault_anon, "fault_anon", "do_anonymous_page() with a new page")                               \
  X(fault_zero_page, "fault_zero_page", "read fault mapped the shared zero page")                  \
  X(fault_file, "fault_file", "faults that mapped a page-cache page (do_read/shared_fault())")    \
  X(fault_around_pages, "fault_around_pages",                                                      \
    "cached pages a read fault mapped beside its own (do_fault_around())")                         \
  X(fault_cow, "fault_cow", "do_wp_page() / private file write: page copied")                      \
  X(fault_wp_reuse, "fault_wp_reuse", "do_wp_page() on a fork-shared page no one else maps: reused") \
  X(fault_swapcache, "fault_swapcache",                                                            \
    "do_swap_page() found the page in the swap cache (read ahead, or by a fork peer): minor")      \
  X(fault_spurious, "fault_spurious", "pte already as wanted (another thread won, or trace)")      \
  X(fault_segv, "fault_segv", "no VMA or access not allowed")                                      \
  X(fault_oom, "fault_oom", "allocation failed")                                                   \
  X(fault_vma_lock, "fault_vma_lock", "handled under the per-VMA lock")                            \
  X(fault_vma_lock_retry, "fault_vma_lock_retry", "per-VMA lock not taken, fell back to mmap_sem") \
  X(pages_alloc, "pages_alloc", "user pages allocated (anon + COW)")                               \
  X(pages_free, "pages_free", "user pages freed")                                                  \
  X(pgtable_alloc, "pgtable_alloc", "PTE pages allocated")                                         \
  X(pgtable_free, "pgtable_free", "PTE pages freed")                                               \
  X(fork_ptes_copied, "fork_ptes_copied", "ptes copied by fork's copy_page_range()")              \
  X(fork_swap_entries_copied, "fork_swap_entries_copied",                                          \
    "swapped ptes fork's copy_page_range() copied (swap_duplicate(): the entry shared)")          \
  X(fork_swap_entries_unmapped, "fork_swap_entries_unmapped",                                      \
    "fork peers' ptes of a page reclaim swapped out, given its entry (try_to_unmap())")           \
  X(zone_lock_batches, "zone_lock_batches", "rmqueue_bulk / free_pcppages_bulk calls")             \
  X(pcp_alloc_cold, "pcp_alloc_cold",                                                              \
    "pages a pcp list handed out cold: not among the last freed on its CPU (pcp_hot_window)")      \
  X(nr_tlb_flush_calls, "tlb_flush_calls", "flush_tlb_mm_range() calls")                           \
  X(nr_tlb_shootdowns, "tlb_shootdowns", "flush calls that sent IPIs")                             \
  X(nr_tlb_broadcast, "tlb_broadcasts", "broadcast (INVLPGB) invalidations")                       \
  X(nr_tlb_pv_flushes, "tlb_pv_flushes", "flush calls whose other CPUs a hypercall flushed")       \
  /* ---- rwsem lock events, every rwsem (kernel/locking/lock_events_list.h) ---- */               \
  X(rwsem_sleep_reader, "rwsem_sleep_reader", "readers that slept in an rwsem's wait list")        \
  X(rwsem_sleep_writer, "rwsem_sleep_writer",                                                      \
    "writer sleeps in an rwsem's wait list, each (a woken writer that lost sleeps again)")        \
  X(rwsem_wake_reader, "rwsem_wake_reader", "readers woken and granted the lock")                  \
  X(rwsem_wake_writer, "rwsem_wake_writer", "writers woken (granted the lock, or to try again)")   \
  X(rwsem_opt_lock, "rwsem_opt_lock",                                                              \
    "write locks taken without sleeping past waiters: by spinning, or a steal of a free one")     \
  X(rwsem_opt_fail, "rwsem_opt_fail",                                                              \
    "optimistic spins refused (rwsem_can_spin_on_owner()) or given up (owner off CPU, rspin)")   \
  X(rwsem_opt_nospin, "rwsem_opt_nospin",                                                          \
    "spins on readers that ran out and made the lock non-spinnable (RWSEM_NONSPINNABLE, 5.3+)")   \
  X(rwsem_rlock_steal, "rwsem_rlock_steal", "read locks taken past waiters (5.11+ lock stealing)") \
  X(rwsem_opt_rlock, "rwsem_opt_rlock", "read locks taken by a reader's optimistic spin (5.3-5.10)") \
  X(rwsem_wlock_handoff, "rwsem_wlock_handoff",                                                    \
    "locks handed to a writer that waited RWSEM_WAIT_TIMEOUT (the HANDOFF bit)")                  \
  X(rwsem_wake_lost, "rwsem_wake_lost",                                                            \
    "woken writers that found the lock taken when they ran (not a kernel lock event)")           \
  X(gather_forced_flushes, "gather_forced_flushes", "mmu_gather batch filled up mid-operation")    \
  X(madv_dontneed_pages, "madv_dontneed_pages", "present pages zapped by MADV_DONTNEED")           \
  X(madv_lazyfree_pages, "madv_lazyfree_pages", "pages made lazyfree by MADV_FREE")                \
  X(lazyfree_reused, "lazyfree_reused", "lazyfree pages written again (lazy free cancelled)")      \
  X(madv_populate_faults, "madv_populate_faults",                                                  \
    "faults MADV_POPULATE_READ/WRITE took (get_user_pages(): no exception; counted in faults)")    \
  X(madv_cold_pages, "madv_cold_pages",                                                            \
    "pages MADV_COLD made old (and deactivated, when active)")                                     \
  X(madv_pageout_pages, "madv_pageout_pages", "pages MADV_PAGEOUT isolated for reclaim")           \
  X(madv_pageout_reclaimed, "madv_pageout_reclaimed",                                              \
    "of those, freed (clean or on a synchronous swap device) or unmapped into the swap cache")     \
  X(ops_failed, "ops_failed", "syscalls that returned an error")                                   \
  X(addr_mismatch, "addr_mismatch",                                                                \
    "recorded mmap/mremap/brk address taken in the model's view (the trace was followed)")        \
  /* ---- Memory pressure (mm/vmscan.c, mm/page_io.c, mm/memory.c) ---- */                         \
  X(allocstall, "allocstalls", "try_to_free_pages() calls by allocating tasks")                    \
  X(kswapd_wakeups, "kswapd_wakeups", "wakeup_kswapd() that woke a sleeping kswapd")               \
  X(pgscan_kswapd, "pgscan_kswapd", "pages isolated from inactive lists by kswapd")                \
  X(pgscan_direct, "pgscan_direct", "pages isolated from inactive lists by direct reclaim")        \
  X(pgsteal_kswapd, "pgsteal_kswapd", "pages reclaimed (freed) by kswapd")                         \
  X(pgsteal_direct, "pgsteal_direct", "pages reclaimed (freed) by direct reclaim")                 \
  X(pgactivate, "pgactivate", "pages moved to an active list (second chance)")                     \
  X(pgdeactivate, "pgdeactivate", "pages moved from active to inactive")                           \
  X(pgretry_written, "pgretry_written",                                                            \
    "pages reclaim tried again at once: written while it held them (written_back_retry=on)")      \
  X(pgrotated, "pgrotated",                                                                        \
    "written pages moved to their inactive list's tail as the write ended (rotate_reclaimable)")   \
  X(reclaim_tlb_batch_flushes, "reclaim_tlb_batch_flushes",                                       \
    "deferred unmap flushes reclaim made for a batch (try_to_unmap_flush(): reclaim_tlb_flush)")  \
  X(pglazyfree, "pglazyfree", "pages moved to the lazyfree list by MADV_FREE")                     \
  X(pglazyfreed, "pglazyfreed", "clean lazyfree pages discarded by reclaim")                       \
  X(lazyfree_redirtied, "lazyfree_redirtied",                                                      \
    "lazyfree pages found dirty by reclaim: back to swap-backed")                                  \
  X(pswpin, "swapins", "pages read from swap")                                                     \
  X(pswpout, "swapouts", "pages written to swap")                                                  \
  X(pgmajfault, "major_faults", "faults that waited for I/O: a swap-in or a file page's read")    \
  X(fault_file_major, "file_major_faults",                                                         \
    "faults on a file mapping that missed the page cache (filemap_fault() read the page)")        \
  X(pgcache_unmapped, "pgcache_unmapped",                                                          \
    "mapped page-cache pages unmapped by reclaim (try_to_unmap())")                               \
  X(swap_full, "swap_full", "anon pages kept because no swap slot was free")                       \
  X(madv_free_swap_freed, "madv_free_swap_freed",                                                  \
    "swap entries freed by MADV_FREE (free-swapped)")                                              \
  /* ---- Buffer heads (fs/buffer.c) ---- */                                                       \
  X(bh_lru_hits, "bh_lru_hits", "lookup_bh_lru() found the buffer head")                           \
  X(bh_lru_misses, "bh_lru_misses", "lookup_bh_lru() did not (__find_get_block_slow() follows)")   \
  X(bh_lru_installs, "bh_lru_installs", "bh_lru_install() put a new entry (and a reference) in")   \
  X(bh_lru_evictions, "bh_lru_evictions", "bh_lru_install() pushed the tail out (brelse)")         \
  /* ---- Memory cgroups (mm/memcontrol.c) ---- */                                                 \
  X(memcg_charged_pages, "memcg_charged_pages",                                                    \
    "pages committed to a memcg (mem_cgroup_commit_charge())")                                     \
  X(memcg_uncharged_pages, "memcg_uncharged_pages",                                                \
    "pages uncharged: freed, reclaimed, or charge cancelled")                                      \
  X(memcg_stock_hits, "memcg_stock_hits", "charges served by this CPU's stock (consume_stock())")  \
  X(memcg_counter_charges, "memcg_counter_charges",                                                \
    "counter charges (res_counter / page_counter try_charge)")                                     \
  X(memcg_counter_uncharges, "memcg_counter_uncharges",                                            \
    "counter uncharges (uncharge batches, stock drains)")                                          \
  X(memcg_counter_locks, "memcg_counter_locks", "res_counter: counter->lock acquisitions")         \
  X(memcg_counter_bounces, "memcg_counter_bounces",                                                \
    "page_counter: atomics that pulled the line from another CPU")                                 \
  X(memcg_counter_wait_ns, "memcg_counter_wait_ns",                                                \
    "page_counter: time atomics waited for the busy line (ns)")                                    \
  X(memcg_reclaim, "memcg_reclaim", "try_to_free_mem_cgroup_pages() calls (limit reached)")        \
  X(memcg_oom, "memcg_oom",                                                                        \
    "memcg OOMs: charges reclaim could not fit after its retries (memory.events oom)")             \
  X(memcg_oom_kill, "memcg_oom_kill",                                                              \
    "processes the memcg OOM killer killed (memory.events oom_kill)")                              \
  X(oom_reaped_pages, "oom_reaped_pages",                                                          \
    "pages the OOM reaper unmapped from killed processes (oom_reap_task_mm())")                    \
  X(memcg_writeback_waits, "memcg_writeback_waits",                                                \
    "memcg reclaim waited for a page's writeback (cgroup v1 shrink_page_list() case 3)")          \
  /* ---- Contiguous allocation and migration (mm/cma.c, mm/migrate.c) ---- */                     \
  X(cma_alloc_success, "contig_allocs", "cma_alloc() calls that got their range")                  \
  X(cma_alloc_fail, "contig_alloc_fails",                                                          \
    "cma_alloc() calls that failed (no free range, or every range busy)")                          \
  X(cma_alloc_retries, "contig_alloc_retries",                                                     \
    "alloc_contig_range() tries repeated after a busy page")                                       \
  X(pgmigrate_success, "pages_migrated", "pages migrated out of a range")                          \
  X(pgmigrate_fail, "migrations_failed", "page migrations that failed (busy buffer head, ...)")    \
  X(bh_invalidate_ipis, "bh_invalidate_ipis",                                                      \
    "invalidate_bh_lru() IPIs sent (bh_invalidate all/cond/drain)")                                \
  X(bh_lru_invalidated, "bh_lru_invalidations",                                                    \
    "bh_lru entries dropped by invalidation or selected drops")                                    \
  X(bh_lru_drop_searches, "bh_lru_drop_searches",                                                  \
    "per-CPU bh_lru searches of bh_invalidate=selected")                                           \
  /* ---- Predictive reclaim, page cache, writeback, OOM (issue 6, seed 003) ---- */               \
  X(kswapd_predicted_wakeups, "kswapd_predicted_wakeups",                                          \
    "kswapd woken by the free-page trend (reclaim=predictive)")                                    \
  X(kswapd_low_wmark_hit_quickly, "kswapd_low_wmark_hit_quickly",                                  \
    "kswapd woken during its HZ/10 nap")                                                           \
  X(kswapd_high_wmark_hit_quickly, "kswapd_high_wmark_hit_quickly",                                \
    "kswapd's nap timed out, still balanced: full sleep")                                          \
  X(pgcache_miss, "pgcache_miss", "page-cache misses read from the device")                        \
  X(pgcache_drop, "pgcache_drop", "clean page-cache pages dropped by reclaim")                     \
  X(pgcache_truncated, "pgcache_truncated",                                                     \
    "page-cache pages dropped by truncation (open O_TRUNC, creat, truncate, ftruncate)")         \
  X(truncate_dirty_cancelled, "truncate_dirty_cancelled",                                       \
    "dirty page-cache pages truncation dropped before their writeback (cancel_dirty_page)")      \
  X(ra_windows, "ra_windows",                                                                     \
    "readahead reads submitted (read_pages(): a window, or its part between cached pages)")      \
  X(ra_async, "ra_async", "readahead windows started by a read reaching the marked page")         \
  X(ra_page_waits, "ra_page_waits", "waits for a page whose read was in flight (folio_wait_locked)")\
  X(pgcache_warm, "pgcache_warm",                                                                  \
    "file pages found in the page cache from before the run (--cache warm)")                      \
  /* ---- reads and writes by file kind (kernelsim/fs/file.h, issue 19) ---- */                   \
  X(fd_io_regular, "fd_io_regular", "reads/writes of regular files and block devices (page cache)")\
  X(fd_io_socket, "fd_io_socket", "reads/writes of sockets (a syscall and a copy)")               \
  X(fd_io_pipe, "fd_io_pipe", "reads/writes of pipes (a syscall and a copy)")                     \
  X(fd_io_char, "fd_io_char", "reads/writes of char devices such as /dev/null (a syscall)")       \
  X(fd_io_tty, "fd_io_tty", "reads/writes of terminals (a syscall and a copy)")                   \
  X(fd_io_anon, "fd_io_anon", "reads/writes of anon inodes: eventfd, memfd (a syscall and a copy)")\
  X(stream_pages_remote, "stream_pages_remote",                                                  \
    "pages of socket data read or written with the other side on another CPU")           \
  X(nr_writeback_pages, "nr_writeback_pages",                                                      \
    "page-cache pages written back (flusher, pageout, not fsync)")                                 \
  X(nr_vmscan_write, "nr_vmscan_write", "page-cache pages written back by kswapd's pageout()")     \
  X(dirty_throttle_pauses, "dirty_throttle_pauses", "balance_dirty_pages() pauses of writers")     \
  X(reclaim_throttled, "reclaim_throttled", "direct reclaim rounds that waited for writeback")     \
  X(swap_write_queue_waits, "swap_write_queue_waits",                                              \
    "swap writes whose submitter slept for a request: BLKDEV_DEFAULT_RQ requests in flight")      \
  X(reclaim_swap_write_waits, "reclaim_swap_write_waits",                                          \
    "reclaim batches that waited for their fork-shared pages' swap writes before freeing them")   \
  X(oom, "oom", "machine-wide OOM kills (mm/oom_kill.h): processes killed")


// Per-CPU counters (kernelsim::CpuCounters, Cpu::counters); the results carry their totals over
// all CPUs (Simulation::cpu_totals()).
#define MMREPLAY_CPU_COUNTERS(X)                                                                   \
  X(ipis_sent, "tlb_ipis_sent", "shootdown IPIs sent (csd_ipi=if-empty: not to a non-empty queue)") \
  X(ipis_received, "tlb_ipis_received",                                                            \
    "shootdown csds handled: flush_tlb_func() calls (/proc/interrupts TLB)")                       \
  X(tlb_local_single, "tlb_flush_local", "INVLPGs on behalf of a CPU's own flushes (pages)")       \
  X(tlb_local_full, "tlb_flush_full", "full flushes of a CPU's own flushes")                       \
  X(tlb_remote_single, "tlb_flush_remote_single", "INVLPGs done in shootdown handlers (pages)")    \
  X(tlb_remote_full, "tlb_flush_remote_full", "full flushes done in shootdown handlers")           \
  X(tlb_remote_wrong_cpu, "tlb_remote_wrong_cpu",                                                  \
    "shootdowns that found the CPU running another mm and took it out of the mask (6.14+)")      \
  X(tlb_pv_remote, "tlb_pv_remote", "flushes the host did here for another CPU's hypercall")      \
  X(tlb_lazy_flushes, "tlb_lazy_flushes",                                                          \
    "full flushes on returning from lazy mode with a stale tlb_gen")                               \
  X(leave_mm, "leave_mm", "times a CPU left a lazy mm in a flush handler")                         \
  X(tlb_refill_walks, "tlb_refill_walks",                                                          \
    "user accesses to mapped pages the STLB did not hold (flushed, evicted, first use): walks")   \
  X(context_switches, "context_switches",                                                          \
    "times a program's task left its CPU, to sleep or preempted (perf's context-switches)")        \
  X(involuntary_switches, "involuntary_switches",                                                  \
    "of those, preemptions at the end of a time slice (nonvoluntary_ctxt_switches)")              \
  X(balance_pulls, "balance_pulls",                                                                \
    "tasks this CPU pulled from another's run queue, about to idle or kicked idle (lb_gained)")   \
  X(deep_idle_wakeups, "deep_idle_wakeups",                                                        \
    "wake-ups onto a CPU idle deep_idle_after or longer, which paid deep_idle_exit")               \
  X(wakeup_ipis, "wakeup_ipis",                                                                    \
    "IPIs try_to_wake_up() sent to wake a task on another, idle CPU (/proc/interrupts CAL)")      \
  X(wakeups_polling, "wakeups_polling",                                                            \
    "wake-ups of another, idle CPU that polls need_resched (MWAIT): no IPI (sched_wake_idle_without_ipi)")\
  X(resched_ipis, "resched_ipis",                                                                  \
    "reschedule IPIs try_to_wake_up() sent to preempt a task on another CPU (/proc/interrupts RES)")\
  X(call_function_irqs, "call_function_irqs",                                                      \
    "CALL_FUNCTION interrupts taken (/proc/interrupts CAL): one runs every csd queued by then")    \
  X(irq_ns, "irq_ns",                                                                              \
    "time in CALL_FUNCTION interrupts: entries and handlers (shootdowns, bh_lru invalidations) (ns)")\
  X(ipis_deferred, "ipis_deferred",                                                                \
    "IPIs that reached a CPU with interrupts off and ran when it re-enabled them")                 \
  X(ipi_deferred_ns, "ipi_deferred_ns",                                                            \
    "time deferred IPIs waited for their CPU to re-enable interrupts (ns)")                        \
  X(busy_ns, "busy_ns", "time a task ran (or spun), switch costs included (ns)")               \
  X(user_ns, "user_ns",                                                                            \
    "user-mode time: think, user accesses and the MMU's walks and A/D updates for them (ns)")      \
  X(irq_user_ns, "irq_user_ns",                                                                    \
    "interrupt time that landed in user-mode time (tick accounting counts it as user) (ns)")       \
  X(kthread_ns, "kthread_ns", "time kernel threads (kswapd) ran: busy_ns no process owns (ns)")

// clang-format on

namespace mmreplay::common {

struct CounterInfo {
  std::string_view field;  // the struct member
  std::string_view key;    // under "counters" in the results
  std::string_view doc;
};

#define MMREPLAY_COUNTER_INFO(field, key, doc) {#field, key, doc},
// vmstat_text[]: in VmCounters order.
inline constexpr CounterInfo kVmCounterInfo[] = {MMREPLAY_VM_COUNTERS(MMREPLAY_COUNTER_INFO)};
// In CpuCounters order.
inline constexpr CounterInfo kCpuCounterInfo[] = {MMREPLAY_CPU_COUNTERS(MMREPLAY_COUNTER_INFO)};
#undef MMREPLAY_COUNTER_INFO
inline constexpr size_t kVmCounterCount = sizeof(kVmCounterInfo) / sizeof(kVmCounterInfo[0]);
inline constexpr size_t kCpuCounterCount = sizeof(kCpuCounterInfo) / sizeof(kCpuCounterInfo[0]);

// Calls f(info[i], s.*fields[i]) for every counter of a struct generated from one of the lists,
// in list order: the one loop behind for_each_counter() of VmCounters and CpuCounters.
// `fields` holds non-const member pointers, as the tables declare them: clang (the fuzz preset)
// will not deduce S through the qualification conversion to `const uint64_t S::*` that g++ makes.
template <typename S, size_t N, typename F>
void for_each_listed_counter(const S& s, uint64_t S::*const (&fields)[N],
                             const CounterInfo (&info)[N], F&& f) {
  for (size_t i = 0; i < N; ++i) f(info[i], s.*fields[i]);
}

// The counter whose results key is `key` in either list, or nullptr.
constexpr const CounterInfo* find_counter(std::string_view key) {
  for (const CounterInfo& c : kVmCounterInfo) {
    if (c.key == key) return &c;
  }
  for (const CounterInfo& c : kCpuCounterInfo) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

namespace detail {
constexpr bool counter_keys_unique() {
  for (const CounterInfo& c : kVmCounterInfo) {
    if (find_counter(c.key) != &c) return false;
  }
  for (const CounterInfo& c : kCpuCounterInfo) {
    if (find_counter(c.key) != &c) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::counter_keys_unique(), "counters (1): one results key names one counter");

}  // namespace mmreplay::common

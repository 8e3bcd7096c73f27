// CostProfile: what each modelled hardware or kernel step costs, in virtual nanoseconds.
//
// Costs are data, never literals in model code. A profile is a plain struct so that a JSON loader
// outside kernelsim can fill it field by field (kernelsim itself does no file I/O). Two profiles
// ship as C++ values: cost_profile_default() (a modern x86 server, 2023-25) and
// cost_profile_xeon_2014() (the seeds' machines: Xeon E5 v2/v3, Linux 3.x/4.x era).
//
// Every field is a SimTime in nanoseconds; its comment says what it covers. The values and their
// sources (rows of ../shared/reference/kernel-mm.md, "Hardware costs", or "(unverified)" for a
// starting point to calibrate) sit beside each assignment in cost_profile.cpp, one column per
// profile. `trace-replay calibrate` is meant to replace the unverified ones on a real machine.

#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

struct CostProfile {
  // ---- Entry / exit ----
  SimTime syscall_entry;  // ns: syscall entry + exit (with speculation mitigations)
  SimTime fault_entry;    // ns: #PF exception entry/exit and do_user_addr_fault() prologue
  // ---- Fault path work ----
  SimTime find_vma;           // ns: find_vma() / maple tree walk for one address
  SimTime fault_bookkeeping;  // ns: handle_mm_fault() pte lookup, set_pte, rmap, lru add, counters
  SimTime clear_page;         // ns: zeroing one 4 KiB page (~0.3 us at 13.7 GB/s, kernel-mm.md)
  SimTime clear_page_cold;    // ns: zeroing a page not in the CPU's caches: one from the buddy
                              //     lists, not freed to its pcp list a moment ago (mm/page_alloc.h
                              //     PerCpuPages); 0: as clear_page (the built-in profiles)
  SimTime copy_page;          // ns: copying one 4 KiB page (COW)
  SimTime page_cache_lookup;  // ns: per file fault: filemap_fault()'s page-cache lookup
                              //     plus do_fault_around() mapping its cached neighbours (up to
                              //     fault_around_bytes); per fault, as calibrate measures it
  SimTime user_access;        // ns: one user access to a mapped page with a warm TLB
  SimTime wp_pte_update;      // ns: do_wp_page() beyond fault_bookkeeping: a write-protected
                              //     present pte made writable or replaced (the TLB flush of a
                              //     copy is charged apart); large under a hypervisor that
                              //     shadows the guest's page tables
  SimTime tlb_refill_walk;    // ns: a user access to a mapped page the STLB does not hold (a
                              //     flush or an mm switch took it, it was evicted, or this CPU
                              //     never used it): the page walk that fills the entry
                              //     (arch/x86/stlb.h)
  SimTime pte_ad_update;      // ns: an access to a present pte whose accessed bit (or, for a
                              //     write, dirty bit) the kernel cleared (MADV_FREE, reclaim's
                              //     aging): the page walk sets it again; a few cycles on bare
                              //     metal, a fault to the host under shadow page tables
  // ---- Page allocator ----
  SimTime pcp_alloc;   // ns: rmqueue_pcplist() taking one page from the per-CPU list
  SimTime pcp_free;    // ns: free_unref_page() putting one page on the per-CPU list
  SimTime buddy_page;  // ns: per page moved between buddy lists and pcp under zone->lock
  // ---- Page-table walks ----
  SimTime pte_walk;      // ns: visiting one pte that needs no work (none)
  SimTime pte_zap;       // ns: zap_pte_range() on a present pte: clear, rmap, gather
  SimTime pte_lazyfree;  // ns: madvise_free_pte_range() on a present pte + mark_page_lazyfree()
  // ns: madvise_cold_or_pageout_pte_range() on a present pte: made old, PG_referenced cleared,
  // the page queued for deactivate_page() (MADV_COLD) or picked for isolation (MADV_PAGEOUT)
  SimTime pte_mkold;
  SimTime pte_change_prot;  // ns: change_pte_range() on one present pte
  SimTime pte_move;         // ns: move_ptes() moving one present pte (mremap)
  SimTime lru_add_drain;    // ns: lru_add_drain() of this CPU's (empty or short) batches
  // ---- LRU, reclaim and swap (swap device figures: kernel-mm.md "Hardware costs") ----
  SimTime lru_move_page;  // ns: per page moved between a pagevec / LRU list under lru_lock
  SimTime shrink_page;    // ns: shrink_page_list() per page: page_check_references() rmap
                          //     walk, try_to_unmap_one() bookkeeping (not the I/O)
  SimTime swap_out_page;  // ns: CPU time of pageout() for one anon page: swap slot, bio
                          //     submission (the write completes asynchronously); zram: compression
  SimTime swap_in_page;   // ns: a swap-in read of one page, waited for off CPU (major fault)
  SimTime swap_read_submit;  // ns: CPU time of one swap-in read, once per read however many
                             //     pages it brings: swap_readpage() -> submit_bio(), the
                             //     driver's command, the completion interrupt's
                             //     end_swap_bio_read() and the wake-up of the faulting task
  SimTime
      swap_in_readahead_page;  // ns: each further page of the page-cluster window in the same I/O
  SimTime swap_io_page;  // ns: device time of moving one page to or from swap: reads and writes
                         //     queue on the one device (a swapped-out page is freed when its
                         //     write completes); zram: 0 (the CPU's (de)compression is the I/O)
  // ---- Memory cgroups (mm/memcontrol.c) ----
  SimTime memcg_counter_update;  // ns: res_counter charge/uncharge work under counter->lock
                                 //     (limit compare, usage/max_usage update, irq save/restore)
  SimTime memcg_stock;  // ns: consume_stock() / refill_stock() on this CPU's memcg_stock_pcp
  SimTime memcg_page;   // ns: per page charged or uncharged: page->mem_cgroup, statistics
  // ---- Buffer heads and file I/O (fs/buffer.c, fs/read_write.c) ----
  SimTime bh_lru_irq;   // ns: local_irq_disable() + local_irq_enable() around one bh_lru access
  SimTime bh_lru_slot;  // ns: comparing or shifting one bh_lru slot (a hot per-CPU line)
  SimTime
      find_get_block_slow;  // ns: __find_get_block_slow() beyond the page-cache lookup:
                            //     mapping->private_lock (uncontended) + walking the page's buffers
  SimTime file_copy_page;   // ns: copy_to_user/copy_from_user of 4 KiB of page-cache data
  SimTime fsync_block;      // ns: an fsync of one dirty page as a whole, waited for off CPU:
                            //     its write, the journal commit and the device's cache flush
                            //     (each further page adds writeback_page: fs/read_write.h)
  SimTime fsync_commit;     // ns: beyond fsync_block, the journal's commit of a new i_size
                            //     (an append's fsync), waited for off CPU
  SimTime find_get_page;    // ns: one page-cache lookup from the xarray root + folio_try_get()
                            //     (pagecache_get_page(), __find_get_block_slow(), and the start
                            //     of each filemap_get_read_batch())
  SimTime filemap_read_page;  // ns: per page of a cached filemap_read(), beyond the copy:
                              //     xas_next() + folio_try_get() in the batch, uptodate checks,
                              //     folio_mark_accessed(), folio_put()
  // ---- VMAs ----
  SimTime vma_alloc;          // ns: vm_area_alloc() + insert into the VMA tree
  SimTime vma_split;          // ns: __split_vma()
  SimTime vma_merge;          // ns: vma_merge() that succeeds (expand + remove)
  SimTime get_unmapped_area;  // ns: searching for a free range
  SimTime vma_remove;  // ns: taking one VMA out of the tree (the maple-tree store over its range)
                       //     + remove_vma() / vm_area_free() (munmap, the old VMA of a move)
  SimTime vma_expand;  // ns: vma_expand() growing a VMA in place (mremap, brk): the tree store
  SimTime move_vma;    // ns: move_vma()'s fixed work beyond the new VMA and the old one's removal:
                       //     vma_to_resize() checks, copy_vma() links, move_page_tables() setup
  // ---- TLB ----
  SimTime
      tlb_flush_overhead;    // ns: fixed cost of flush_tlb_mm_range() (Hansen 2014: ~1,050 cycles)
  SimTime tlb_flush_single;  // ns: one INVLPG (tlb.c comment: "about 100 ns"; 100-260 cycles)
  SimTime tlb_flush_full;    // ns: full flush, CR3 write and direct cost (the refills after
                             //     it: tlb_refill_walk per page used again)
  SimTime ipi_send;          // ns: per target: csd setup + APIC ICR write by the initiator
  SimTime ipi_delivery;  // ns: from send to the target's handler start (1-5 us round trips, ATC'17)
  SimTime ipi_handler_entry;    // ns: irq entry/exit + one csd's read and flush_tlb_func()
                                //     overhead on the target, once an interrupt; each other csd
                                //     it runs pays a line transfer (kernel/smp.h)
  SimTime ipi_delivery_remote;  // ns: ipi_delivery to a CPU on another socket (interconnect hop)
  SimTime invlpgb_per_page;     // ns: INVLPGB broadcast of one page (unverified)
  SimTime invlpgb_full;         // ns: INVLPGB of a whole ASID (unverified)
  SimTime tlbsync;              // ns: TLBSYNC wait for all broadcast invalidations (unverified)
  SimTime pv_flush_tlb_multi;   // ns: tlb=pv: the flush_tlb_multi() hypercall, the host's
                                //     invalidation of the named vCPUs included (unverified)
  // ---- Caches and locks ----
  SimTime
      cacheline_transfer;  // ns: moving a contended line to another core (40-100 ns in a socket)
  SimTime atomic_local;    // ns: atomic RMW on a line this core already owns
  // By distance (sched/topology.h): cacheline_transfer above is the same-socket figure.
  SimTime cacheline_transfer_smt;     // ns: the line comes from this core's SMT sibling (L1/L2)
  SimTime cacheline_transfer_remote;  // ns: the line comes from a core on another socket
  // ---- Scheduler ----
  SimTime context_switch;  // ns: __schedule() + context_switch() between two tasks
  SimTime switch_mm;       // ns: switch_mm_irqs_off() to another mm (CR3 write; PCID or not)
  SimTime wakeup_latency;  // ns: try_to_wake_up() until the woken task runs on an idle CPU
                           //     (calibrate: a pipe ping-pong between two CPUs; on a VM the
                           //     idle vCPU's halt exit dominates it)
  // ---- Process lifetime ----
  SimTime thread_create;  // ns: clone(CLONE_VM) as seen by the new thread
  SimTime thread_exit;    // ns: do_exit() of a thread that does not tear down its mm
  SimTime mm_create;      // ns: mm_alloc() + pgd_alloc() + mm_init() (fork/exec)
  SimTime fork_pte_copy;  // ns: copy_present_pte() of one pte at fork (wrprotect, rmap dup)
  // ---- Contiguous allocation and migration (mm/cma.c, mm/migrate.c, fs/buffer.c) ----
  SimTime bh_invalidate_handler;  // ns: invalidate_bh_lru() body in its IPI handler (irq entry
                                  //     is ipi_handler_entry; brelse per entry is atomic_local)
  SimTime migrate_page_rmap;      // ns: rmap walk + try_to_unmap() to a migration entry +
                                  //     remove_migration_ptes() for one mapping of one page
  SimTime migrate_page_mapping;   // ns: migrate_page_move_mapping() / buffer_migrate_page():
                                 //     page-cache slot replaced, buffer heads moved to the new page
  SimTime isolate_page_range;  // ns: start_isolate_page_range() + undo_isolate_page_range() of a
                               //     range: pageblock migratetype changes under zone->lock
  SimTime
      cma_retry_backoff;  // ns: wait before alloc_contig_range() retries a busy range
                          //     (cond_resched + the passes of migrate_pages(), model's back-off)
  // ---- Page cache and writeback (mm/filemap.h) ----
  SimTime page_cache_miss_read;  // ns: reading one missing page-cache page, waited for off CPU
  // ns: one read request to a file's device beyond its pages' page_cache_miss_read: submission,
  //     completion and the device's access latency, once per readahead batch or lone page. 0 in
  //     the built-in profiles, whose page_cache_miss_read is amortised over readahead windows
  //     (so there a larger window reads more pages and saves nothing); calibrate measures it
  //     from one-page reads with readahead off.
  SimTime page_cache_read_request;
  SimTime writeback_page;    // ns: device time of writing one dirty page (writes queue per device)
  SimTime writeback_submit;  // ns: CPU time to start writeback of one page (bio build + submit)
  // ---- Pipes and sockets (fs/pipe.c, net/socket.c; kernelsim/fs/file.h) ----
  // Per read or write call, beyond syscall_entry; the bytes cost file_copy_page per 4 KiB.
  SimTime pipe_rw;        // ns: pipe_read()/pipe_write(): pipe->mutex, pipe_buffer bookkeeping,
                          //     waking the other end. Ttys (n_tty) and anon inodes (eventfd,
                          //     memfd) are charged the same: a model simplification
  SimTime pipe_buf_page;  // ns: per 4 KiB written to a pipe: pipe_write()'s alloc_page()
                          //     (__GFP_ACCOUNT: a memcg charge) for a new pipe_buffer, and
                          //     anon_pipe_buf_release() freeing it once read; charged on the write
  SimTime socket_rw;      // ns: sock_read_iter()/sock_write_iter() on a connected socket: socket
                          //     lock, skb alloc/free, protocol send and receive (loopback TCP)
  SimTime stream_page_remote;  // ns: per 4 KiB of a socket's data whose other side ran on
                               //     another CPU: the reader's copy pulls lines the writer's
                               //     CPU holds, the writer's fills pages the reader's CPU
                               //     freed (fs/stream_sides.h); each side pays it
  // ---- Faults taken in the kernel on user memory (mm/memory.h do_kernel_copy_fault()) ----
  SimTime fault_from_kernel;  // ns: beyond a user-mode fault, for one taken inside copy_to_user()
                              //     or copy_from_user(): the exception from kernel mode, the
                              //     exception-table lookup, the interrupted copy's restart
  SimTime copy_page_cold;     // ns: copy_to_user() of 4 KiB into a page not in the CPU's caches
                              //     (a read into memory it faulted in), where file_copy_page is
                              //     a copy into cached lines
  // ---- Memory bandwidth (mm/page_alloc.h NodeMemory) ----
  SimTime dram_page_transfer;  // ns: a NUMA node's memory channels moving 4 KiB at their
                               //     sustained bandwidth, all its CPUs together (0: bandwidth
                               //     not modelled, as in both profiles; machine presets set it)
  // ---- Truncation (mm/truncate.h) ----
  SimTime truncate_page;  // ns: truncate_inode_pages_range() per page-cache page dropped, beyond
                          //     its LRU removal and free: lock it, invalidate its buffers,
                          //     delete it from the mapping
  SimTime truncate_blocks_call;  // ns: off CPU, once per truncation that frees blocks on disk:
                                 //     the filesystem's wait for its journal and discards
  SimTime truncate_block;        // ns: off CPU, per page freed whose block was on disk (a clean
                                 //     page: a dirty one under delayed allocation has none)
  // ---- Idle states (sched/core.h) ----
  // A CPU idle for a while is in a deeper state, slower to leave: on bare metal the cpuidle
  // governor's deeper C-state for a longer idle (drivers/cpuidle/governors/menu.c); on a KVM
  // guest the host's halt polling, which keeps a halted vCPU's thread spinning for halt_poll_ns
  // before it sleeps (virt/kvm/kvm_main.c kvm_vcpu_halt()). One step is modelled.
  SimTime deep_idle_after;  // ns: idle this long, a CPU is in its deep state
  SimTime deep_idle_exit;   // ns: beyond wakeup_latency, waking a CPU from its deep state
                            //     (0: one idle state, as in the built-in profiles)
  // ns: beyond ipi_send, the waker's IPI to a CPU in its deep state: on a guest the vCPU's
  // thread has left the host's halt polling and sleeps, and the host's kick must wake it
  // (kvm_vcpu_kick()) before the waker's exit returns. 0 in the built-in profiles: an APIC
  // write costs the same whatever state its target is in.
  SimTime deep_idle_ipi_send;
  // ---- Sizes, not times (cost_size_fields()) ----
  // pages: how many of the pages a CPU freed last its caches still hold, which its pcp list
  // (LIFO) hands out first: a page from deeper in the list is zeroed at clear_page_cold
  // (mm/pcp_high.h PerCpuPages). 0: no bound, as in the built-in profiles, whose lists (and
  // clear_page_cold) make no difference.
  uint64_t pcp_hot_window = 0;
};

// Modern x86 server (Sapphire Rapids / Genoa class, Linux 6.x).
CostProfile cost_profile_default();
// The seeds' machines: 2014-15 Xeon E5 (IvyBridge/Haswell-EP), Linux 3.x-4.x, no PCID use.
CostProfile cost_profile_xeon_2014();
// cost_profile_default() with zram swap instead of NVMe (swap-in ~1.8 us/page, Minchan Kim).
CostProfile cost_profile_zram();
// Sets the swap device's fields of *c (swap_out_page, swap_in_page, swap_in_readahead_page,
// swap_read_submit, swap_io_page) to zram's: a built-in profile's describe its own disk, which a
// run on zram (MachineConfig::swap_device) does not have.
void use_zram_swap_costs(CostProfile* c);
// "default", "xeon-2014" or "zram"; nullopt for another name.
std::optional<CostProfile> find_cost_profile(std::string_view name);

// One CostProfile field by name, for code that reads or writes profiles field by field (the JSON
// loader in replay/, calibrate). The table lists every field once, in declaration order; a test
// checks that it covers the struct (the times, then cost_size_fields()).
struct CostField {
  std::string_view name;
  SimTime CostProfile::*member;
  // Added after profiles were first written: a JSON profile without it (calibrate output of an
  // older build) takes cost_profile_default()'s value instead of being refused.
  bool added_later = false;
};
std::span<const CostField> cost_fields();
// The fields after the times: counts, each in its own unit.
struct CostSizeField {
  std::string_view name;
  std::string_view unit;  // "pages"
  uint64_t CostProfile::*member;
};
std::span<const CostSizeField> cost_size_fields();
// The field called `name`; nullptr for another name.
const CostField* find_cost_field(std::string_view name);

}  // namespace mmreplay::kernelsim

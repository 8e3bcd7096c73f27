#include "kernelsim/costs/cost_profile.h"

namespace mmreplay::kernelsim {

// Figures at ~3 GHz for the default, ~2.5-3 GHz for 2014. Cycle counts from kernel-mm.md are
// converted at those clocks. Fields not in kernel-mm.md are estimates marked (unverified).

CostProfile cost_profile_default() {
  CostProfile c{};
  c.syscall_entry = SimTime::ns(100);      // (unverified) getpid round trip with mitigations
  c.fault_entry = SimTime::ns(400);        // (unverified) minor fault total ~1-2 us, kernel-mm.md
  c.find_vma = SimTime::ns(20);            // (unverified) maple tree lookup
  c.fault_bookkeeping = SimTime::ns(300);  // (unverified) rest of the ~1-2 us minor fault
  c.clear_page = SimTime::ns(300);         // kernel-mm.md: ~0.3 us, 13.7 GB/s (clear_pages 2025)
  c.clear_page_cold = SimTime::zero();     // as clear_page: calibrate measures the difference
  c.copy_page = SimTime::ns(500);          // (unverified) read + write of 4 KiB
  c.page_cache_lookup = SimTime::ns(100);  // (unverified) xarray walk + folio_try_get
  c.user_access = SimTime::ns(2);          // (unverified) L1/L2 hit
  // kernel-mm.md: refilling a 512-entry dTLB ~22,000 cycles (IvyBridge), 43 cycles a walk; at
  // 3 GHz (unverified for a current core, whose walks hit its larger paging-structure caches).
  c.tlb_refill_walk = SimTime::ns(14);
  // Bare metal: the pte update is within fault_bookkeeping (unverified). calibrate measures it:
  // 3.1 us on a PVM guest (shadow page tables), 2026-12-01.
  c.wp_pte_update = SimTime::ns(0);
  // Bare metal: the page walk's locked update of the pte, within user_access's noise
  // (unverified). calibrate measures it: 10-15 us on a PVM guest, 2026-12-01.
  c.pte_ad_update = SimTime::ns(0);
  c.pcp_alloc = SimTime::ns(40);       // (unverified)
  c.pcp_free = SimTime::ns(40);        // (unverified)
  c.buddy_page = SimTime::ns(25);      // (unverified) __rmqueue_smallest per page
  c.pte_walk = SimTime::ns(1);         // (unverified) one 8-byte load
  c.pte_zap = SimTime::ns(20);         // (unverified) ptep_get_and_clear + rmap + gather
  c.pte_lazyfree = SimTime::ns(30);    // (unverified) clear young/dirty + lazyfree batch
  c.pte_mkold = SimTime::ns(30);       // (unverified) clear young + a deactivate batch entry
  c.pte_change_prot = SimTime::ns(5);  // (unverified)
  c.pte_move = SimTime::ns(10);        // (unverified)
  c.lru_add_drain = SimTime::ns(50);   // (unverified)
  c.lru_move_page = SimTime::ns(20);   // (unverified) list_move + PageLRU flags, line hot
  c.shrink_page = SimTime::ns(400);    // (unverified) rmap walk + unmap of one mapping
  c.swap_out_page = SimTime::us(2);    // (unverified) add_to_swap + bio submit, NVMe
  c.swap_in_page = SimTime::us(90);    // kernel-mm.md: NVMe swap-in ~80-100 us (unverified)
  c.swap_in_readahead_page = SimTime::ns(500);  // (unverified) 4 KiB more in one NVMe read
  c.swap_read_submit = SimTime::us(3);          // (unverified) blk-mq, NVMe, completion irq
  c.swap_io_page = SimTime::ns(2000);           // (unverified) as writeback_page: ~2 GB/s
  c.memcg_counter_update = SimTime::ns(40);     // (unverified) ALU ops + irqsave, line hot
  c.memcg_stock = SimTime::ns(10);              // (unverified) local_irq_save + per-CPU load/store
  c.memcg_page = SimTime::ns(30);           // (unverified) pc->mem_cgroup + per-CPU stat updates
  c.bh_lru_irq = SimTime::ns(10);           // (unverified) cli + popf pair, no pending irq
  c.bh_lru_slot = SimTime::ns(1);           // (unverified) one compare / store in L1
  c.find_get_block_slow = SimTime::ns(80);  // (unverified) spin_lock + bh ring walk, uncontended
  c.file_copy_page = SimTime::ns(400);      // (unverified) ~10 GB/s user copy of 4 KiB
  c.fsync_block = SimTime::us(20);          // (unverified) NVMe 4 KiB write + flush
  // (unverified) the journal's blocks written and flushed once more: about fsync_block again
  // (on the development guest's virtio disk 85 us beside a 108 us fsync_block, 2026-12-07)
  c.fsync_commit = SimTime::us(20);
  c.vma_alloc = SimTime::ns(150);           // (unverified)
  c.vma_split = SimTime::ns(200);           // (unverified)
  c.vma_merge = SimTime::ns(100);           // (unverified)
  c.get_unmapped_area = SimTime::ns(50);    // (unverified)
  c.tlb_flush_overhead = SimTime::ns(350);  // Hansen 2014: 1 page 1,276 cycles - 226/page
  c.tlb_flush_single = SimTime::ns(100);    // arch/x86/mm/tlb.c comment: ~100 ns per INVLPG
  c.tlb_flush_full = SimTime::ns(400);      // Hansen 2014: full 2,283 cycles - overhead
  c.ipi_send = SimTime::ns(100);            // (unverified) x2APIC ICR write + csd
  c.ipi_delivery = SimTime::ns(700);        // ATC'17 (Amit): 1-5 us round trip
  c.ipi_handler_entry = SimTime::ns(500);   // ATC'17 (Amit): 1-5 us round trip
  c.invlpgb_per_page = SimTime::ns(30);     // (unverified) AMD Zen 3+ INVLPGB
  c.invlpgb_full = SimTime::ns(100);        // (unverified)
  c.tlbsync = SimTime::ns(600);             // (unverified)
  c.cacheline_transfer = SimTime::ns(90);   // kernel-mm.md: 40-100 ns in a socket (unverified)
  c.atomic_local = SimTime::ns(5);          // (unverified) lock-prefixed RMW, line owned
  c.context_switch = SimTime::ns(1200);     // (unverified) lmbench lat_ctx class figure
  c.switch_mm = SimTime::ns(150);           // (unverified) CR3 write with PCID
  c.wakeup_latency = SimTime::ns(2000);     // (unverified) ttwu + idle exit from C1
  c.thread_create = SimTime::us(10);        // (unverified)
  c.thread_exit = SimTime::us(5);           // (unverified)
  c.mm_create = SimTime::us(30);            // (unverified)
  // (unverified) tlb=pv: a VM exit round trip (~1 us) and the host's IPIs to the pCPUs of the
  // named vCPUs with their acks (as ipi_delivery + ipi_handler_entry); calibrate fits it in its
  // "ipi" group.
  c.pv_flush_tlb_multi = SimTime::ns(2000);
  // Redis latency docs ("Latency generated by fork"): 9-13 ms per GB of RSS on physical x86,
  // i.e. 34-50 ns per 4 KiB page (the page-table copy dominates fork).
  c.fork_pte_copy = SimTime::ns(35);
  c.bh_invalidate_handler = SimTime::ns(60);    // (unverified) irq-off loop over BH_LRU_SIZE slots
  c.migrate_page_rmap = SimTime::ns(600);       // (unverified) anon_vma walk, unmap, remap one pte
  c.migrate_page_mapping = SimTime::ns(300);    // (unverified) xarray replace + bh b_page moves
  c.isolate_page_range = SimTime::us(2);        // (unverified) set/undo MIGRATE_ISOLATE, zone->lock
  c.cma_retry_backoff = SimTime::us(100);       // (unverified) model's back-off between tries
  c.page_cache_miss_read = SimTime::us(20);     // (unverified) NVMe 4 KiB read, readahead amortised
  c.page_cache_read_request = SimTime::zero();  // amortised into page_cache_miss_read (above)
  c.writeback_page = SimTime::ns(2000);         // (unverified) NVMe ~2 GB/s sequential write
  c.writeback_submit = SimTime::ns(300);        // (unverified) set_page_writeback + bio add/submit
  c.pipe_rw = SimTime::ns(300);  // (unverified) lmbench lat_pipe ~4 us round trip is mostly the
                                 //     two wake-ups and switches, which the scheduler models
  c.pipe_buf_page =
      SimTime::ns(250);             // (unverified) alloc_page + memcg charge, put_page + uncharge
  c.socket_rw = SimTime::ns(1500);  // (unverified) loopback TCP send+recv ~3 us per message pair
  c.stream_page_remote = SimTime::zero();  // not charged: calibrate measures it on the machine
  // As page_cache_lookup was before it was split per fault and per page: the seeds' figures hold.
  c.find_get_page = SimTime::ns(100);     // (unverified) xarray walk + folio_try_get
  c.filemap_read_page = SimTime::ns(30);  // (unverified) xas_next + refcount get/put per folio
  // Not charged by the built-in profiles: the seeds' figures (seed 004's mmap latency among them)
  // were validated without it. `calibrate` measures it (an empty one-page munmap).
  c.vma_remove = SimTime::zero();
  c.vma_expand = SimTime::ns(200);  // (unverified) maple tree store of the new end
  c.move_vma = SimTime::ns(500);    // (unverified) checks + copy_vma links + pmd walk setup
  // Distances beyond one socket's cores (sched/topology.h): only a machine with a topology
  // (--machine) charges them, and a machine preset (costs/machine_presets.cpp) replaces them
  // with its own hardware's figures.
  c.cacheline_transfer_smt = SimTime::ns(15);      // (unverified) siblings share L1D and L2
  c.cacheline_transfer_remote = SimTime::ns(180);  // kernel-mm.md: 100-200+ ns across (unverified)
  c.ipi_delivery_remote = SimTime::ns(800);        // (unverified) ipi_delivery + one socket hop
  // Measured on the issue-19 VM: a read() into fresh memory cost ~2 us per page more than one
  // into faulted, cached pages, where a user-mode write fault cost 1.2 us; copies into memory not
  // in the caches ~840 ns per 4 KiB. The split between the two is (unverified) here; calibrate
  // measures both.
  c.fault_from_kernel = SimTime::ns(400);  // (unverified) see above
  c.copy_page_cold = SimTime::ns(800);     // (unverified) 4 KiB write-allocate from DRAM
  c.dram_page_transfer = SimTime::zero();  // not modelled: a machine preset's figure
  c.truncate_page = SimTime::ns(150);      // (unverified) ext4, measured CPU time on a guest
  // A filesystem without online discard frees blocks in memory (unverified: nothing to wait for);
  // calibrate measures what this machine's filesystem waits.
  c.truncate_blocks_call = SimTime::zero();
  c.truncate_block = SimTime::zero();
  // One idle state (unverified: the model before idle depth); calibrate measures the step of the
  // machine it runs on.
  c.deep_idle_after = SimTime::zero();
  c.deep_idle_exit = SimTime::zero();
  c.deep_idle_ipi_send = SimTime::zero();
  return c;
}

CostProfile cost_profile_xeon_2014() {
  CostProfile c = cost_profile_default();
  c.syscall_entry = SimTime::ns(60);          // (unverified) pre-KPTI syscall
  c.fault_entry = SimTime::ns(300);           // (unverified) pre-KPTI exception entry
  c.find_vma = SimTime::ns(40);               // (unverified) rbtree + vmacache (3.15+)
  c.clear_page = SimTime::ns(400);            // (unverified) ~10 GB/s rep stosq on IvyBridge
  c.clear_page_cold = SimTime::zero();        // as clear_page
  c.copy_page = SimTime::ns(650);             // (unverified)
  c.tlb_flush_overhead = SimTime::ns(420);    // Hansen 2014 at 2.5 GHz: ~1,050 cycles
  c.tlb_flush_single = SimTime::ns(100);      // tlb.c comment (Hansen 2014): ~100 ns
  c.tlb_flush_full = SimTime::ns(490);        // Hansen 2014 at 2.5 GHz: 2,283 - 1,050 cycles
  c.tlb_refill_walk = SimTime::ns(17);        // kernel-mm.md: 22,000 cycles / 512 at 2.5 GHz
  c.ipi_delivery = SimTime::ns(900);          // (unverified) xAPIC, no posted interrupts
  c.ipi_handler_entry = SimTime::ns(600);     // (unverified)
  c.cacheline_transfer = SimTime::ns(70);     // (unverified) Haswell-EP ring, one socket
  c.atomic_local = SimTime::ns(6);            // (unverified)
  c.context_switch = SimTime::ns(1500);       // (unverified)
  c.switch_mm = SimTime::ns(300);             // (unverified) CR3 write without PCID = full flush
  c.wakeup_latency = SimTime::ns(4000);       // (unverified) deeper C-states, slower exits
  c.swap_out_page = SimTime::us(3);           // (unverified) SATA SSD, bio submit + AHCI
  c.swap_in_page = SimTime::us(150);          // (unverified) SATA SSD 4 KiB random read ~100-200 us
  c.swap_in_readahead_page = SimTime::us(1);  // (unverified) ~500 MB/s sequential
  // (unverified) 3.x single-queue block layer (elevator, SCSI, libata, AHCI) and its completion
  // interrupt and softirq. This 6.18 PVM guest with virtio-blk spends 20-23 us more CPU on a
  // single-page swap-in (page-cluster 0: 25.7-29.0 us of system time) than on a zero-filled
  // fault (5.3-6.5 us), its VM exits included (2026-12-05, MADV_PAGEOUT then a read of each page).
  c.swap_read_submit = SimTime::us(8);
  // The SATA SSD of swap_in_page and writeback_page, for swap too: ~500 MB/s, reads and writes
  // in one queue (seed 000 names no device; at 8 us its madvfree arm swaps in 928,772 pages at
  // full size against the thread's 879,585, and 2.51M with no device time, when it was set; 2.98M
  // since its swapped-in pages stay dirty, lazyfree_pgdirty=kept, 2026-12-05).
  c.swap_io_page = SimTime::ns(8000);        // (unverified) as writeback_page
  c.memcg_counter_update = SimTime::ns(50);  // (unverified) res_counter_charge_locked()
  c.memcg_stock = SimTime::ns(15);           // (unverified) 3.x local_irq_save + get_cpu_var
  c.memcg_page = SimTime::ns(60);            // (unverified) 3.x page_cgroup lock bit + stat updates
  c.bh_lru_irq = SimTime::ns(15);            // (unverified) IvyBridge cli/popf
  c.find_get_block_slow = SimTime::ns(120);  // (unverified) find_get_page + private_lock, 3.x
  c.file_copy_page = SimTime::ns(550);       // (unverified) ~7.5 GB/s user copy
  c.fsync_block = SimTime::us(200);          // (unverified) SATA SSD write + cache flush
  c.fsync_commit = SimTime::us(200);         // (unverified) as the default: the journal's write
  c.bh_invalidate_handler = SimTime::ns(80);  // (unverified) IvyBridge, 8-16 slots
  c.migrate_page_rmap = SimTime::ns(800);     // (unverified) 3.x anon_vma walk
  c.migrate_page_mapping = SimTime::ns(400);  // (unverified) radix tree replace, 3.x
  c.isolate_page_range = SimTime::us(3);      // (unverified)
  c.cma_retry_backoff = SimTime::us(100);     // (unverified) model's back-off between tries
  c.page_cache_miss_read = SimTime::us(100);  // (unverified) SATA SSD 4 KiB read, some readahead
  c.writeback_page = SimTime::ns(8000);       // (unverified) SATA SSD ~500 MB/s sequential write
  c.writeback_submit = SimTime::ns(400);      // (unverified) 3.x/4.x submit path
  c.pipe_rw = SimTime::ns(400);               // (unverified) default scaled to a 2.5 GHz core
  c.pipe_buf_page = SimTime::ns(300);         // (unverified) default scaled to a 2.5 GHz core
  c.socket_rw = SimTime::ns(2000);            // (unverified) default scaled to a 2.5 GHz core
  c.stream_page_remote = SimTime::zero();     // not charged: calibrate measures it
  // Distances beyond one socket (sched/topology.h), as in the default profile.
  c.cacheline_transfer_smt = SimTime::ns(15);      // (unverified) siblings share L1D and L2
  c.cacheline_transfer_remote = SimTime::ns(140);  // kernel-mm.md: 100-200+ ns across (unverified)
  c.ipi_delivery_remote = SimTime::ns(1000);       // (unverified) ipi_delivery + one QPI hop
  c.fault_from_kernel = SimTime::ns(500);          // (unverified) default scaled to a 2.5 GHz core
  c.copy_page_cold = SimTime::ns(1000);            // (unverified) DDR3, ~4 GB/s per core
  c.dram_page_transfer = SimTime::zero();          // not modelled: a machine preset's figure
  c.truncate_page = SimTime::ns(200);              // (unverified) default scaled to a 2.5 GHz core
  c.truncate_blocks_call = SimTime::zero();        // (unverified) as default: no online discard
  c.truncate_block = SimTime::zero();
  return c;
}

void use_zram_swap_costs(CostProfile* c) {
  c->swap_out_page = SimTime::us(4);              // (unverified) LZO/LZ4 compression of 4 KiB
  c->swap_in_page = SimTime::ns(1800);            // kernel-mm.md: zram ~1.8 us/page (Minchan Kim)
  c->swap_in_readahead_page = SimTime::ns(1800);  // zram decompresses each page: no batching gain
  c->swap_read_submit = SimTime::ns(300);         // (unverified) zram_submit_bio(), no interrupt
  c->swap_io_page = SimTime::zero();              // no device: swap_out_page is the whole write
}

CostProfile cost_profile_zram() {
  CostProfile c = cost_profile_default();
  use_zram_swap_costs(&c);
  c.memcg_counter_update = SimTime::ns(40);  // (unverified) as default: the CPU is the same
  c.memcg_stock = SimTime::ns(10);           // (unverified) as default
  c.memcg_page = SimTime::ns(30);            // (unverified) as default
  // page_cache_miss_read, writeback_page, writeback_submit: the default's NVMe (files are not on
  // zram)
  return c;
}

std::optional<CostProfile> find_cost_profile(std::string_view name) {
  if (name == "default") return cost_profile_default();
  if (name == "xeon-2014") return cost_profile_xeon_2014();
  if (name == "zram") return cost_profile_zram();
  return std::nullopt;
}

// One line per field, in declaration order (append new fields at the end of their section).
constexpr CostField kCostFields[] = {
    {"syscall_entry", &CostProfile::syscall_entry},
    {"fault_entry", &CostProfile::fault_entry},
    {"find_vma", &CostProfile::find_vma},
    {"fault_bookkeeping", &CostProfile::fault_bookkeeping},
    {"clear_page", &CostProfile::clear_page},
    {"clear_page_cold", &CostProfile::clear_page_cold, /*added_later=*/true},
    {"copy_page", &CostProfile::copy_page},
    {"page_cache_lookup", &CostProfile::page_cache_lookup},
    {"user_access", &CostProfile::user_access},
    {"wp_pte_update", &CostProfile::wp_pte_update},
    {"tlb_refill_walk", &CostProfile::tlb_refill_walk, /*added_later=*/true},
    {"pte_ad_update", &CostProfile::pte_ad_update, /*added_later=*/true},
    {"pcp_alloc", &CostProfile::pcp_alloc},
    {"pcp_free", &CostProfile::pcp_free},
    {"buddy_page", &CostProfile::buddy_page},
    {"pte_walk", &CostProfile::pte_walk},
    {"pte_zap", &CostProfile::pte_zap},
    {"pte_lazyfree", &CostProfile::pte_lazyfree},
    {"pte_mkold", &CostProfile::pte_mkold, /*added_later=*/true},
    {"pte_change_prot", &CostProfile::pte_change_prot},
    {"pte_move", &CostProfile::pte_move},
    {"lru_add_drain", &CostProfile::lru_add_drain},
    {"lru_move_page", &CostProfile::lru_move_page},
    {"shrink_page", &CostProfile::shrink_page},
    {"swap_out_page", &CostProfile::swap_out_page},
    {"swap_in_page", &CostProfile::swap_in_page},
    {"swap_in_readahead_page", &CostProfile::swap_in_readahead_page},
    {"swap_read_submit", &CostProfile::swap_read_submit, /*added_later=*/true},
    {"swap_io_page", &CostProfile::swap_io_page, /*added_later=*/true},
    {"bh_lru_irq", &CostProfile::bh_lru_irq},
    {"bh_lru_slot", &CostProfile::bh_lru_slot},
    {"find_get_block_slow", &CostProfile::find_get_block_slow},
    {"file_copy_page", &CostProfile::file_copy_page},
    {"fsync_block", &CostProfile::fsync_block},
    {"vma_alloc", &CostProfile::vma_alloc},
    {"vma_split", &CostProfile::vma_split},
    {"vma_merge", &CostProfile::vma_merge},
    {"get_unmapped_area", &CostProfile::get_unmapped_area},
    {"tlb_flush_overhead", &CostProfile::tlb_flush_overhead},
    {"tlb_flush_single", &CostProfile::tlb_flush_single},
    {"tlb_flush_full", &CostProfile::tlb_flush_full},
    {"ipi_send", &CostProfile::ipi_send},
    {"ipi_delivery", &CostProfile::ipi_delivery},
    {"ipi_handler_entry", &CostProfile::ipi_handler_entry},
    {"invlpgb_per_page", &CostProfile::invlpgb_per_page},
    {"invlpgb_full", &CostProfile::invlpgb_full},
    {"tlbsync", &CostProfile::tlbsync},
    {"cacheline_transfer", &CostProfile::cacheline_transfer},
    {"atomic_local", &CostProfile::atomic_local},
    {"context_switch", &CostProfile::context_switch},
    {"switch_mm", &CostProfile::switch_mm},
    {"wakeup_latency", &CostProfile::wakeup_latency},
    {"thread_create", &CostProfile::thread_create},
    {"thread_exit", &CostProfile::thread_exit},
    {"mm_create", &CostProfile::mm_create},
    {"fork_pte_copy", &CostProfile::fork_pte_copy},
    {"memcg_counter_update", &CostProfile::memcg_counter_update},
    {"memcg_stock", &CostProfile::memcg_stock},
    {"memcg_page", &CostProfile::memcg_page},
    {"bh_invalidate_handler", &CostProfile::bh_invalidate_handler},
    {"migrate_page_rmap", &CostProfile::migrate_page_rmap},
    {"migrate_page_mapping", &CostProfile::migrate_page_mapping},
    {"isolate_page_range", &CostProfile::isolate_page_range},
    {"cma_retry_backoff", &CostProfile::cma_retry_backoff},
    {"page_cache_miss_read", &CostProfile::page_cache_miss_read},
    {"page_cache_read_request", &CostProfile::page_cache_read_request, /*added_later=*/true},
    {"writeback_page", &CostProfile::writeback_page},
    {"writeback_submit", &CostProfile::writeback_submit},
    {"pipe_rw", &CostProfile::pipe_rw, /*added_later=*/true},
    {"pipe_buf_page", &CostProfile::pipe_buf_page, /*added_later=*/true},
    {"socket_rw", &CostProfile::socket_rw, /*added_later=*/true},
    {"stream_page_remote", &CostProfile::stream_page_remote, /*added_later=*/true},
    {"find_get_page", &CostProfile::find_get_page, /*added_later=*/true},
    {"filemap_read_page", &CostProfile::filemap_read_page, /*added_later=*/true},
    {"vma_remove", &CostProfile::vma_remove, /*added_later=*/true},
    {"vma_expand", &CostProfile::vma_expand, /*added_later=*/true},
    {"move_vma", &CostProfile::move_vma, /*added_later=*/true},
    {"cacheline_transfer_smt", &CostProfile::cacheline_transfer_smt, /*added_later=*/true},
    {"cacheline_transfer_remote", &CostProfile::cacheline_transfer_remote, /*added_later=*/true},
    {"ipi_delivery_remote", &CostProfile::ipi_delivery_remote, /*added_later=*/true},
    {"fault_from_kernel", &CostProfile::fault_from_kernel, /*added_later=*/true},
    {"copy_page_cold", &CostProfile::copy_page_cold, /*added_later=*/true},
    {"pv_flush_tlb_multi", &CostProfile::pv_flush_tlb_multi, /*added_later=*/true},
    {"dram_page_transfer", &CostProfile::dram_page_transfer, /*added_later=*/true},
    {"truncate_page", &CostProfile::truncate_page, /*added_later=*/true},
    {"truncate_blocks_call", &CostProfile::truncate_blocks_call, /*added_later=*/true},
    {"truncate_block", &CostProfile::truncate_block, /*added_later=*/true},
    {"deep_idle_after", &CostProfile::deep_idle_after, /*added_later=*/true},
    {"deep_idle_exit", &CostProfile::deep_idle_exit, /*added_later=*/true},
    {"deep_idle_ipi_send", &CostProfile::deep_idle_ipi_send, /*added_later=*/true},
    {"fsync_commit", &CostProfile::fsync_commit, /*added_later=*/true},
};

std::span<const CostField> cost_fields() {
  return kCostFields;
}

constexpr CostSizeField kCostSizeFields[] = {
    {"pcp_hot_window", "pages", &CostProfile::pcp_hot_window},
};

std::span<const CostSizeField> cost_size_fields() {
  return kCostSizeFields;
}

const CostField* find_cost_field(std::string_view name) {
  for (const CostField& f : kCostFields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace mmreplay::kernelsim

// Kernel constants the model uses, under their kernel names. Each carries the kernel version it
// belongs to and where it comes from. Costs are not here: they are data (costs/cost_profile.h).
//
// Names keep the kernel's spelling, including its lower-case sysctls, so that a grep for the
// kernel symbol finds the model's use of it.

#pragma once

#include <cstdint>

namespace mmreplay::kernelsim {

// ---- Pages and page tables (x86-64, 4-level paging) ----------------------------------------
inline constexpr uint64_t PAGE_SHIFT = 12;  // arch/x86/include/asm/page_types.h
inline constexpr uint64_t PAGE_SIZE = uint64_t{1} << PAGE_SHIFT;
// include/linux/mm.h: PAGE_ALIGN(addr), a length or address rounded up to the next page.
inline constexpr uint64_t PAGE_ALIGN(uint64_t addr) {
  return (addr + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}
inline constexpr uint64_t PMD_SHIFT = 21;  // one PTE page maps 2 MiB
inline constexpr uint64_t PMD_SIZE = uint64_t{1} << PMD_SHIFT;
inline constexpr uint64_t PTRS_PER_PTE = 512;

// Highest user address + 1 on x86-64 with 4-level paging (TASK_SIZE_MAX = 2^47 - PAGE_SIZE).
inline constexpr uint64_t TASK_SIZE = (uint64_t{1} << 47) - PAGE_SIZE;
// Lowest address mmap may hand out (/proc/sys/vm/mmap_min_addr default, 64 KiB).
inline constexpr uint64_t mmap_min_addr = 65536;
// The model's mmap_base: TASK_SIZE minus the 8 MiB default stack rlimit gap, rounded down to
// 1 GiB, without ASLR (arch/x86/mm/mmap.c: mmap_base()); a fixed value keeps replays deterministic.
inline constexpr uint64_t MODEL_MMAP_BASE =
    (TASK_SIZE - (uint64_t{8} << 20)) & ~((uint64_t{1} << 30) - 1);

// ---- CPUs -------------------------------------------------------------------------------------
// Largest machine the model supports (CONFIG_NR_CPUS is 8192 on distro kernels; 1024 is the
// DESIGN.md requirement and keeps mm_cpumask at 128 bytes).
inline constexpr uint32_t NR_CPUS = 1024;

// ---- mmap / madvise ABI (include/uapi/asm-generic/mman-common.h, mman.h) --------------------
inline constexpr uint32_t PROT_NONE = 0x0;
inline constexpr uint32_t PROT_READ = 0x1;
inline constexpr uint32_t PROT_WRITE = 0x2;
inline constexpr uint32_t PROT_EXEC = 0x4;
inline constexpr uint32_t MAP_SHARED = 0x01;
inline constexpr uint32_t MAP_PRIVATE = 0x02;
inline constexpr uint32_t MAP_FIXED = 0x10;
inline constexpr uint32_t MAP_ANONYMOUS = 0x20;
inline constexpr uint32_t MREMAP_MAYMOVE = 1;
inline constexpr uint32_t MREMAP_FIXED = 2;
inline constexpr uint32_t MREMAP_DONTUNMAP = 4;  // 5.7+, e346b3813067: the old range stays, empty
// arch/x86/include/asm/trap_pf.h: page-fault error code bit, set when the fault came from user
// mode (clear for one taken in the kernel's copy_to_user()/copy_from_user()).
inline constexpr uint32_t X86_PF_USER = 1u << 2;
inline constexpr int MADV_NORMAL = 0;
inline constexpr int MADV_RANDOM = 1;
inline constexpr int MADV_SEQUENTIAL = 2;
inline constexpr int MADV_WILLNEED = 3;
inline constexpr int MADV_DONTNEED = 4;
inline constexpr int MADV_FREE = 8;  // 4.5+, 854e9ed09ded
inline constexpr int MADV_DONTFORK = 10;
inline constexpr int MADV_DOFORK = 11;
inline constexpr int MADV_MERGEABLE = 12;  // 2.6.32+, KSM
inline constexpr int MADV_UNMERGEABLE = 13;
inline constexpr int MADV_HUGEPAGE = 14;
inline constexpr int MADV_NOHUGEPAGE = 15;
inline constexpr int MADV_DONTDUMP = 16;
inline constexpr int MADV_DODUMP = 17;
inline constexpr int MADV_WIPEONFORK = 18;  // 4.14+
inline constexpr int MADV_KEEPONFORK = 19;
inline constexpr int MADV_COLD = 20;            // 5.4+, 9c276cc65a58
inline constexpr int MADV_PAGEOUT = 21;         // 5.4+, 1a4e58cce84e
inline constexpr int MADV_POPULATE_READ = 22;   // 5.14+, 4ca9b3859dac
inline constexpr int MADV_POPULATE_WRITE = 23;  // 5.14+
// include/linux/mm.h: the vm_flags bits that madvise() advice sets (Vma::vm_flags holds these).
inline constexpr uint32_t VM_SEQ_READ = 0x00008000;    // MADV_SEQUENTIAL
inline constexpr uint32_t VM_RAND_READ = 0x00010000;   // MADV_RANDOM
inline constexpr uint32_t VM_DONTCOPY = 0x00020000;    // MADV_DONTFORK
inline constexpr uint32_t VM_WIPEONFORK = 0x02000000;  // MADV_WIPEONFORK
inline constexpr uint32_t VM_DONTDUMP = 0x04000000;    // MADV_DONTDUMP
inline constexpr uint32_t VM_HUGEPAGE = 0x20000000;    // MADV_HUGEPAGE
inline constexpr uint32_t VM_NOHUGEPAGE = 0x40000000;  // MADV_NOHUGEPAGE
inline constexpr uint32_t VM_MERGEABLE = 0x80000000;   // MADV_MERGEABLE
// errno values returned by the modelled syscalls (include/uapi/asm-generic/errno-base.h),
// prefixed because libc defines EFAULT etc. as macros.
inline constexpr int ERRNO_EFAULT = 14;
inline constexpr int ERRNO_ENOMEM = 12;
inline constexpr int ERRNO_EINVAL = 22;
inline constexpr int ERRNO_EBUSY = 16;

// ---- TLB and mmu_gather ---------------------------------------------------------------------
// arch/x86/mm/tlb.c: ranges up to this many pages are flushed with one INVLPG per page, larger
// ones with a full flush (3.17+, a5102476a24b; earlier 8, or 128 on IvyBridge).
inline constexpr uint64_t tlb_single_page_flush_ceiling = 33;
// ASIDs a CPU keeps mms' translations under with PCID (arch/x86/include/asm/tlbflush.h, 4.14+).
inline constexpr uint32_t TLB_NR_DYN_ASIDS = 6;
// include/asm-generic/tlb.h (3.8+): pages per gather batch and batches per gather; a gather
// that fills MAX_GATHER_BATCH_COUNT batches forces a flush before queueing more pages.
inline constexpr uint64_t MMU_GATHER_BUNDLE = 8;
inline constexpr uint64_t MAX_GATHER_BATCH = 510;
inline constexpr uint64_t MAX_GATHER_BATCH_COUNT = 19;

// ---- rwsem (kernel/locking/rwsem.c, 5.3+ rewrite by Waiman Long) ------------------------------
// A waiter that has waited this long sets the handoff bit: no more stealing or spinning past it.
// RWSEM_WAIT_TIMEOUT = DIV_ROUND_UP(HZ, 250) jiffies, i.e. 4 ms at HZ=250 or HZ=1000.
inline constexpr int64_t RWSEM_WAIT_TIMEOUT_NS = 4'000'000;
// At most this many readers are woken by one rwsem_mark_wake() (0x100).
inline constexpr uint32_t MAX_READERS_WAKEUP = 256;
// rwsem_rspin_threshold(): a writer spins on a reader-owned rwsem for (20 + readers) / 2 us,
// readers capped at 30, i.e. from 10 us up to 25 us.
inline constexpr int64_t RWSEM_RSPIN_BASE_HALF_US = 20;
inline constexpr uint32_t RWSEM_RSPIN_MAX_READERS = 30;

// ---- Page allocator (mm/page_alloc.c) ---------------------------------------------------------
// zone_batchsize(): a zone's per-CPU batch is about a thousandth of its pages, at most 1 MiB of
// them, quartered and rounded down to 2^n - 1 (page_alloc.h pcp_batch_of_zone()): 63 on any zone
// of 1 GiB or more, 1 on a 32 MiB one. pageset_set_batch(): high = 6 * batch before 5.14.
inline constexpr uint64_t PCP_BATCH_ZONE_FRACTION = 1024;  // "around 1000th of the zone"
inline constexpr uint64_t PCP_BATCH_MAX_BYTES = 1024 * 1024;
inline constexpr uint32_t PCP_HIGH_BATCHES = 6;
inline constexpr uint32_t PCP_BATCH = 63;  // the batch of a zone of 1 GiB or more
inline constexpr uint32_t PCP_HIGH = PCP_HIGH_BATCHES * PCP_BATCH;
// 5.14+ (zone_highsize()): high is the zone's low watermark split over the node's CPUs, and at
// least batch << 2; 6.7+ tunes it between that and managed pages / this fraction split likewise
// (MIN_PERCPU_PAGELIST_HIGH_FRACTION, the high_max of zone_set_pageset_high_and_batch()).
inline constexpr uint32_t PCP_HIGH_MIN_BATCHES_SHIFT = 2;
inline constexpr uint64_t MIN_PERCPU_PAGELIST_HIGH_FRACTION = 8;
// CONFIG_PCP_BATCH_SCALE_MAX (6.7+, default 5): a refill or a drain is at most batch << 5 pages,
// and free_count counts consecutive frees up to that.
inline constexpr uint32_t PCP_BATCH_SCALE_MAX = 5;
// sysctl_stat_interval = HZ: vmstat_update() runs every second on each CPU, and with it 6.7+'s
// decay_pcp_high().
inline constexpr int64_t VMSTAT_INTERVAL_NS = 1'000'000'000;

// ---- The zones below the model's one zone (x86-64) --------------------------------------------
// arch/x86/include/asm/dma.h: MAX_DMA_PFN: ZONE_DMA is the memory below 16 MiB.
inline constexpr uint64_t MAX_DMA_PFN = (uint64_t{16} << 20) >> PAGE_SHIFT;
// mm/page_alloc.c: sysctl_lowmem_reserve_ratio[ZONE_DMA] = 256: ZONE_DMA keeps 1/256 of the pages
// of the zones above it from their allocations (setup_per_zone_lowmem_reserve()).
inline constexpr uint64_t LOWMEM_RESERVE_RATIO_DMA = 256;

// ---- LRU, reclaim (used by the memory-pressure model; kept here with their kernel names) ----
inline constexpr uint32_t SWAP_CLUSTER_MAX = 32;  // include/linux/swap.h, all versions
// mm/vmscan.c: reclaim's first priority; a pass scans lru_size >> priority pages of each list.
inline constexpr uint32_t DEF_PRIORITY = 12;
// include/linux/pagevec.h: pages per per-CPU LRU batch: PAGEVEC_SIZE 14 in 3.x, 15 from ~4.15
// (version unverified, kernel-mm.md section 2), and 31 in the folio_batch of 6.9+ (9cecde80aae0).
// The model takes it from knob pagevec_size.
inline constexpr uint32_t PAGEVEC_SIZE_3X = 14;
inline constexpr uint32_t PAGEVEC_SIZE = 15;
inline constexpr uint32_t PAGEVEC_SIZE_FOLIO_BATCH = 31;
// mm/page_alloc.c: init_per_zone_wmark_min(): min_free_kbytes = int_sqrt(lowmem_kb * 16),
// clamped to [128, 65536] KB (3.x-5.6); the upper clamp is 262144 KB in later kernels (unverified
// version, kernel-mm.md section 7).
inline constexpr uint64_t MIN_FREE_KBYTES_FLOOR = 128;
inline constexpr uint64_t MIN_FREE_KBYTES_CEIL_3X = 65536;
inline constexpr uint64_t MIN_FREE_KBYTES_CEIL = 262144;
// mm/huge_memory.c: set_recommended_min_free_kbytes(), run when THP starts (khugepaged): at least
// pageblock_nr_pages * nr_zones * (2 + MIGRATE_PCPTYPES^2) pages free, at most 5% of lowmem; it
// only ever raises min_free_kbytes. pageblock_nr_pages is 1 << HPAGE_PMD_ORDER (512 on x86-64);
// MIGRATE_PCPTYPES = 3 (unmovable, movable, reclaimable; include/linux/mmzone.h).
inline constexpr uint64_t pageblock_nr_pages = 512;
inline constexpr uint64_t MIGRATE_PCPTYPES = 3;
// mm/page_alloc.c (4.6+, 795ae7a0de6b): /proc/sys/vm/watermark_scale_factor default, in 1/10000
// of the zone's managed pages.
inline constexpr uint64_t watermark_scale_factor = 10;
// mm/internal.h (4.11+): reclaim rounds without progress before the allocation gives up, and
// kswapd's failure count before it stops trying (kswapd_failures).
inline constexpr uint32_t MAX_RECLAIM_RETRIES = 16;
// mm/swap.c: /proc/sys/vm/page-cluster: swap-in readahead reads 2^page_cluster pages.
inline constexpr uint32_t page_cluster = 3;
// mm/swap_state.c (4.14+): the VMA readahead window is at most 2^SWAP_RA_ORDER_CEILING pages on
// 64-bit (3 on 32-bit), and vma->swap_readahead_info counts at most SWAP_RA_HITS_MAX hits (its
// low PAGE_SHIFT / 2 bits). Hits start at SWAP_RA_INITIAL_HITS, the device's
// (swapin_readahead_hits = ATOMIC_INIT(4)) and a VMA's (GET_SWAP_RA_VAL(): "?: 4"), "to start up
// with a small window": a first swap-in reads 2^page_cluster pages.
inline constexpr uint32_t SWAP_RA_ORDER_CEILING = 5;
inline constexpr uint32_t SWAP_RA_HITS_MAX = (1u << (PAGE_SHIFT / 2)) - 1;
inline constexpr uint32_t SWAP_RA_INITIAL_HITS = 4;

// One jiffy at CONFIG_HZ=250 (the distributions' default): __alloc_pages_may_oom() backs off
// schedule_timeout_uninterruptible(1) while an OOM victim is still freeing its memory.
inline constexpr int64_t JIFFY_NS = 4'000'000;
// mm/vmscan.c: kswapd_try_to_sleep(): the short nap after reaching high, schedule_timeout(HZ/10).
inline constexpr int64_t KSWAPD_NAP_NS = 100'000'000;
// arch/x86/mm/tlb.c (6.14+, 6db2526c1d69): should_trim_cpumask(): a flush also reaches the CPUs
// of mm_cpumask that run another mm, so that they leave it, at most once every HZ (one second).
inline constexpr int64_t MM_CPUMASK_TRIM_INTERVAL_NS = 1'000'000'000;
// mm/page-writeback.c: /proc/sys/vm/dirty_background_ratio and dirty_ratio defaults (percent of
// dirtyable memory), and balance_dirty_pages()'s longest pause, MAX_PAUSE = HZ/5.
inline constexpr uint64_t dirty_background_ratio = 10;
inline constexpr uint64_t vm_dirty_ratio = 20;
inline constexpr int64_t MAX_PAUSE_NS = 200'000'000;
// fs/fs-writeback.c: pages written per writeback round, MAX_WRITEBACK_PAGES = 4096 KB / page.
inline constexpr uint64_t MAX_WRITEBACK_PAGES = 1024;
// include/linux/mm.h: the default readahead window, VM_READAHEAD_PAGES = SZ_128K / PAGE_SIZE
// (VM_MAX_READAHEAD 128 KB before 5.4); /sys/block/*/queue/read_ahead_kb sets it per device.
inline constexpr uint32_t VM_READAHEAD_KB = 128;
// mm/memory.c (3.15+): a read fault on a file mapping also maps the cached pages around it, up to
// fault_around_bytes = rounddown_pow_of_two(65536) aligned to that size (do_fault_around()).
inline constexpr uint32_t FAULT_AROUND_BYTES = 65536;
// mm/filemap.c: once a file's mappings have missed the page cache this many more times than they
// hit it, a fault reads its page alone instead of a read-around window, MMAP_LOTSAMISS = 100.
inline constexpr uint32_t MMAP_LOTSAMISS = 100;
// include/linux/blkdev.h: a device's max_sectors when its driver sets no lower one,
// BLK_DEF_MAX_SECTORS = 2560 (1280 KiB; 4.x+), in 512-byte sectors (SECTOR_SHIFT): bdi->io_pages,
// up to which a read larger than the window is read ahead whole (ondemand_readahead(), 4.10+,
// 9491ae4aade6 "mm: don't cap request size based on read-ahead setting").
inline constexpr uint64_t BLK_DEF_MAX_SECTORS = 2560;
inline constexpr uint64_t SECTOR_SHIFT = 9;
// include/linux/blkdev.h: a request queue's default depth (nr_requests), BLKDEV_MAX_RQ = 128
// (BLKDEV_DEFAULT_RQ since 5.x): a writer whose request finds that many in flight sleeps until
// one completes (get_request(); blk-mq: blk_mq_get_tag()). Reclaim's swap writes queue there.
inline constexpr uint64_t BLKDEV_DEFAULT_RQ = 128;
// lib/sbitmap.c: a waiter for a request tag is woken once this many tags have been freed
// (sbq_calc_wake_batch(): depth / SBQ_WAIT_QUEUES clamped to SBQ_WAKE_BATCH = 8, 8 at depth 128),
// so a writer that slept for one submits that many before it can sleep again.
inline constexpr uint64_t SBQ_WAKE_BATCH = 8;

// ---- Buffer heads (fs/buffer.c)
// ------------------------------------------------------------------ Per-CPU bh_lru entries: 8,
// raised to 16 in 3.18 (86cf78d73de8: creating a file in a large ext4 directory with quota touches
// about 9 buffer heads). The model takes it from policy bh_lru_size.
inline constexpr uint32_t BH_LRU_SIZE = 16;
inline constexpr uint32_t BH_LRU_SIZE_PRE_3_18 = 8;
// The model's file-system block size: mke2fs.conf's ext4 default blocksize (one buffer head per
// 4 KiB page); MachineConfig::fs_block_size may pick a smaller power of two (1 KiB .. PAGE_SIZE).
inline constexpr uint64_t EXT4_DEFAULT_BLOCK_SIZE = 4096;

// ---- Memory cgroups (mm/memcontrol.c) --------------------------------------------------------
// Pages charged to the counter at once and kept in the per-CPU stock (memcg_stock_pcp):
// CHARGE_BATCH 32 in 3.x, MEMCG_CHARGE_BATCH 64 from 6.1 (kernel-mm.md section 5). The model
// takes it from policy charge_batch.
inline constexpr uint32_t CHARGE_BATCH = 32;
inline constexpr uint32_t MEMCG_CHARGE_BATCH = 64;
// try_charge(): reclaim rounds on the group before it declares a memcg OOM (3.x-5.x;
// MAX_RECLAIM_RETRIES since 5.9, unverified version).
inline constexpr uint32_t MEM_CGROUP_RECLAIM_RETRIES = 5;
// ---- Predictive reclaim (seed 003's RFC, mm/lsq.c)
// ------------------------------------------------ (time, free pages) samples in the least-squares
// lookback window; the model takes the window from knob predict_window.
inline constexpr uint32_t LSQ_LOOKBACK = 8;
// ---- Contiguous allocation (mm/cma.c, mm/page_alloc.c, mm/migrate.c) -------------------------
// mm/Kconfig CMA_SIZE_MBYTES: the default size of the global CMA area (cma= on the command line
// overrides it). The replay layer's CMA area when the run does not give one.
inline constexpr uint64_t CMA_SIZE_MBYTES = 16;
// mm/page_alloc.c __alloc_contig_migrate_range(): migrate_pages() rounds over the same isolated
// pages before the range is given up with -EBUSY (`if (++tries == 5)`, 3.x-6.x).
inline constexpr uint32_t ALLOC_CONTIG_MIGRATE_TRIES = 5;

// ---- Scheduler --------------------------------------------------------------------------------
// kernel/sched/fair.c: normalized_sysctl_sched_base_slice (6.6+ EEVDF) = 0.75 ms, the same value
// as normalized_sysctl_sched_min_granularity in 3.x-6.5 CFS; normalized_sysctl_sched_latency =
// 6 ms, CFS's period while at most sched_nr_latency tasks share a CPU. update_sysctl() scales
// each by get_update_sysctl_factor(): 1 + ilog2(min(online CPUs, 8)) under the default
// SCHED_TUNABLESCALING_LOG (sched/time_slice.h).
inline constexpr int64_t normalized_sysctl_sched_base_slice_ns = 750'000;
inline constexpr int64_t normalized_sysctl_sched_latency_ns = 6'000'000;
inline constexpr uint32_t sched_nr_latency = 8;
// normalized_sysctl_sched_wakeup_granularity (3.x-6.5 CFS) = 1 ms, scaled alike: how far behind
// the running task in vruntime a wakee must be to preempt it (wakeup_preempt_entity()).
inline constexpr int64_t normalized_sysctl_sched_wakeup_granularity_ns = 1'000'000;
inline constexpr uint32_t SCHED_TUNABLESCALING_MAX_CPUS = 8;  // the min() in the factor
// The scheduler tick's period, TICK_NSEC at CONFIG_HZ=250 (JIFFY_NS above): the tick is where a
// task that used up its slice is marked for resched (task_tick_fair(); HRTICK is off by default).
inline constexpr int64_t TICK_NSEC = JIFFY_NS;
// kernel/sched/sched.h: wake flag of a waker about to sleep (pipe_write() and pipe_read() wake
// the other side with wake_up_interruptible_sync_poll()); select_task_rq_fair() may then pull the
// wakee to the waker's CPU (sched/wake_affine.h).
inline constexpr uint32_t WF_SYNC = 0x10;
// kernel/sched/fair.c: sysctl_sched_migration_cost = 0.5 ms: a task that ran that recently is
// cache hot (task_hot(): not pulled by a newly idle CPU), and a CPU whose idle periods average
// less (rq->avg_idle) does not look for one at all (sched_balance_newidle()). A CPU starts with
// avg_idle at twice it (sched_init()), and update_avg() moves it an eighth of the way to each
// idle period's length.
inline constexpr int64_t sysctl_sched_migration_cost_ns = 500'000;
inline constexpr int64_t AVG_IDLE_WEIGHT = 8;

}  // namespace mmreplay::kernelsim

// The fault path and the zap path (mm/memory.c, arch/x86/mm/fault.c).
//
// do_user_addr_fault() takes the fault lock the policy names (mmap_sem for read, or the per-VMA
// lock with fallback), finds the VMA, checks access and runs handle_mm_fault():
//   - none, anonymous:  read -> map the zero page; write -> alloc + clear_page + map
//                       (do_anonymous_page());
//   - none, file:       filemap_fault() finds the page in the page cache or reads it (a major
//                       fault, mm/filemap_fault.h); a read or a shared write maps it (the page's
//                       mapcount, PageCache::mapcount()), a shared write dirties it, a private
//                       write copies it (do_cow_fault());
//   - mapped clean page-cache page of a shared mapping, write: the page is dirtied
//     (wp_page_shared());
//   - mapped zero page or unowned private file page, write: copy into a new page (do_wp_page());
//   - mapped otherwise: spurious (another thread got there first), young/dirty updated; a write
//     to a lazyfree page makes it normal again;
//   - swapped: do_swap_page(): a major fault; the task waits off CPU for one read of the
//     readahead window (mm/swap_readahead.h: swap_in_page + swap_in_readahead_page per further
//     swapped page); the other swapped pages of the window are mapped clean too and keep their
//     slots in the swap cache (swapfile.h) until each is faulted; on a read fault the page keeps
//     its slot while swap is at most half full, and a write fault frees it; before 6.11
//     (swapin_pte=read-only) the page is mapped read-only and its first write's fault frees it
//     (do_wp_page() -> reuse_swap_page()). On a synchronous device (zram) the read is CPU time,
//     not a wait, and since 4.15 (sync_swapin=skip-swapcache) the page is read alone, with no
//     readahead, and its slot is freed at once.
// Every new own page gets a PageFrame and goes to this CPU's lru_add batch (mm/lru.h); zap drops
// it (page_remove_rmap()) and frees swap slots of swapped ptes; zap of a pte that maps a
// page-cache page drops the page's mapcount and moves a dirty pte's dirty bit to the page.
// Allocations go through alloc_pages() (watermarks, kswapd, direct reclaim). A PTE page is
// allocated on the first fault in each 2 MiB region (pte_alloc()). The pte is set after a sync
// point (the PTL), rechecking for a racing fault.
//
// zap_pte_range() clears a VMA range into an mmu_gather; free_pgtables() frees the PTE pages
// no VMA covers any more.
//
// Fork (kernel/fork.h): copy_page_range() gives the child the parent's ptes. An own page becomes
// fork-shared (pte bit kCowShared in both, Mm invariant (4)): the parent keeps the frame, the
// child maps it without owning it. A read shares it; a write copies it (do_wp_page() ->
// wp_page_copy(), fault_cow), except in the owner once no one else maps it, which reuses it
// (wp_page_reuse(), fault_wp_reuse). When the owner copies or zaps a page still mapped by the
// other side, the frame passes to that side (the kernel's page stays while its mapcount > 0).
// A swapped pte is copied as it is: parent and child hold one entry (mm/swap_count.h), and
// reclaim of a fork-shared page gives its fork peers' ptes the entry too. Known simplification:
// the mappers found are the owner's direct fork peers (a grandchild mapping the page through its
// parent is not), as for a write's copy (cow_sharer()).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
class Mm;
class Simulation;
struct Vma;
class MmuGather;
struct CostProfile;

enum class FaultResult : uint8_t { kMapped, kSpurious, kSegv, kOom };

// Models arch/x86/mm/fault.c: do_user_addr_fault() for a user fault at addr.
// REQUIRES: t holds no lock of t.mm().
Co<FaultResult> do_user_addr_fault(Task& t, uint64_t addr, bool write);

// The work a user fault that copies a write-protected page (do_wp_page() -> wp_page_copy(), which
// sets Task::wp_copied) does beyond a zero-fill fault's (do_anonymous_page()): copy_page in place
// of clear_page, the pte update and the one-page local flush of the old pte. A recorded gap after
// such a fault holds it on top of the zero-fill fault the recorder measured (formats/
// think_time.h); 0 when the profile's copy is no dearer than a clear.
SimTime wp_copy_surplus(const CostProfile& c);

// Whether a page a read fault brought back from swap is mapped write-protected, so that its first
// write faults (policy swapin_pte=read-only, before 6.11): pte::swapped_in_read_only().
bool swapin_write_protects(const Simulation& sim);

// Whether a swap-in skips the swap cache and readahead (do_swap_page()'s SWP_SYNCHRONOUS_IO
// branch, 4.15+: policy sync_swapin=skip-swapcache on a synchronous device). The kernel also
// asks that no other pte holds the entry (__swap_count() == 1); the model's swap entries are
// never shared (fork does not copy them), so that always holds.
bool swapin_skips_swap_cache(const Simulation& sim);

// Models the same fault taken in kernel mode, inside a syscall's copy_to_user() or
// copy_from_user() (do_user_addr_fault() with !user_mode(regs); the trace's kernel-mode faults
// replay right after their syscall). Beyond the user-mode fault it pays fault_from_kernel (the
// exception from kernel mode, the exception-table lookup, the copy's restart) and, for a write
// fault that mapped a page, the copy of that page into memory not in the caches: copy_page_cold
// instead of the file_copy_page the syscall charged for it.
// REQUIRES: as do_user_addr_fault().
Co<FaultResult> do_kernel_copy_fault(Task& t, uint64_t addr, bool write);

// True when a present pte of a file-backed vma maps a page-cache page (not a page of its own or
// the zero page): the page PageCache::mapcount() counts it on.
bool maps_page_cache(const Vma& vma, uint8_t p);

// The page-cache frame a pte that maps_page_cache() maps: the page is in the cache while mapped
// (PageCache invariant (3)).
uint32_t mapped_page_cache_frame(const Simulation& sim, const Vma& vma, uint64_t addr);

// Models mm/memory.c: handle_mm_fault() on a VMA.
// REQUIRES: mmap_sem held for read, or vma's per-VMA lock held for read; access checked.
Co<FaultResult> handle_mm_fault(Task& t, Vma& vma, uint64_t addr, bool write);

// Models the pmd level of a page-table walk over [addr, end) of vma (zap_pmd_range(),
// change_pmd_range(), walk_pmd_range()): pmd_none() entries, regions without a PTE page, are
// skipped at one pte_walk each. Returns the first address in a populated region, or end.
uint64_t skip_pmd_none(Task& t, const Vma& vma, uint64_t addr, uint64_t end);

// Host-side only, no simulated effect: starts loading the frame of mm's own page at `addr` (if
// any) into the host cache. Page walks call it a few pages ahead (kFramePrefetchPages), so the
// cache miss on a frame -- frames are touched in no useful order -- overlaps the pages before it.
inline constexpr uint64_t kFramePrefetchPages = 8;
void prefetch_anon_frame(Simulation& sim, const Mm& mm, uint64_t addr);

// Models unmap_page_range() / zap_pte_range() for [start, end) of vma. Returns the number of
// present ptes cleared.
// REQUIRES: mmap_sem held (read or write); [start, end) inside vma, page aligned.
Co<uint64_t> zap_pte_range(Task& t, Vma& vma, uint64_t start, uint64_t end, MmuGather& tlb);

// Models copy_page_range() (mm/memory.c) of one VMA at fork: src's ptes into dst, private own
// pages fork-shared in both (copy_present_pte(): write-protected, the child's pte old); shared
// mappings are not copied (vma_needs_copy(): the child faults them in). Returns false when a PTE
// page could not be allocated.
// REQUIRES: src_mm's mmap_sem held for write; dst a fresh copy of src's range in dst_mm.
Co<bool> copy_page_range(Task& t, Mm& dst_mm, Vma& dst, Mm& src_mm, Vma& src);

// The model's page_mapcount() > 1 for a fork-shared page: the mm, other than mm, that maps the
// page at addr without owning it (one of mm.cow_peers), or nullptr.
Mm* cow_sharer(const Mm& mm, uint64_t addr);

// Models free_pgtables(): queues into tlb the PTE pages of [start, end) that no VMA covers now.
// REQUIRES: mmap_sem held for write; the VMAs of the range already removed.
void free_pgtables(Task& t, Mm& mm, uint64_t start, uint64_t end, MmuGather& tlb);

}  // namespace mmreplay::kernelsim

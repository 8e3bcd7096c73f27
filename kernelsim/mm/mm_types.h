// Mm: one address space (struct mm_struct).
//
// Owned by the Simulation; tasks and CPUs point at it. Holds mmap_sem, the VMA tree, the PTE
// pages, mm_cpumask, the TLB generation, brk and the per-VMA lock sequence.
//
// Invariants:
//  (1) rss_anon == number of ptes with kOwnPage mapped (present or lazyfree) in its VMAs
//      == anon_pages.size(); swapents == number of ptes in state swapped.
//  (5) shared_swap has a record for each of its swapped ptes marked kCowShared (mm/swap_count.h).
//  (2) cpumask has exactly the CPUs whose loaded_mm is this mm (arch/x86/tlb.h (2)).
//  (3) After exit_mmap(): no VMAs, no PTE pages, dead == true.
//  (4) A page shared by fork (pgtable.h kCowShared) has one frame, owned by one mm (kOwnPage in
//      its pte, counted in its rss_anon); the other mms map it without kOwnPage and count it in
//      no rss (known simplification: the kernel counts it in each mapper's MM_ANONPAGES).

#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "kernelsim/locking/rwsem.h"
#include "kernelsim/mm/pgtable.h"
#include "kernelsim/mm/rmap.h"
#include "kernelsim/mm/swap_count.h"
#include "kernelsim/mm/vma.h"
#include "kernelsim/sched/cpumask.h"

namespace mmreplay::kernelsim {

class Simulation;

class Mm {
 public:
  Mm(Simulation& sim, uint32_t mm_id);

  uint32_t id;
  RwSem mmap_sem;  // mmap_lock since 5.8
  VmaTree vmas;
  PteTables pte_tables;
  CpuMask cpumask;  // mm_cpumask(): the CPUs that have it loaded (arch/x86/tlb.h (2))
  // mm_cpumask() as 6.14+ keeps it (knob mm_cpumask=lazy, 209954cbc7d0): every CPU that switched
  // to it since a flush last found that CPU running another mm (a superset of cpumask).
  CpuMask ran_on;
  SimTime next_trim_cpumask;  // mm->context.next_trim_cpumask (6.14+: should_trim_cpumask())
  uint64_t tlb_gen = 0;       // bumped by every flush (4.14+ mm->context.tlb_gen)
  uint64_t mm_lock_seq = 0;   // per-VMA locks: bumped by mmap_write_unlock()
  uint64_t mmap_base = MODEL_MMAP_BASE;
  uint64_t start_brk = 0;  // 0 until the first brk()
  uint64_t brk = 0;
  uint64_t rss_anon = 0;  // MM_ANONPAGES: own pages mapped
  uint64_t rss_file = 0;  // MM_FILEPAGES: page-cache pages mapped
  uint64_t swapents = 0;  // MM_SWAPENTS: ptes holding a swap entry
  // The page frame (mm/lru.h) of each own page, by user address: the model's stand-in for
  // pte -> struct page (the frame holds the reverse map, page -> mm + address).
  AnonRmap anon_pages;
  uint32_t users = 0;              // mm_users: live threads
  uint32_t memcg_id = 0;           // the memcg its pages are charged to (mm/memcontrol.h; 0: root)
  LockClassStats& vma_lock_read;   // lock class "&vma->vm_lock-R" of this mm's VMAs
  LockClassStats& vma_lock_write;  // lock class "&vma->vm_lock-W"
  bool dead = false;               // exit_mmap() done
  bool oom_skip = false;  // MMF_OOM_SKIP: an OOM victim's memory was reaped (mm/oom_kill.h)
  bool forked = false;    // dup_mmap() filled it from a parent (kernel/fork.h)
  // The mms it shares COW pages with through fork (parent and children): where a write fault
  // looks for the other mapper of a kCowShared page (the model's page_mapcount()).
  std::vector<Mm*> cow_peers;
  // The swap entries its ptes share with other mms since a fork, by address (mm/swap_count.h).
  std::unordered_map<uint64_t, std::shared_ptr<SharedSwapEntry>> shared_swap;
};

}  // namespace mmreplay::kernelsim

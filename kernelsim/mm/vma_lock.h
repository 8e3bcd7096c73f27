// VmaLock: the per-VMA lock of 6.4+ (include/linux/mm.h: vma_start_read(), vma_start_write(),
// vma_end_read()).
//
// A VMA is write-locked while its vm_lock_seq equals the mm's mm_lock_seq: vma_start_write() sets
// it under mmap_sem held for write and waits for the VMA's readers to leave; mmap_write_unlock()
// bumps mm_lock_seq, which releases every VMA write lock of that cycle at once. A fault's
// vma_start_read() is a trylock: it fails on a write-locked VMA (the fault then falls back to
// mmap_sem). The reader count is one atomic on the VMA's cache line.
//
// Invariants: (1) readers() > 0 only while the VMA is not write-locked, except for readers that
// entered before vma_start_write() (the writer waits for them); (2) at most one waiting writer.

#pragma once

#include <cstdint>
#include <limits>

#include "kernelsim/locking/cacheline.h"
#include "kernelsim/sim/shared_step.h"

namespace mmreplay::kernelsim {

class VmaLock {
 public:
  static constexpr uint64_t kUnlocked = std::numeric_limits<uint64_t>::max();

  bool is_write_locked(uint64_t mm_lock_seq) const { return lock_seq_ == mm_lock_seq; }
  uint32_t readers() const { return readers_; }

  // Models vma_start_read() at now(). REQUIRES: now() == t.clock(); the VMA is in t.mm().
  bool vma_start_read_now(Task& t, uint64_t mm_lock_seq);
  // Models vma_end_read() at now(). REQUIRES: t entered with vma_start_read_now().
  void vma_end_read_now(Task& t);
  // Models vma_start_write() at now(): returns true when done, false when t sleeps until the
  // last reader leaves. REQUIRES: mmap_sem held for write by t.
  bool vma_start_write_now(Task& t, uint64_t mm_lock_seq);
  // Marks write-locked without waiting. REQUIRES: readers() == 0, mmap_sem held for write.
  void mark_write_locked(uint64_t mm_lock_seq) { lock_seq_ = mm_lock_seq; }

 private:
  uint64_t lock_seq_ = kUnlocked;
  uint32_t readers_ = 0;
  Task* waiting_writer_ = nullptr;
  CacheLine line_;
};

class VmaLockStep final : public SharedStep {
 public:
  enum class Kind { kEndRead, kStartWrite };
  VmaLockStep(Task& t, VmaLock& l, Kind kind, uint64_t seq)
      : SharedStep(t), lock_(l), kind_(kind), seq_(seq) {}
  bool run_now() override;

 private:
  VmaLock& lock_;
  Kind kind_;
  uint64_t seq_;
};

}  // namespace mmreplay::kernelsim

// The lock classes of the model: every lock it creates, by its lock_stat class name.
//
// lockdep names a class after the lock expression at its init site ("&zone->lock",
// kernel/locking/lockdep.c: lockdep_init_map() via spin_lock_init()'s #lock); lock_stat
// (/proc/lock_stat) reports an rwsem's read and write acquisitions as two classes here, NAME-R
// and NAME-W (locking/rwsem.cpp). Each lock below takes its class name from this file, so the
// list is every class a run can report: the results' lock keys (replay/result_keys.h) and the
// lock names validate accepts are checked against it. A class appears in a run's LockStat only
// when a lock of it was created (lruvec->lru_lock needs lru_lock=lruvec and a memcg,
// counter->lock memcg=res_counter).

#pragma once

#include <string_view>

namespace mmreplay::kernelsim {

// RwSem class names: the rwsem's name with these suffixes (locking/rwsem.cpp).
inline constexpr std::string_view kRwSemReadSuffix = "-R";
inline constexpr std::string_view kRwSemWriteSuffix = "-W";

inline constexpr std::string_view kMmapSemClass = "&mm->mmap_sem";  // RwSem (mm/mm_types.h)
// The per-VMA lock (mm/vma_lock.h) counts its read and write acquisitions as two classes.
inline constexpr std::string_view kVmaLockReadClass = "&vma->vm_lock-R";
inline constexpr std::string_view kVmaLockWriteClass = "&vma->vm_lock-W";
inline constexpr std::string_view kPgdatLruLockClass = "&pgdat->lru_lock";    // mm/lru.h
inline constexpr std::string_view kLruvecLruLockClass = "&lruvec->lru_lock";  // mm/lru.h
inline constexpr std::string_view kZoneLockClass = "&zone->lock";             // mm/page_alloc.h
inline constexpr std::string_view kCounterLockClass = "&counter->lock";       // mm/page_counter.h

// The rwsems, each two classes (NAME-R, NAME-W), and every other class.
inline constexpr std::string_view kRwSemClasses[] = {kMmapSemClass};
inline constexpr std::string_view kLockClasses[] = {
    kVmaLockReadClass,   kVmaLockWriteClass, kPgdatLruLockClass,
    kLruvecLruLockClass, kZoneLockClass,     kCounterLockClass,
};

// True when `name` is a class the model can create (as LockStat stores it, '&' included).
constexpr bool is_lock_class(std::string_view name) {
  for (std::string_view c : kLockClasses) {
    if (name == c) return true;
  }
  for (std::string_view c : kRwSemClasses) {
    if (name.starts_with(c) &&
        (name.substr(c.size()) == kRwSemReadSuffix || name.substr(c.size()) == kRwSemWriteSuffix))
      return true;
  }
  return false;
}

}  // namespace mmreplay::kernelsim

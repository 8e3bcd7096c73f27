#include "formats/import/strace_symbols.h"

#include <algorithm>
#include <array>
#include <utility>

namespace mmreplay::formats {
namespace {

constexpr uint64_t kMapHugeShift = 26;  // MAP_HUGE_SHIFT

// Kept sorted by name (checked once below) for binary search.
constexpr std::array<std::pair<std::string_view, uint64_t>, 112> kSymbols = {{
    {"CLONE_CHILD_CLEARTID", 0x00200000},
    {"CLONE_CHILD_SETTID", 0x01000000},
    {"CLONE_CLEAR_SIGHAND", 0x100000000},
    {"CLONE_FILES", 0x00000400},
    {"CLONE_FS", 0x00000200},
    {"CLONE_INTO_CGROUP", 0x200000000},
    {"CLONE_IO", 0x80000000},
    {"CLONE_NEWCGROUP", 0x02000000},
    {"CLONE_NEWIPC", 0x08000000},
    {"CLONE_NEWNET", 0x40000000},
    {"CLONE_NEWNS", 0x00020000},
    {"CLONE_NEWPID", 0x20000000},
    {"CLONE_NEWUSER", 0x10000000},
    {"CLONE_NEWUTS", 0x04000000},
    {"CLONE_PARENT", 0x00008000},
    {"CLONE_PARENT_SETTID", 0x00100000},
    {"CLONE_PIDFD", 0x00001000},
    {"CLONE_PTRACE", 0x00002000},
    {"CLONE_SETTLS", 0x00080000},
    {"CLONE_SIGHAND", 0x00000800},
    {"CLONE_SYSVSEM", 0x00040000},
    {"CLONE_THREAD", 0x00010000},
    {"CLONE_UNTRACED", 0x00800000},
    {"CLONE_VFORK", 0x00004000},
    {"CLONE_VM", 0x00000100},
    {"FUTEX_CLOCK_REALTIME", 256},
    {"FUTEX_CMP_REQUEUE", 4},
    {"FUTEX_CMP_REQUEUE_PI", 12},
    {"FUTEX_CMP_REQUEUE_PI_PRIVATE", 140},
    {"FUTEX_CMP_REQUEUE_PRIVATE", 132},
    {"FUTEX_FD", 2},
    {"FUTEX_LOCK_PI", 6},
    {"FUTEX_LOCK_PI2", 13},
    {"FUTEX_LOCK_PI2_PRIVATE", 141},
    {"FUTEX_LOCK_PI_PRIVATE", 134},
    {"FUTEX_PRIVATE_FLAG", 128},
    {"FUTEX_REQUEUE", 3},
    {"FUTEX_REQUEUE_PRIVATE", 131},
    {"FUTEX_TRYLOCK_PI", 8},
    {"FUTEX_TRYLOCK_PI_PRIVATE", 136},
    {"FUTEX_UNLOCK_PI", 7},
    {"FUTEX_UNLOCK_PI_PRIVATE", 135},
    {"FUTEX_WAIT", 0},
    {"FUTEX_WAIT_BITSET", 9},
    {"FUTEX_WAIT_BITSET_PRIVATE", 137},
    {"FUTEX_WAIT_PRIVATE", 128},
    {"FUTEX_WAIT_REQUEUE_PI", 11},
    {"FUTEX_WAIT_REQUEUE_PI_PRIVATE", 139},
    {"FUTEX_WAKE", 1},
    {"FUTEX_WAKE_BITSET", 10},
    {"FUTEX_WAKE_BITSET_PRIVATE", 138},
    {"FUTEX_WAKE_OP", 5},
    {"FUTEX_WAKE_OP_PRIVATE", 133},
    {"FUTEX_WAKE_PRIVATE", 129},
    {"MADV_COLD", 20},
    {"MADV_COLLAPSE", 25},
    {"MADV_DODUMP", 17},
    {"MADV_DOFORK", 11},
    {"MADV_DONTDUMP", 16},
    {"MADV_DONTFORK", 10},
    {"MADV_DONTNEED", 4},
    {"MADV_DONTNEED_LOCKED", 24},
    {"MADV_FREE", 8},
    {"MADV_HUGEPAGE", 14},
    {"MADV_HWPOISON", 100},
    {"MADV_KEEPONFORK", 19},
    {"MADV_MERGEABLE", 12},
    {"MADV_NOHUGEPAGE", 15},
    {"MADV_NORMAL", 0},
    {"MADV_PAGEOUT", 21},
    {"MADV_POPULATE_READ", 22},
    {"MADV_POPULATE_WRITE", 23},
    {"MADV_RANDOM", 1},
    {"MADV_REMOVE", 9},
    {"MADV_SEQUENTIAL", 2},
    {"MADV_SOFT_OFFLINE", 101},
    {"MADV_UNMERGEABLE", 13},
    {"MADV_WILLNEED", 3},
    {"MADV_WIPEONFORK", 18},
    {"MAP_ANONYMOUS", 0x20},
    {"MAP_DENYWRITE", 0x0800},
    {"MAP_EXECUTABLE", 0x1000},
    {"MAP_FIXED", 0x10},
    {"MAP_FIXED_NOREPLACE", 0x100000},
    {"MAP_GROWSDOWN", 0x0100},
    {"MAP_HUGETLB", 0x40000},
    {"MAP_HUGE_1GB", 30ull << kMapHugeShift},
    {"MAP_HUGE_2MB", 21ull << kMapHugeShift},
    {"MAP_LOCKED", 0x2000},
    {"MAP_NONBLOCK", 0x10000},
    {"MAP_NORESERVE", 0x4000},
    {"MAP_POPULATE", 0x8000},
    {"MAP_PRIVATE", 0x02},
    {"MAP_SHARED", 0x01},
    {"MAP_SHARED_VALIDATE", 0x03},
    {"MAP_STACK", 0x20000},
    {"MAP_SYNC", 0x80000},
    {"MREMAP_DONTUNMAP", 4},
    {"MREMAP_FIXED", 2},
    {"MREMAP_MAYMOVE", 1},
    {"MS_ASYNC", 1},  // include/uapi/asm-generic/mman-common.h
    {"MS_INVALIDATE", 2},
    {"MS_SYNC", 4},
    {"PROT_EXEC", 0x4},
    {"PROT_NONE", 0x0},
    {"PROT_READ", 0x1},
    {"PROT_WRITE", 0x2},
    {"SHM_EXEC", 0100000},  // include/uapi/linux/shm.h
    {"SHM_RDONLY", 010000},
    {"SHM_REMAP", 040000},
    {"SHM_RND", 020000},
    {"SIGCHLD", 17},
}};

static_assert(std::is_sorted(kSymbols.begin(), kSymbols.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; }),
              "kSymbols must stay sorted by name");

}  // namespace

bool strace_symbol_value(std::string_view name, uint64_t* value) {
  auto it = std::lower_bound(kSymbols.begin(), kSymbols.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == kSymbols.end() || it->first != name) return false;
  *value = it->second;
  return true;
}

}  // namespace mmreplay::formats

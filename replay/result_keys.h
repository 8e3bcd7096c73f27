// The keys a RunResult can hold (replay/run.h), from the tables its parts are built from, so a
// name that refers to results (validate's extractors) can be checked before any run.
//
//   ops       the op table's results keys (common/op_table.h), "direct_reclaim", and the
//             reserved "major_fault" (kept empty until its model part lands)
//   locks     a lock class of the model (kernelsim/locking/lock_classes.h) without its '&', and
//             "mmap_sem" (the read and write classes of mm->mmap_sem summed). A run holds only the
//             classes whose locks it created: a known class may be absent (never taken)
//   counters  the keys of common/counters.h, "observations", "skipped_<trace kind>" for
//             trace events the model does not replay, and the replay layer's own timing
//             counters (think_removed_ns, think_clamped, kernel_mode_faults)

#pragma once

#include <string>
#include <string_view>

namespace mmreplay::replay {

inline constexpr std::string_view kDirectReclaimOp = "direct_reclaim";
inline constexpr std::string_view kMajorFaultOp = "major_fault";
inline constexpr std::string_view kMmapSemLock = "mmap_sem";
inline constexpr std::string_view kObservationsCounter = "observations";
inline constexpr std::string_view kSkippedCounterPrefix = "skipped_";
// Closed-loop timing (formats/think_time.h): recorded gap time taken out as tracing and fault
// cost, and gaps those costs exceeded (clamped to 0).
inline constexpr std::string_view kThinkRemovedCounter = "think_removed_ns";
inline constexpr std::string_view kThinkClampedCounter = "think_clamped";
// Trace page faults taken in kernel mode (copy_to_user), replayed inside their syscall.
inline constexpr std::string_view kKernelModeFaultsCounter = "kernel_mode_faults";
// Recorded calls the kernel refused, replayed as syscalls that fail (formats/event.h kFailedCall).
inline constexpr std::string_view kFailedCallsCounter = "failed_calls";
// Trace rewrites (replay/trace_rewrite.h): calls whose advice purge_advice changed, madvise calls
// madvise_batch=N merged and the vector calls it made of them, vector calls split per range.
inline constexpr std::string_view kRewriteAdviceCounter = "rewrite_advice_changed";
inline constexpr std::string_view kRewriteBatchedCounter = "rewrite_calls_batched";
inline constexpr std::string_view kRewriteVectorsCounter = "rewrite_vector_calls_made";
inline constexpr std::string_view kRewriteSplitCounter = "rewrite_vector_calls_split";

// The results key of lock_stat class `name`: the name without its '&' ("zone->lock").
std::string lock_key(std::string_view class_name);

bool is_op_key(std::string_view key);
bool is_lock_key(std::string_view key);
bool is_counter_key(std::string_view key);

}  // namespace mmreplay::replay

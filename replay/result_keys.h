// The keys a RunResult can hold (replay/run.h), from the tables its parts are built from, so a
// name that refers to results (validate's extractors) can be checked before any run.
//
//   ops       the op table's results keys (common/op_table.h), "direct_reclaim", and the
//             reserved "major_fault" (kept empty until its model part lands)
//   locks     a lock class of the model (kernelsim/locking/lock_classes.h) without its '&', and
//             "mmap_sem" (the read and write classes of mm->mmap_sem summed). A run holds only the
//             classes whose locks it created: a known class may be absent (never taken)
//   counters  the keys of common/counters.h, "observations", and "skipped_<trace kind>" for
//             trace events the model does not replay

#pragma once

#include <string>
#include <string_view>

namespace mmreplay::replay {

inline constexpr std::string_view kDirectReclaimOp = "direct_reclaim";
inline constexpr std::string_view kMajorFaultOp = "major_fault";
inline constexpr std::string_view kMmapSemLock = "mmap_sem";
inline constexpr std::string_view kObservationsCounter = "observations";
inline constexpr std::string_view kSkippedCounterPrefix = "skipped_";

// The results key of lock_stat class `name`: the name without its '&' ("zone->lock").
std::string lock_key(std::string_view class_name);

bool is_op_key(std::string_view key);
bool is_lock_key(std::string_view key);
bool is_counter_key(std::string_view key);

}  // namespace mmreplay::replay

// Trace rewrites as policy knobs: what user space did, changed as replay reads a trace, so one
// captured workload answers allocator-side questions (DESIGN.md, "Policies may also rewrite what
// user space did"; issue 16):
//   purge_advice=as-recorded|free|dontneed  the advice of purging madvise calls (MADV_DONTNEED
//                                           and MADV_FREE, single or vector) becomes MADV_FREE
//                                           (seed 000's jemalloc) or MADV_DONTNEED;
//   madvise_batch=off|split|N               N: a thread's consecutive madvise calls with the same
//                                           advice and only user time between them become one
//                                           vector call of up to N ranges (seed 002's madvisev);
//                                           split: each vector call becomes one madvise per range.
// They are not kernel configuration, so kernelsim never sees them: replay/policy_spec splits a
// policy's "+key=value" items between these and kernelsim's knob table, and results record both
// (format_rewrites() after kernelsim::format_knobs()). How a vector call then runs in the kernel
// is still the kernel knob `madvise`.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/policy/knob_table.h"

namespace mmreplay::replay {

enum class PurgeAdvice : uint8_t { kAsRecorded, kFree, kDontNeed };
enum class MadviseBatch : uint8_t { kOff, kSplit, kBatch };

struct TraceRewrites {
  PurgeAdvice purge_advice = PurgeAdvice::kAsRecorded;
  MadviseBatch madvise_batch = MadviseBatch::kOff;
  uint32_t batch_ranges = 0;  // kBatch: most ranges per vector call (N), 1..kMaxVectorRanges

  // True when replay reads the trace as recorded.
  bool is_identity() const {
    return purge_advice == PurgeAdvice::kAsRecorded && madvise_batch == MadviseBatch::kOff;
  }
  friend bool operator==(const TraceRewrites&, const TraceRewrites&) = default;
};

// One rewrite knob, listed like a kernel knob (`trace-replay policies`). The values of
// madvise_batch include "N", standing for any number of ranges in [1, kMaxVectorRanges].
struct RewriteKnobInfo {
  std::string key;
  std::string doc;
  std::vector<kernelsim::KnobValue> values;  // the first is the default (TraceRewrites{})
};

// Every rewrite knob, in the order results list them.
const std::vector<RewriteKnobInfo>& rewrite_knobs();
// True when `key` names a rewrite knob.
bool is_rewrite_knob(std::string_view key);

// Sets knob `key` to `value` in *rewrites. An unknown value is InvalidArgument naming the knob and
// its allowed values; *rewrites is then unchanged. REQUIRES: is_rewrite_knob(key).
Status apply_rewrite_knob(std::string_view key, std::string_view value, TraceRewrites* rewrites);

// "purge_advice=...,madvise_batch=...": every rewrite knob, defaults included, as results record
// them after the kernel's knobs.
std::string format_rewrites(const TraceRewrites& rewrites);

}  // namespace mmreplay::replay

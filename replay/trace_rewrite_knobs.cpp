#include "replay/trace_rewrite_knobs.h"

#include <charconv>

#include "formats/event.h"

namespace mmreplay::replay {

namespace {

constexpr std::string_view kPurgeAdvice = "purge_advice";
constexpr std::string_view kMadviseBatch = "madvise_batch";

// "a|b|c" of a knob's value names, for errors (as kernelsim's knob errors write them).
std::string value_list(const RewriteKnobInfo& knob) {
  std::string out;
  for (const kernelsim::KnobValue& v : knob.values) out += (out.empty() ? "" : "|") + v.name;
  return out;
}

// REQUIRES: is_rewrite_knob(key).
const RewriteKnobInfo& knob_of(std::string_view key) {
  for (const RewriteKnobInfo& k : rewrite_knobs()) {
    if (k.key == key) return k;
  }
  return rewrite_knobs().front();
}

Status bad_value(std::string_view key, std::string_view value) {
  const RewriteKnobInfo& knob = knob_of(key);
  std::string allowed = value_list(knob);
  if (key == kMadviseBatch) allowed += ", N = 1.." + std::to_string(formats::kMaxVectorRanges);
  return Status::invalid_argument("unknown value '" + std::string(value) + "' for policy knob '" +
                                  knob.key + "' (expected " + allowed + ")");
}

}  // namespace

const std::vector<RewriteKnobInfo>& rewrite_knobs() {
  static const std::vector<RewriteKnobInfo> kKnobs = {
      {std::string(kPurgeAdvice),
       "the advice of the program's purging madvise calls (seed 000)",
       {
           {"as-recorded", "MADV_DONTNEED and MADV_FREE as the trace has them"},
           {"free", "MADV_DONTNEED becomes MADV_FREE: the allocator purges lazily (4.5+)"},
           {"dontneed", "MADV_FREE becomes MADV_DONTNEED: the allocator zaps at once"},
       }},
      {std::string(kMadviseBatch),
       "how the program groups its madvise calls (seed 002); the kernel knob "
       "`madvise` decides how a vector call then runs",
       {
           {"off", "calls as the trace has them"},
           {"split", "each vector call becomes one madvise per range, at the vector call's time"},
           {"N",
            "a thread's consecutive madvise calls with the same advice and only user time between "
            "them (no other syscall, no fault) become one vector call of up to N ranges; the user "
            "time between them moves before it"},
       }},
  };
  return kKnobs;
}

bool is_rewrite_knob(std::string_view key) {
  return key == kPurgeAdvice || key == kMadviseBatch;
}

Status apply_rewrite_knob(std::string_view key, std::string_view value, TraceRewrites* rewrites) {
  TraceRewrites r = *rewrites;
  if (key == kPurgeAdvice) {
    if (value == "as-recorded") {
      r.purge_advice = PurgeAdvice::kAsRecorded;
    } else if (value == "free") {
      r.purge_advice = PurgeAdvice::kFree;
    } else if (value == "dontneed") {
      r.purge_advice = PurgeAdvice::kDontNeed;
    } else {
      return bad_value(key, value);
    }
  } else {
    if (value == "off") {
      r.madvise_batch = MadviseBatch::kOff;
      r.batch_ranges = 0;
    } else if (value == "split") {
      r.madvise_batch = MadviseBatch::kSplit;
      r.batch_ranges = 0;
    } else {
      // Plain decimal only: "+64" or "0x40" in a policy name would be a typo, not a count.
      uint32_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n == 0 ||
          n > formats::kMaxVectorRanges) {
        return bad_value(key, value);
      }
      r.madvise_batch = MadviseBatch::kBatch;
      r.batch_ranges = n;
    }
  }
  *rewrites = r;
  return Status::ok();
}

std::string format_rewrites(const TraceRewrites& r) {
  std::string out = std::string(kPurgeAdvice) + "=";
  switch (r.purge_advice) {
    case PurgeAdvice::kAsRecorded:
      out += "as-recorded";
      break;
    case PurgeAdvice::kFree:
      out += "free";
      break;
    case PurgeAdvice::kDontNeed:
      out += "dontneed";
      break;
  }
  out += "," + std::string(kMadviseBatch) + "=";
  switch (r.madvise_batch) {
    case MadviseBatch::kOff:
      out += "off";
      break;
    case MadviseBatch::kSplit:
      out += "split";
      break;
    case MadviseBatch::kBatch:
      out += std::to_string(r.batch_ranges);
      break;
  }
  return out;
}

}  // namespace mmreplay::replay

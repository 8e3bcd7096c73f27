#include "replay/result_keys.h"

#include "common/counters.h"
#include "common/op_table.h"
#include "formats/event.h"
#include "kernelsim/locking/lock_classes.h"

namespace mmreplay::replay {

std::string lock_key(std::string_view class_name) {
  return std::string(class_name.starts_with('&') ? class_name.substr(1) : class_name);
}

bool is_op_key(std::string_view key) {
  if (key.empty()) return false;
  for (const common::OpInfo& op : common::kOpTable) {
    if (op.modelled && op.results_key == key) return true;
  }
  return key == kDirectReclaimOp || key == kMajorFaultOp;
}

bool is_lock_key(std::string_view key) {
  if (key.empty() || key.starts_with('&')) return false;
  std::string class_name = "&";
  class_name += key;
  return key == kMmapSemLock || kernelsim::is_lock_class(class_name);
}

bool is_counter_key(std::string_view key) {
  if (common::find_counter(key) != nullptr || key == kObservationsCounter ||
      key == kThinkRemovedCounter || key == kThinkClampedCounter ||
      key == kKernelModeFaultsCounter || key == kFailedCallsCounter ||
      key == kRewriteAdviceCounter || key == kRewriteBatchedCounter ||
      key == kRewriteVectorsCounter || key == kRewriteSplitCounter) {
    return true;
  }
  if (!key.starts_with(kSkippedCounterPrefix)) return false;
  formats::EventKind kind;
  return formats::kind_from_name(key.substr(kSkippedCounterPrefix.size()), &kind) &&
         kind != formats::EventKind::kObservation;
}

}  // namespace mmreplay::replay

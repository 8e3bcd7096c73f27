// The knob table: one row per KernelConfig field (kernel_config.h), giving its key, its allowed
// values with the kernel version and commit (or seed thread) each comes from, and a one-line doc.
// Everything that turns knobs into text or text into knobs goes through it: parsing and its
// errors, `trace-replay policies`, and the `policy_knobs` string of every run's results.

#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/policy/kernel_config.h"

namespace mmreplay::kernelsim {

struct KnobValue {
  std::string name;  // as written in a policy ("as-dontneed", "31", "on")
  std::string doc;   // one line: what the kernel does, since which release, which commit
};

struct KnobInfo {
  std::string key;  // the field's name in KernelConfig
  std::string doc;
  std::vector<KnobValue> values;
  // The position in `values` of the config's value (values.size() when the field holds a value
  // the table does not list, which only code that bypasses the table can cause).
  std::function<size_t(const KernelConfig&)> index_of;
  std::function<void(KernelConfig&, size_t)> set;

  std::string_view value_of(const KernelConfig& c) const;
  std::string_view default_value() const { return value_of(KernelConfig{}); }
  const KnobValue* find_value(std::string_view name) const;
};

// Every knob, in the order results list them.
const std::vector<KnobInfo>& kernel_knobs();
// nullptr when there is no knob of that key.
const KnobInfo* find_knob(std::string_view key);

// "key=value,key=value,..." with every knob, defaults included: what results record.
std::string format_knobs(const KernelConfig& config);

// Applies "key=value" items, separated by ',' or '+', to *config in order. An unknown key or
// value, a malformed item or a key given twice is InvalidArgument, naming it (and the keys or
// values that would have been accepted); *config is then unchanged. An empty text changes nothing.
Status apply_knobs(std::string_view text, KernelConfig* config);
// A knob's key or value without the blanks around it (spaces and tabs), as specs are read.
std::string_view trim_knob_text(std::string_view s);

}  // namespace mmreplay::kernelsim

// PolicyRegistry and PolicyConfig: named policy knobs, parsed from "key=value,key=value".
//
// Every knob has a default, so an empty string is a complete configuration. Unknown keys, unknown
// values, duplicates and malformed items are rejected with a message naming the offending text;
// nothing falls back silently. The effective configuration (defaults included) is what results
// record: PolicyConfig::to_string().

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernelsim/policy/knob.h"
#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {

class PolicyRegistry {
 public:
  // REQUIRES: no knob with knob.key is registered yet.
  void add_knob(PolicyKnob knob);
  // REQUIRES: knob `key` registered, value.name not yet among its values.
  void add_value(std::string_view key, PolicyValue value);

  const PolicyKnob* find(std::string_view key) const;
  const std::vector<PolicyKnob>& knobs() const { return knobs_; }

 private:
  std::vector<PolicyKnob> knobs_;
};

// Registers every built-in knob and value: the one place a new policy is added (builtin.cpp).
void register_builtin_policies(PolicyRegistry& registry);

// A complete, validated assignment of a value to every registered knob, in registration order.
class PolicyConfig {
 public:
  // Every knob at its default.
  static PolicyConfig defaults(const PolicyRegistry& registry);

  // The value of `key`, or an empty view when the key is not part of this config.
  std::string_view value(std::string_view key) const;
  // "key=value,..." with every knob, defaults included.
  std::string to_string() const;
  const std::vector<std::pair<std::string, std::string>>& settings() const { return settings_; }

  friend bool operator==(const PolicyConfig&, const PolicyConfig&) = default;

 private:
  friend struct PolicyParse;
  std::vector<std::pair<std::string, std::string>> settings_;
};

// Result of parse_policy_config(): a config, or an error message naming the bad key or value.
struct PolicyParse {
  std::optional<PolicyConfig> config;
  std::string error;
  bool ok() const { return config.has_value(); }

  static PolicyParse parse(std::string_view text, const PolicyRegistry& registry);
};

inline PolicyParse parse_policy_config(std::string_view text, const PolicyRegistry& registry) {
  return PolicyParse::parse(text, registry);
}

// Builds the hook objects for `config`.
// REQUIRES: config came from `registry` (defaults() or a successful parse).
PolicySet instantiate_policies(const PolicyConfig& config, const PolicyRegistry& registry);

}  // namespace mmreplay::kernelsim

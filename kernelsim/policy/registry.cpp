#include "kernelsim/policy/registry.h"

#include <cassert>

namespace mmreplay::kernelsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string known_keys(const PolicyRegistry& r) {
  std::string out;
  for (const PolicyKnob& k : r.knobs()) out += (out.empty() ? "" : ", ") + k.key;
  return out;
}

std::string known_values(const PolicyKnob& k) {
  std::string out;
  for (const PolicyValue& v : k.values) out += (out.empty() ? "" : "|") + v.name;
  return out;
}

const PolicyValue* find_value(const PolicyKnob& k, std::string_view name) {
  for (const PolicyValue& v : k.values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

}  // namespace

void PolicyRegistry::add_knob(PolicyKnob knob) {
  assert(find(knob.key) == nullptr && "knob registered twice");
  knobs_.push_back(std::move(knob));
}

void PolicyRegistry::add_value(std::string_view key, PolicyValue value) {
  for (PolicyKnob& k : knobs_) {
    if (k.key != key) continue;
    assert(find_value(k, value.name) == nullptr && "policy value registered twice");
    k.values.push_back(std::move(value));
    return;
  }
  assert(false && "add_value() for an unregistered knob");
}

const PolicyKnob* PolicyRegistry::find(std::string_view key) const {
  for (const PolicyKnob& k : knobs_) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

PolicyConfig PolicyConfig::defaults(const PolicyRegistry& registry) {
  PolicyConfig c;
  for (const PolicyKnob& k : registry.knobs()) c.settings_.emplace_back(k.key, k.default_value);
  return c;
}

std::string_view PolicyConfig::value(std::string_view key) const {
  for (const auto& [k, v] : settings_) {
    if (k == key) return v;
  }
  return {};
}

std::string PolicyConfig::to_string() const {
  std::string out;
  for (const auto& [k, v] : settings_) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

PolicyParse PolicyParse::parse(std::string_view text, const PolicyRegistry& registry) {
  PolicyConfig config = PolicyConfig::defaults(registry);
  std::vector<std::string_view> seen;
  text = trim(text);
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) {
      return {std::nullopt, "policy item '" + std::string(item) + "' is not key=value"};
    }
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view val = trim(item.substr(eq + 1));
    const PolicyKnob* knob = registry.find(key);
    if (knob == nullptr) {
      return {std::nullopt, "unknown policy knob '" + std::string(key) + "' (known: " +
                                known_keys(registry) + ")"};
    }
    for (std::string_view s : seen) {
      if (s == key) return {std::nullopt, "policy knob '" + std::string(key) + "' given twice"};
    }
    seen.push_back(key);
    if (find_value(*knob, val) == nullptr) {
      return {std::nullopt, "unknown value '" + std::string(val) + "' for policy knob '" +
                                std::string(key) + "' (expected " + known_values(*knob) + ")"};
    }
    for (auto& [k, v] : config.settings_) {
      if (k == key) v = std::string(val);
    }
  }
  return {std::move(config), {}};
}

PolicySet instantiate_policies(const PolicyConfig& config, const PolicyRegistry& registry) {
  PolicySet set;
  for (const auto& [key, val] : config.settings()) {
    const PolicyKnob* knob = registry.find(key);
    assert(knob != nullptr && "config from another registry");
    const PolicyValue* v = find_value(*knob, val);
    assert(v != nullptr && "config from another registry");
    v->install(set);
  }
  assert(set.complete() && "a knob without a value");
  return set;
}

}  // namespace mmreplay::kernelsim

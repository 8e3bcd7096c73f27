#include "replay/policy_spec.h"

#include "kernelsim/policy/presets.h"

namespace mmreplay::replay {

Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config) {
  return kernelsim::expand_policy(spec, config)
      .with_context("--policy '" + std::string(spec) + "'");
}

std::vector<std::string> split_policy_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    size_t start = 0;
    for (size_t i = 0; i <= v.size(); ++i) {
      if (i == v.size() || v[i] == ',') {
        out.push_back(v.substr(start, i - start));
        start = i + 1;
      }
    }
  }
  if (out.empty()) out.push_back("default");
  return out;
}

}  // namespace mmreplay::replay

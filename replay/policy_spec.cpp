#include "replay/policy_spec.h"

#include <map>

#include "kernelsim/policy/presets.h"

namespace mmreplay::replay {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

formats::Status resolve_policy(std::string_view spec, std::string* knobs) {
  const std::vector<std::string> parts = split(spec, '+');
  std::vector<std::pair<std::string, std::string>> settings;  // in order; later ones win
  auto add = [&](const std::string& item) -> formats::Status {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      return formats::Status::error("--policy " + std::string(spec) + ": '" + item +
                                    "' is not knob=value");
    }
    const std::string key = item.substr(0, eq);
    for (auto& s : settings) {
      if (s.first == key) {
        s.second = item.substr(eq + 1);
        return formats::Status::ok();
      }
    }
    settings.emplace_back(key, item.substr(eq + 1));
    return formats::Status::ok();
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) {
      return formats::Status::error("--policy " + std::string(spec) + ": empty item");
    }
    if (i == 0 && parts[i].find('=') == std::string::npos) {
      const kernelsim::PolicyPreset* preset = kernelsim::find_policy_preset(parts[i]);
      if (!preset) {
        return formats::Status::error("--policy " + std::string(spec) + ": no preset '" +
                                      parts[i] + "' (trace-replay policies lists them)");
      }
      // The era's kernel preset first, then the preset's own knobs over it.
      std::vector<const kernelsim::PolicyPreset*> chain = {preset};
      while (!chain.back()->base.empty() && chain.size() <= kernelsim::policy_presets().size()) {
        const kernelsim::PolicyPreset* base = kernelsim::find_policy_preset(chain.back()->base);
        if (base == nullptr) {
          return formats::Status::error("--policy " + std::string(spec) + ": preset '" +
                                        chain.back()->name + "' names a missing base '" +
                                        chain.back()->base + "'");
        }
        chain.push_back(base);
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if ((*it)->knobs.empty()) continue;
        for (const std::string& item : split((*it)->knobs, ',')) {
          if (formats::Status s = add(item); !s) return s;
        }
      }
      continue;
    }
    if (formats::Status s = add(parts[i]); !s) return s;
  }
  knobs->clear();
  for (const auto& [k, v] : settings) {
    if (!knobs->empty()) *knobs += ',';
    *knobs += k + "=" + v;
  }
  return formats::Status::ok();
}

std::vector<std::string> split_policy_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    for (std::string& p : split(v, ',')) {
      if (!p.empty()) out.push_back(std::move(p));
    }
  }
  if (out.empty()) out.push_back("default");
  return out;
}

}  // namespace mmreplay::replay

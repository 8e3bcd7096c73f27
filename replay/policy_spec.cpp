#include "replay/policy_spec.h"

#include "kernelsim/policy/knob_table.h"
#include "kernelsim/policy/presets.h"
#include "replay/running_kernel.h"

namespace mmreplay::replay {

namespace {

// Every knob key a spec may name, kernel and rewrite, for the unknown-knob error.
std::string known_keys() {
  std::string out;
  for (const kernelsim::KnobInfo& k : kernelsim::kernel_knobs())
    out += (out.empty() ? "" : ", ") + k.key;
  out += "; trace rewrites:";
  for (const RewriteKnobInfo& k : rewrite_knobs()) out += " " + k.key;
  return out;
}

// The items of a spec as written between its '+'s (empty ones included).
std::vector<std::string_view> spec_items(std::string_view spec) {
  std::vector<std::string_view> items;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i != spec.size() && spec[i] != '+') continue;
    items.push_back(spec.substr(start, i - start));
    start = i + 1;
  }
  return items;
}

// Takes the rewrite items out of `spec` into *rewrites and leaves the preset and kernel knobs,
// joined by '+' as written, in *kernel_spec ("default" when nothing is left).
Status split_spec(std::string_view spec, std::string* kernel_spec, TraceRewrites* rewrites) {
  std::vector<std::string_view> kept;
  std::vector<std::string_view> seen;
  bool head_was_rewrite = false;
  const std::vector<std::string_view> items = spec_items(spec);
  for (size_t n = 0; n < items.size(); ++n) {
    const std::string_view item = items[n];
    const bool head = n == 0;
    const size_t eq = item.find('=');
    const std::string_view key = kernelsim::trim_knob_text(item.substr(0, eq));
    if (eq == std::string_view::npos) {
      kept.push_back(item);  // a preset, or a malformed item kernelsim names
      continue;
    }
    if (!is_rewrite_knob(key)) {
      // kernelsim would list only its own knobs: name them all here.
      if (kernelsim::find_knob(key) == nullptr) {
        return Status::invalid_argument("unknown policy knob '" + std::string(key) +
                                        "' (known: " + known_keys() + ")");
      }
      kept.push_back(item);
      continue;
    }
    for (std::string_view s : seen) {
      if (s == key) {
        return Status::invalid_argument("policy knob '" + std::string(key) + "' given twice");
      }
    }
    seen.push_back(key);
    if (Status s =
            apply_rewrite_knob(key, kernelsim::trim_knob_text(item.substr(eq + 1)), rewrites);
        !s)
      return s;
    head_was_rewrite = head_was_rewrite || head;
  }
  // A preset comes first or not at all: "purge_advice=free+linux-6.6" is as malformed as
  // "madvise=vector+linux-6.6".
  if (head_was_rewrite && !kept.empty() && kept.front().find('=') == std::string_view::npos) {
    return Status::invalid_argument("policy item '" + std::string(kept.front()) +
                                    "' is not knob=value (a preset comes first)");
  }
  if (kept.empty()) {
    *kernel_spec = "default";
    return Status::ok();
  }
  kernel_spec->assign(kept.front());
  for (size_t i = 1; i < kept.size(); ++i) kernel_spec->append("+").append(kept[i]);
  return Status::ok();
}

// resolve_policy() of `expanded`, `spec` with its pseudo-preset replaced; errors name `spec`.
Status resolve_expanded(std::string_view spec, std::string_view expanded,
                        kernelsim::KernelConfig* config, TraceRewrites* rewrites) {
  const std::string flag = "--policy '" + std::string(spec) + "'";
  TraceRewrites r;
  std::string kernel_spec;
  if (Status s = split_spec(expanded, &kernel_spec, &r); !s) return s.with_context(flag);
  kernelsim::KernelConfig c;
  if (Status s = kernelsim::expand_policy(kernel_spec, &c); !s) return s.with_context(flag);
  *config = c;
  *rewrites = r;
  return Status::ok();
}

}  // namespace

Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config,
                      TraceRewrites* rewrites) {
  const std::string flag = "--policy '" + std::string(spec) + "'";
  if (names_recorded_kernel(spec)) {
    return Status::invalid_argument(
               "recorded-kernel is the kernel a trace was recorded on: it is resolved where a "
               "recording is replayed (replay, compare, scale of a trace)")
        .with_context(flag);
  }
  std::string expanded;
  if (Status s = substitute_running_kernel(spec, &expanded); !s) return s.with_context(flag);
  return resolve_expanded(spec, expanded, config, rewrites);
}

Status check_recorded_kernel_spec(std::string_view spec) {
  if (!names_recorded_kernel(spec)) return Status::ok();
  // The newest release preset stands in for the trace's (a release newer than every preset
  // maps to it): what follows it is checked alike.
  constexpr std::string_view kNewerThanEveryRelease = "999999.0";
  const std::string newest = kernelsim::kernel_release_preset(kNewerThanEveryRelease);
  kernelsim::KernelConfig config;
  TraceRewrites rewrites;
  return resolve_expanded(spec, newest + std::string(spec.substr(kRecordedKernelPreset.size())),
                          &config, &rewrites);
}

Status resolve_recorded_policy(std::string_view spec, std::string_view release,
                               kernelsim::KernelConfig* config, TraceRewrites* rewrites) {
  std::string expanded;
  if (Status s = substitute_recorded_kernel(spec, release, &expanded); !s)
    return s.with_context("--policy '" + std::string(spec) + "'");
  if (names_recorded_kernel(spec)) return resolve_expanded(spec, expanded, config, rewrites);
  return resolve_policy(spec, config, rewrites);
}

Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config) {
  TraceRewrites rewrites;
  kernelsim::KernelConfig c;
  if (Status s = resolve_policy(spec, &c, &rewrites); !s) return s;
  if (!rewrites.is_identity()) {
    return Status::invalid_argument("--policy '" + std::string(spec) + "': trace rewrites (" +
                                    format_rewrites(rewrites) +
                                    ") need a trace to rewrite; this command replays none");
  }
  *config = c;
  return Status::ok();
}

bool policy_names_knob(std::string_view spec, std::string_view key) {
  for (const std::string_view item : spec_items(spec)) {
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos && kernelsim::trim_knob_text(item.substr(0, eq)) == key) {
      return true;
    }
  }
  return false;
}

std::string format_policy_knobs(const kernelsim::KernelConfig& config,
                                const TraceRewrites& rewrites) {
  return kernelsim::format_knobs(config) + "," + format_rewrites(rewrites);
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

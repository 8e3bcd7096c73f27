#include "replay/running_kernel.h"

#include <sys/utsname.h>

#include "kernelsim/policy/presets.h"

namespace mmreplay::replay {
namespace {

// True when the first '+'-separated item of `spec` is `preset`.
bool leads_with(std::string_view spec, std::string_view preset) {
  return spec.substr(0, spec.find('+')) == preset;
}

// `spec` with its leading pseudo-preset `pseudo` (if it leads with it) replaced by the preset of
// `release` into *out; `whose` names the release in the error ("this machine's").
Status replace_pseudo_preset(std::string_view spec, std::string_view pseudo,
                             std::string_view release, std::string_view whose, std::string* out) {
  if (!leads_with(spec, pseudo)) {
    out->assign(spec);
    return Status::ok();
  }
  const std::string preset = kernelsim::kernel_release_preset(release);
  if (preset.empty()) {
    return Status::invalid_argument(std::string(whose) + " kernel release '" +
                                    std::string(release) +
                                    "' names no kernel preset: name one (trace-replay policies)");
  }
  *out = preset + std::string(spec.substr(pseudo.size()));
  return Status::ok();
}

}  // namespace

std::string running_kernel_release() {
  utsname u{};
  if (::uname(&u) != 0) return "";
  return u.release;
}

Status substitute_running_kernel(std::string_view spec, std::string* out) {
  const bool names_it = leads_with(spec, kRunningKernelPreset);  // uname() only then
  return replace_pseudo_preset(spec, kRunningKernelPreset,
                               names_it ? running_kernel_release() : std::string(),
                               "this machine's", out);
}

bool names_recorded_kernel(std::string_view spec) {
  return leads_with(spec, kRecordedKernelPreset);
}

Status substitute_recorded_kernel(std::string_view spec, std::string_view release,
                                  std::string* out) {
  if (names_recorded_kernel(spec) && release.empty()) {
    return Status::invalid_argument(
        "the trace names no kernel it was recorded on (`record` and perf script imports with "
        "their header write it; generated traces and strace imports have none): name a preset "
        "(trace-replay policies)");
  }
  return replace_pseudo_preset(spec, kRecordedKernelPreset, release, "the trace's", out);
}

std::string describe_policy(std::string_view spec) {
  if (!leads_with(spec, kRunningKernelPreset)) return std::string(spec);
  const std::string release = running_kernel_release();
  const std::string preset = kernelsim::kernel_release_preset(release);
  return std::string(spec) + " (" + (preset.empty() ? "no preset" : preset) + ", kernel " +
         release + ")";
}

}  // namespace mmreplay::replay

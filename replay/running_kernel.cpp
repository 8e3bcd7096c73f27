#include "replay/running_kernel.h"

#include <sys/utsname.h>

#include "kernelsim/policy/presets.h"

namespace mmreplay::replay {
namespace {

// True when the first '+'-separated item of `spec` is `preset`.
bool leads_with(std::string_view spec, std::string_view preset) {
  return spec.substr(0, spec.find('+')) == preset;
}

bool leads_with_running_kernel(std::string_view spec) {
  return leads_with(spec, kRunningKernelPreset);
}

}  // namespace

std::string running_kernel_release() {
  utsname u{};
  if (::uname(&u) != 0) return "";
  return u.release;
}

Status substitute_running_kernel(std::string_view spec, std::string* out) {
  if (!leads_with_running_kernel(spec)) {
    out->assign(spec);
    return Status::ok();
  }
  const std::string release = running_kernel_release();
  const std::string preset = kernelsim::kernel_release_preset(release);
  if (preset.empty()) {
    return Status::invalid_argument("this machine's kernel release '" + release +
                                    "' names no kernel preset: name one (trace-replay policies)");
  }
  *out = preset + std::string(spec.substr(kRunningKernelPreset.size()));
  return Status::ok();
}

bool names_recorded_kernel(std::string_view spec) {
  return leads_with(spec, kRecordedKernelPreset);
}

Status substitute_recorded_kernel(std::string_view spec, std::string_view release,
                                  std::string* out) {
  if (!names_recorded_kernel(spec)) {
    out->assign(spec);
    return Status::ok();
  }
  if (release.empty()) {
    return Status::invalid_argument(
        "the trace names no kernel it was recorded on (`record` and perf script imports with "
        "their header write it; generated traces and strace imports have none): name a preset "
        "(trace-replay policies)");
  }
  const std::string preset = kernelsim::kernel_release_preset(release);
  if (preset.empty()) {
    return Status::invalid_argument("the trace's kernel release '" + std::string(release) +
                                    "' names no kernel preset: name one (trace-replay policies)");
  }
  *out = preset + std::string(spec.substr(kRecordedKernelPreset.size()));
  return Status::ok();
}

std::string describe_policy(std::string_view spec) {
  if (!leads_with_running_kernel(spec)) return std::string(spec);
  const std::string release = running_kernel_release();
  const std::string preset = kernelsim::kernel_release_preset(release);
  return std::string(spec) + " (" + (preset.empty() ? "no preset" : preset) + ", kernel " +
         release + ")";
}

}  // namespace mmreplay::replay

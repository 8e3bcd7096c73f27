// The policy pseudo-presets that name a kernel release rather than a preset, each resolved to the
// release preset kernelsim::kernel_release_preset() gives (linux-6.18 for a 6.18 kernel):
//   running-kernel   the kernel this machine runs (uname -r): for a fit of the model to native
//                    runs made here (calibrate) and their validations;
//   recorded-kernel  the kernel the trace was recorded on (its header's kernel release, which
//                    `record` writes, and an import of `perf script --header` output): for a
//                    replay of a user's recording as recorded, with what-ifs as knobs after it.
// Either may lead a spec like any preset ("recorded-kernel+tlb=broadcast").

#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::replay {

inline constexpr std::string_view kRunningKernelPreset = "running-kernel";
inline constexpr std::string_view kRecordedKernelPreset = "recorded-kernel";

// uname -r of this machine; "" when uname() fails.
std::string running_kernel_release();

// `spec` with a leading "running-kernel" replaced by this machine's release preset into *out;
// any other spec is copied as it is. InvalidArgument when this machine's release names no
// preset (then *out is unchanged).
Status substitute_running_kernel(std::string_view spec, std::string* out);

// True when `spec` leads with "recorded-kernel": resolve_policy() refuses it, and a study
// resolves it with its trace's release (substitute_recorded_kernel()).
bool names_recorded_kernel(std::string_view spec);

// `spec` with a leading "recorded-kernel" replaced by the release preset of `release` (a trace's
// recorder kernel release) into *out. InvalidArgument when `release` is empty (a generated trace,
// an strace import) or names no preset; *out is then unchanged.
Status substitute_recorded_kernel(std::string_view spec, std::string_view release,
                                  std::string* out);

// How a results header names `spec`: "running-kernel (linux-6.18, kernel 6.18.44-fc-v1252)" for
// one that leads with the pseudo-preset, the spec itself otherwise.
std::string describe_policy(std::string_view spec);

}  // namespace mmreplay::replay

// The policy pseudo-preset "running-kernel": the kernel-release preset of the kernel this machine
// runs (uname -r through kernelsim::kernel_release_preset(): linux-6.18 on a 6.18 kernel). What a
// replay of a program recorded here, or a fit of the model to native runs made here, should
// model by default: the recording kernel, not the model's defaults. It may lead a spec like any
// preset ("running-kernel+tlb=broadcast").

#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::replay {

inline constexpr std::string_view kRunningKernelPreset = "running-kernel";

// uname -r of this machine; "" when uname() fails.
std::string running_kernel_release();

// `spec` with a leading "running-kernel" replaced by this machine's release preset into *out;
// any other spec is copied as it is. InvalidArgument when this machine's release names no
// preset (then *out is unchanged).
Status substitute_running_kernel(std::string_view spec, std::string* out);

// How a results header names `spec`: "running-kernel (linux-6.18, kernel 6.18.44-fc-v1252)" for
// one that leads with the pseudo-preset, the spec itself otherwise.
std::string describe_policy(std::string_view spec);

}  // namespace mmreplay::replay

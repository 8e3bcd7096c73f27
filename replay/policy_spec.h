// A study's policies as the user writes them on the command line: a comma-separated list (or
// repeated --policy) of specs, each a preset optionally followed by "+knob=value" overrides
// ("linux-4.5+madvise=vector") or bare overrides of the defaults ("tlb=broadcast"). The preset
// may be "running-kernel", this machine's release preset, or "recorded-kernel", the trace's
// (replay/running_kernel.h).
//
// A spec holds two kinds of knob: the kernel's (kernelsim/policy/knob_table.h), which kernelsim
// expands and validates (kernelsim/policy/presets.h), and trace rewrites (purge_advice,
// madvise_batch: replay/trace_rewrite_knobs.h), which change what user space did and which
// kernelsim never sees. This layer splits a spec between the two, keeps their errors in one voice,
// and adds the flag to errors: "linux-6.6+purge_advice=free+madvise_batch=64".

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kernelsim/policy/kernel_config.h"
#include "replay/trace_rewrite_knobs.h"

namespace mmreplay::replay {

// *config and *rewrites from `spec`; an error names the flag, the spec and the bad preset, knob
// or value (with the values the knob takes). Both outputs are unchanged on error.
Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config,
                      TraceRewrites* rewrites);

// A spec leading with "recorded-kernel" (replay/running_kernel.h) names the kernel of the trace
// it replays, so resolve_policy() refuses it. check_recorded_kernel_spec() checks what follows it
// before any trace is read (the newest release preset standing in), and resolve_recorded_policy()
// resolves it with the trace's recorder kernel release; any other spec goes to resolve_policy().
Status check_recorded_kernel_spec(std::string_view spec);
Status resolve_recorded_policy(std::string_view spec, std::string_view release,
                               kernelsim::KernelConfig* config, TraceRewrites* rewrites);

// Kernel knobs only, for callers that replay no recorded user space (benchmarks of the model):
// a trace rewrite in `spec` is an error there, never silently dropped.
Status resolve_policy(std::string_view spec, kernelsim::KernelConfig* config);

// True when `spec` sets kernel knob `key` itself ("linux-6.6+read_ahead_kb=512"), rather than
// leaving it to its preset or the default. Replay lets a knob the user gave override what the
// trace recorded of the machine (replay/run.cpp: read_ahead_kb over each file's device's).
bool policy_names_knob(std::string_view spec, std::string_view key);

// Every knob, defaults included: the kernel's (kernelsim::format_knobs), then the rewrites. What a
// run's results record as `policy_knobs`.
std::string format_policy_knobs(const kernelsim::KernelConfig& config,
                                const TraceRewrites& rewrites);

// Splits repeated --policy values that may each hold a comma-separated list; empty items are an
// error for resolve_policy, so they are kept. No value at all means "default".
std::vector<std::string> split_policy_list(const std::vector<std::string>& values);

}  // namespace mmreplay::replay

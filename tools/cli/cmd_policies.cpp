// trace-replay policies: the presets and every knob with its values, default and source: the
// kernel's knobs (kernelsim's table), then the trace rewrites (replay/trace_rewrite_knobs.h),
// which combine with them in one policy ("linux-6.6+purge_advice=free+madvise_batch=64").

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "kernelsim/policy/knob_table.h"
#include "kernelsim/policy/presets.h"
#include "replay/policy_spec.h"
#include "replay/running_kernel.h"
#include "tools/cli/commands.h"

namespace mmreplay::tools {

void register_policies_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("policies", "List policy presets and knobs");
  cmd->callback([exit_code] {
    std::printf("presets (use as --policy NAME or NAME+knob=value+...):\n");
    for (const auto& p : kernelsim::policy_presets()) {
      const std::string knobs = p.knobs.empty() ? "(defaults)" : p.knobs;
      std::printf("  %-12s %s\n  %-12s   = %s%s\n", p.name.c_str(), p.source.c_str(), "",
                  p.base.empty() ? "" : (p.base + " + ").c_str(), knobs.c_str());
    }
    const std::string release = replay::running_kernel_release();
    const std::string here = kernelsim::kernel_release_preset(release);
    std::printf("  %-12s the preset of the kernel this machine runs (uname -r): %s%s\n",
                std::string(replay::kRunningKernelPreset).c_str(),
                here.empty() ? "none for " : (here + " for ").c_str(), release.c_str());
    std::printf(
        "  %-12s the preset of the kernel the trace was recorded on (its header's kernel "
        "release: record and perf script imports write it, trace-replay info shows it)\n",
        std::string(replay::kRecordedKernelPreset).c_str());
    std::printf("\nknobs (default marked *):\n");
    for (const kernelsim::KnobInfo& knob : kernelsim::kernel_knobs()) {
      const std::string_view def = knob.default_value();
      std::printf("  %s: %s (default %.*s)\n", knob.key.c_str(), knob.doc.c_str(),
                  static_cast<int>(def.size()), def.data());
      for (const kernelsim::KnobValue& v : knob.values) {
        std::printf("    %s %-14s %s\n", v.name == def ? "*" : " ", v.name.c_str(), v.doc.c_str());
      }
    }
    std::printf(
        "\ntrace rewrites (what user space did, changed as replay reads each thread; "
        "default marked *):\n");
    for (const replay::RewriteKnobInfo& knob : replay::rewrite_knobs()) {
      // The default of each is the first value listed (as-recorded, off).
      const std::string& def = knob.values.front().name;
      std::printf("  %s: %s (default %s)\n", knob.key.c_str(), knob.doc.c_str(), def.c_str());
      for (const kernelsim::KnobValue& v : knob.values) {
        std::printf("    %s %-14s %s\n", v.name == def ? "*" : " ", v.name.c_str(), v.doc.c_str());
      }
    }
    std::printf(
        "\nmachines (sockets, cores, SMT, memory and distance costs): trace-replay machines; "
        "pick one with --machine NAME\n");
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools

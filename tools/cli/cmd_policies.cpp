// trace-replay policies: the presets and every knob with its values, default and source.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "kernelsim/policy/presets.h"
#include "kernelsim/policy/registry.h"
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
    kernelsim::PolicyRegistry registry;
    kernelsim::register_builtin_policies(registry);
    std::printf("\nknobs (default first):\n");
    for (const auto& knob : registry.knobs()) {
      std::printf("  %s: %s (default %s)\n", knob.key.c_str(), knob.description.c_str(),
                  knob.default_value.c_str());
      for (const auto& v : knob.values) {
        std::printf("      %-14s %s\n", v.name.c_str(), v.description.c_str());
      }
    }
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools

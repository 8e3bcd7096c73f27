// trace-replay check FILE: verifies every frame, checksum and the index against the content.
// Exit 0 and one summary line when sound; one line naming the byte offset when not (exit 2 for a
// corrupt or foreign file, see exit_code.h).

#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>

#include "formats/trace_check.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

namespace mmreplay::tools {

void register_check_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("check", "Verify every frame, checksum and the index of a trace");
  auto path = std::make_shared<std::string>();
  cmd->add_option("file", *path, "the .mmtrace file")->required();
  cmd->callback([path, exit_code] {
    formats::CheckReport report;
    const Status status = formats::check_trace(*path, &report);
    if (status) {
      std::printf("%s: ok: %" PRIu64 " frames, %" PRIu64 " chunks, %" PRIu64
                  " events, index matches\n",
                  path->c_str(), report.frames, report.chunks, report.events);
    }
    *exit_code = report_status("trace-replay check", status);
  });
}

}  // namespace mmreplay::tools

// trace-replay report RESULTS.json ... -o report.html: one self-contained HTML file with SVG
// charts from the results of replay, compare and scale studies (tools/report/report_html.h).

#include <CLI/CLI.hpp>

#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"
#include "tools/report/report_html.h"

namespace mmreplay::tools {

void register_report_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("report", "Write an HTML report with plots from results JSON");
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("results", args->inputs, "results JSON of replay, compare or scale (--json)")
      ->required();
  cmd->add_option("-o,--output", args->output, "the HTML file to write")->required();
  cmd->callback([args, exit_code] {
    const Status status = report::write_report(args->inputs, args->output);
    if (status) {
      std::printf("%s: report of %zu results file%s\n", args->output.c_str(), args->inputs.size(),
                  args->inputs.size() == 1 ? "" : "s");
    }
    *exit_code = report_status("trace-replay report", status);
  });
}

}  // namespace mmreplay::tools

// trace-replay report RESULTS.json ... -o report.html: one self-contained HTML file with SVG
// charts from the results of replay, compare and scale studies (tools/report/report_html.h).

#include <CLI/CLI.hpp>

#include <cstdio>

#include "tools/cli/commands.h"
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
    if (formats::Status s = report::write_report(args->inputs, args->output); !s) {
      std::fprintf(stderr, "trace-replay report: %s\n", s.message().c_str());
      *exit_code = kExitBadInput;
      return;
    }
    std::printf("%s: report of %zu results file%s\n", args->output.c_str(), args->inputs.size(),
                args->inputs.size() == 1 ? "" : "s");
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools

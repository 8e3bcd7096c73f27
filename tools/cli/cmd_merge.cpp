// trace-replay merge A.json B.json ... -o OUT.json: combines the shards of a study exactly.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>

#include "formats/atomic_file.h"
#include "replay/results_json.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

namespace mmreplay::tools {

void register_merge_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("merge", "Merge the JSON results of a study's shards");
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("inputs", args->inputs, "results JSON of each shard")->required();
  cmd->add_option("-o,--output", args->output, "merged results JSON")->required();
  cmd->callback([args, exit_code] {
    nlohmann::json merged;
    Status status = replay::merge_results(args->inputs, &merged);
    if (status) {
      status = formats::write_file_atomically(
          args->output, [&](std::ostream& out) { out << merged.dump(1) << "\n"; });
    }
    if (status) {
      std::printf("%s: %zu runs from %zu shards\n", args->output.c_str(), merged["runs"].size(),
                  args->inputs.size());
    }
    *exit_code = report_status("trace-replay merge", status);
  });
}

}  // namespace mmreplay::tools

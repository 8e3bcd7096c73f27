// trace-replay merge A.json B.json ... -o OUT.json: combines the shards of a study exactly.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>

#include "replay/results_json.h"
#include "tools/cli/commands.h"

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
    if (formats::Status s = replay::merge_results(args->inputs, &merged); !s) {
      std::fprintf(stderr, "trace-replay merge: %s\n", s.message().c_str());
      *exit_code = kExitBadInput;
      return;
    }
    std::ofstream out(args->output);
    out << merged.dump(1) << "\n";
    if (!out) {
      std::fprintf(stderr, "trace-replay merge: %s: cannot write\n", args->output.c_str());
      *exit_code = kExitRunFailure;
      return;
    }
    std::printf("%s: %zu runs from %zu shards\n", args->output.c_str(), merged["runs"].size(),
                args->inputs.size());
    *exit_code = kExitOk;
  });
}

}  // namespace mmreplay::tools

// See gen_command.h.

#include "tools/gen/gen_command.h"

#include <vector>

#include "tools/gen/generate.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

// Exit codes of DESIGN.md's interface conventions (also tools/cli/commands.h).
constexpr int kExitOk = 0;
constexpr int kExitRunFailure = 1;
constexpr int kExitBadInput = 2;

struct GenArgs {
  bool list = false;
  std::string workload;
  std::string output;
  std::vector<std::string> params;
};

// Splits gen's own options (--list, -o/--output, the workload name) from the workload's.
bool split_args(std::span<const std::string> args, GenArgs* out, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--list") {
      out->list = true;
    } else if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size()) {
        *error = arg + ": missing file name";
        return false;
      }
      out->output = args[++i];
    } else if (arg.rfind("--output=", 0) == 0) {
      out->output = arg.substr(9);
    } else if (arg.rfind("-o", 0) == 0 && arg.size() > 2 && arg[2] != '-') {
      out->output = arg.substr(arg[2] == '=' ? 3 : 2);
    } else if (out->workload.empty() && !arg.empty() && arg[0] != '-') {
      out->workload = arg;
    } else {
      out->params.push_back(arg);
    }
  }
  return true;
}

}  // namespace

int run_gen_command(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  GenArgs gen;
  std::string error;
  if (!split_args(args, &gen, &error)) {
    err << "gen: " << error << "\n";
    return kExitBadInput;
  }
  if (gen.list) {
    out << describe_workloads();
    return kExitOk;
  }
  if (gen.workload.empty()) {
    err << "gen: missing workload name (gen --list shows them)\n";
    return kExitBadInput;
  }
  PreparedWorkload prepared;
  formats::Status status = prepare_workload(gen.workload, gen.params, gen.output, &prepared);
  if (!status.is_ok()) {
    err << "gen: " << status.message() << "\n";
    return kExitBadInput;
  }
  if (gen.output.empty()) {
    err << "gen: missing -o FILE.mmtrace\n";
    return kExitBadInput;
  }
  GenStats stats;
  status = generate_to_file(prepared, gen.output, formats::WriterOptions{}, &stats);
  if (!status.is_ok()) {
    err << "gen: " << status.message() << "\n";
    return kExitRunFailure;
  }
  out << gen.output << ": " << prepared.spec->name << ", " << stats.events << " events, "
      << stats.chunks << " chunks, " << stats.bytes << " bytes\n";
  return kExitOk;
}

}  // namespace mmreplay::gen

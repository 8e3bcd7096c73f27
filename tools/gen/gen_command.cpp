// See gen_command.h.

#include "tools/gen/gen_command.h"

#include <vector>

#include "tools/gen/generate.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

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

Status run_gen_command(std::span<const std::string> args, std::ostream& out) {
  GenArgs gen;
  std::string error;
  if (!split_args(args, &gen, &error)) return Status::invalid_argument(error);
  if (gen.list) {
    out << describe_workloads();
    return Status::ok();
  }
  if (gen.workload.empty()) {
    return Status::invalid_argument("missing workload name (gen --list shows them)");
  }
  PreparedWorkload prepared;
  if (Status s = prepare_workload(gen.workload, gen.params, gen.output, &prepared); !s) return s;
  if (gen.output.empty()) return Status::invalid_argument("missing -o FILE.mmtrace");
  GenStats stats;
  if (Status s = generate_to_file(prepared, gen.output, formats::WriterOptions{}, &stats); !s) {
    return s;
  }
  out << gen.output << ": " << prepared.spec->name << ", " << stats.events << " events, "
      << stats.chunks << " chunks, " << stats.bytes << " bytes\n";
  return Status::ok();
}

}  // namespace mmreplay::gen

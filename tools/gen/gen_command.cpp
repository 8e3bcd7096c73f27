// See gen_command.h.

#include "tools/gen/gen_command.h"

#include <string_view>
#include <vector>

#include "tools/gen/generate.h"
#include "tools/gen/registry.h"
#include "tools/gen/size_estimate.h"

namespace mmreplay::gen {
namespace {

constexpr std::string_view kMaxBytesFlag = "--max-bytes";

struct GenArgs {
  bool list = false;
  std::string workload;
  std::string output;
  uint64_t max_bytes = kDefaultMaxTraceBytes;
  std::vector<std::string> params;
};

bool parse_max_bytes(std::string_view text, uint64_t* max_bytes, std::string* error) {
  if (parse_bytes(text, max_bytes)) return true;
  *error = std::string(kMaxBytesFlag) + ": bad size '" + std::string(text) + "'";
  return false;
}

// Splits gen's own options (--list, -o/--output, --max-bytes, the workload name) from the
// workload's.
bool split_args(std::span<const std::string> args, GenArgs* out, std::string* error) {
  const std::string max_bytes_equals = std::string(kMaxBytesFlag) + "=";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == kMaxBytesFlag) {
      if (i + 1 >= args.size()) {
        *error = arg + ": missing size";
        return false;
      }
      if (!parse_max_bytes(args[++i], &out->max_bytes, error)) return false;
    } else if (arg.rfind(max_bytes_equals, 0) == 0) {
      if (!parse_max_bytes(arg.substr(max_bytes_equals.size()), &out->max_bytes, error)) {
        return false;
      }
    } else if (arg == "--list") {
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

// Prints the expected size on `err`; refuses a trace whose estimate is over the limit.
Status check_estimate(const PreparedWorkload& prepared, uint64_t max_bytes, std::ostream& err) {
  const TraceEstimate estimate = prepared.workload->estimate();
  err << "gen: expecting " << describe_estimate(estimate) << "\n";
  if (estimated_bytes(estimate) <= static_cast<long double>(max_bytes)) return Status::ok();
  return Status::invalid_argument(
      prepared.spec->name + ": expecting " + describe_estimate(estimate) + ", over " +
      std::string(kMaxBytesFlag) + " " + std::to_string(max_bytes) + " (" +
      human_size(static_cast<long double>(max_bytes)) + "): lower " + estimate.main_param +
      " (or raise " + std::string(kMaxBytesFlag) + ")");
}

}  // namespace

Status run_gen_command(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
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
  if (Status s = check_estimate(prepared, gen.max_bytes, err); !s) return s;
  GenStats stats;
  if (Status s =
          generate_to_file(prepared, gen.output, formats::WriterOptions{}, &stats, gen.max_bytes);
      !s) {
    return s;
  }
  out << gen.output << ": " << prepared.spec->name << ", " << stats.events << " events, "
      << stats.chunks << " chunks, " << stats.bytes << " bytes\n";
  return Status::ok();
}

}  // namespace mmreplay::gen

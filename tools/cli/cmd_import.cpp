// trace-replay import --from perf-script|strace|trace-cmd IN -o OUT.mmtrace [--wmem-default B]
//                     [--wmem-max B]
// Converts a recording made by another tool into an .mmtrace; prints what it found (events per
// kind, threads, unknown lines, implicit mappings) on stderr. A malformed line is reported as
// "FILE:LINE: ..." (exit 2, as a missing input is), and so is an input the format cannot be read
// from (the message names the options to record it with) or one in which nothing reads as the
// format; then the output is not touched. An output that cannot be written exits 1.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "formats/atomic_file.h"
#include "formats/import/import.h"
#include "formats/import/socket_wakeups.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

namespace mmreplay::tools {

void register_import_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("import", "Convert a perf script, strace or trace-cmd recording");
  struct Args {
    std::string from;
    std::string input;
    std::string output;
    bool quiet = false;
    uint64_t wmem_default = 0;
    uint64_t wmem_max = 0;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--from", args->from, "input format")
      ->required()
      ->check(CLI::IsMember({"perf-script", "strace", "trace-cmd"}));
  cmd->add_option("input", args->input, "perf script text, strace log or trace.dat")->required();
  cmd->add_option("-o,--output", args->output, "the .mmtrace to write")->required();
  cmd->add_flag("-q,--quiet", args->quiet, "no report on stderr");
  // sk_sndbuf is an int, and never below SOCK_MIN_SNDBUF.
  cmd->add_option("--wmem-default", args->wmem_default,
                  "net.core.wmem_default of the recording machine in bytes (a new socket's send "
                  "buffer; default 212992, the kernel's); kept in the trace header")
      ->check(CLI::Range(formats::detail::kSockMinSndbuf, uint64_t{INT32_MAX}));
  cmd->add_option("--wmem-max", args->wmem_max,
                  "net.core.wmem_max of the recording machine in bytes (the cap on a "
                  "setsockopt SO_SNDBUF; default 212992); kept in the trace header")
      ->check(CLI::Range(formats::detail::kSockMinSndbuf, uint64_t{INT32_MAX}));
  cmd->callback([args, exit_code] {
    formats::ImportFormat format;
    formats::import_format_from_name(args->from, &format);
    formats::ImportedTrace trace;
    formats::ImportReport report;
    // The output is checked before the input is read (exit 1 for an unwritable one).
    Status status = formats::check_output_path(args->output, "-o");
    formats::ImportOptions options;
    options.wmem_default = args->wmem_default;
    options.wmem_max = args->wmem_max;
    if (status) status = formats::import_file(format, args->input, &trace, &report, options);
    if (status) {
      trace.meta.recorder.command_line = trace.meta.recorder.command_line.empty()
                                             ? "(imported from " + args->input + ")"
                                             : trace.meta.recorder.command_line;
      status = formats::write_imported_trace(trace, args->output, formats::WriterOptions{});
    }
    if (status && !args->quiet) {
      std::fprintf(stderr, "%s: %s", args->input.c_str(), formats::format_report(report).c_str());
    }
    *exit_code = report_status("trace-replay import", status);
  });
}

}  // namespace mmreplay::tools

// The options shared by the commands that run studies (replay, compare, scale) and the code that
// turns them into a replay::Study, runs it, prints the table and writes --json/--csv/--hgrm and
// the HTML --report.

#pragma once

#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace mmreplay::tools {

struct StudyArgs {
  std::string command;                // "replay", "compare", "scale"
  std::string trace;                  // TRACE (or empty with --workload on scale)
  std::string workload;               // scale: "NAME --param value ..." generated per CPU count
  std::vector<std::string> policies;  // each may be a comma-separated list
  std::vector<uint32_t> cpus;         // scale: the core counts; others: at most one
  std::string memory;                 // "3G"
  std::string swap;
  std::string swap_device;
  uint64_t min_free_kbytes = 0;
  std::string memcg_limit;
  std::string cma;  // "64M"
  std::string profile = "default";
  std::string machine;  // --machine: a preset (trace-replay machines); "" = none
  std::string timing = "closed";
  std::string placement = "spread";
  std::string cache = "auto";  // --cache: page-cache state of the trace's files at the start
  int threads = 0;
  std::string shard = "1/1";
  std::string json_path, csv_path, hgrm_dir;
  size_t cache_chunks = 0;
  bool skip_damaged = false;    // --skip-damaged: drop chunks that do not decode, replay the rest
  bool keep_going = false;      // --keep-going: a failed run does not discard the others' results
  std::string report_path;      // compare, scale: --report FILE (HTML)
  std::string timeline_path;    // replay: --timeline FILE.json
  std::string timeline_window;  // replay: --timeline-window START:END
};

// Adds the shared options to `cmd`; `args` must outlive parsing.
void add_study_options(CLI::App* cmd, StudyArgs* args);

// Adds --report FILE (compare and scale).
void add_report_option(CLI::App* cmd, StudyArgs* args);

// Adds replay's --timeline and --timeline-window to `cmd`.
void add_timeline_options(CLI::App* cmd, StudyArgs* args);

// Runs the study described by `args`; returns the process exit code.
int run_study_command(const StudyArgs& args);

}  // namespace mmreplay::tools

// trace-replay cat FILE [--thread TID] [--limit N]: events as text lines, all threads merged in
// timestamp order (ties by stream id), one line each:
//   <seconds.ns> <tid> <kind> field=value ...

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "formats/event_text.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"

namespace mmreplay::tools {
namespace {

struct Args {
  std::string path;
  std::vector<uint64_t> tids;  // empty = all threads
  uint64_t limit = 0;          // 0 = no limit
};

struct Source {
  uint32_t stream;
  std::unique_ptr<formats::StreamCursor> cursor;
};

int run_cat(const Args& args) {
  auto reader = open_trace_or_report(args.path);
  if (!reader) return kExitBadInput;
  const auto& threads = reader->meta().threads;
  std::vector<Source> sources;
  for (uint32_t s = 0; s < threads.size(); ++s) {
    bool wanted = args.tids.empty();
    for (uint64_t tid : args.tids) wanted = wanted || threads[s].tid == tid;
    if (wanted) sources.push_back({s, std::make_unique<formats::StreamCursor>(*reader, s)});
  }
  if (!args.tids.empty() && sources.empty()) {
    std::fprintf(stderr, "trace-replay cat: --thread: no such tid in %s\n", args.path.c_str());
    return kExitBadInput;
  }
  // Min-heap of (timestamp, source index); the index breaks ties, so output is deterministic.
  using Item = std::pair<uint64_t, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  auto advance = [&](size_t i) -> bool {
    formats::StreamCursor& c = *sources[i].cursor;
    if (c.next()) {
      heap.emplace(c.event().ts_ns, i);
      return true;
    }
    if (c.status()) return true;
    std::fprintf(stderr, "trace-replay cat: %s\n", c.status().message().c_str());
    return false;
  };
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!advance(i)) return kExitBadInput;
  }
  std::string line;
  for (uint64_t printed = 0; !heap.empty() && (args.limit == 0 || printed < args.limit);
       ++printed) {
    const size_t i = heap.top().second;
    heap.pop();
    const formats::StreamCursor& c = *sources[i].cursor;
    line = seconds_from_ns(c.event().ts_ns);
    line += ' ';
    line += std::to_string(threads[sources[i].stream].tid);
    line += ' ';
    formats::append_event_fields(c.event(), c.ranges(), &line);
    line += '\n';
    std::fputs(line.c_str(), stdout);
    if (!advance(i)) return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

void register_cat_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("cat", "Print the events of a trace as text, in time order");
  auto args = std::make_shared<Args>();
  cmd->add_option("file", args->path, "the .mmtrace file")->required();
  cmd->add_option("--thread", args->tids, "only these thread ids (repeatable)");
  cmd->add_option("--limit", args->limit, "print at most N events (0 = all)");
  cmd->callback([args, exit_code] { *exit_code = run_cat(*args); });
}

}  // namespace mmreplay::tools

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
#include "tools/cli/exit_code.h"

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

Status run_cat(const Args& args) {
  std::unique_ptr<formats::TraceReader> reader;
  if (Status s = open_trace(args.path, &reader); !s) return s;
  const auto& threads = reader->meta().threads;
  std::vector<Source> sources;
  for (uint32_t s = 0; s < threads.size(); ++s) {
    bool wanted = args.tids.empty();
    for (uint64_t tid : args.tids) wanted = wanted || threads[s].tid == tid;
    if (wanted) sources.push_back({s, std::make_unique<formats::StreamCursor>(*reader, s)});
  }
  if (!args.tids.empty() && sources.empty()) {
    return Status::invalid_argument("--thread: no such tid in " + args.path);
  }
  // Min-heap of (timestamp, source index); the index breaks ties, so output is deterministic.
  using Item = std::pair<uint64_t, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  // Queues source i's next event; a decode error ends the listing with that error.
  auto advance = [&](size_t i) -> Status {
    formats::StreamCursor& c = *sources[i].cursor;
    if (c.next()) heap.emplace(c.event().ts_ns, i);
    return c.status();
  };
  for (size_t i = 0; i < sources.size(); ++i) {
    if (Status s = advance(i); !s) return s;
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
    if (Status s = advance(i); !s) return s;
  }
  return Status::ok();
}

}  // namespace

void register_cat_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("cat", "Print the events of a trace as text, in time order");
  auto args = std::make_shared<Args>();
  cmd->add_option("file", args->path, "the .mmtrace file")->required();
  cmd->add_option("--thread", args->tids, "only these thread ids (repeatable)");
  cmd->add_option("--limit", args->limit, "print at most N events (0 = all)");
  cmd->callback(
      [args, exit_code] { *exit_code = report_status("trace-replay cat", run_cat(*args)); });
}

}  // namespace mmreplay::tools

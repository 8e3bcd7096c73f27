#include "formats/import/import_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace mmreplay::formats {

std::string format_report(const ImportReport& r) {
  std::string out = fmt::format("{} lines: {} events, {} threads in {} processes, {} files\n",
                                r.lines, r.events, r.threads, r.processes, r.files);
  std::string kinds;
  for (int k = 0; k < kEventKindCount; ++k) {
    if (r.events_per_kind[k] == 0) continue;
    kinds += fmt::format(" {}={}", kind_name(static_cast<EventKind>(k)), r.events_per_kind[k]);
  }
  out += fmt::format("  events:{}\n", kinds);
  out += fmt::format("  {} with observed duration; think time {:.6f} s\n", r.events_with_duration,
                     static_cast<double>(r.think_time_ns) / 1e9);
  out += fmt::format("  page faults: {} in known mappings, {} outside ({} implicit mappings)\n",
                     r.faults_in_known_mappings, r.faults_outside_mappings,
                     r.implicit_mappings.size());
  for (const ImplicitMapping& m : r.implicit_mappings) {
    out += fmt::format("    implicit mapping mm {} [{:#x}, {:#x}) {} KiB, {} faults\n", m.mm_id,
                       m.start, m.end, (m.end - m.start) >> 10, m.faults);
  }
  std::string files;
  for (size_t k = 0; k < kFileKindCount; ++k) {
    if (r.files_per_kind[k] == 0) continue;
    files += fmt::format(" {}={}", file_kind_name(static_cast<FileKind>(k)), r.files_per_kind[k]);
  }
  out += fmt::format("  {} descriptor calls (open, pipe, socket, dup, close, ...); files:{}\n",
                     r.fd_calls, files.empty() ? " none" : files);
  if (r.files_named_by_mappings != 0) {
    out += fmt::format(
        "  {} files named by the mappings perf recorded (libraries the loader opened)\n",
        r.files_named_by_mappings);
  }
  if (r.failed_calls + r.unmatched_exits + r.unfinished_calls + r.ignored_events > 0) {
    out += fmt::format(
        "  {} failed calls, {} exits without enter, {} unfinished calls ({} dropped), {} ignored "
        "events\n",
        r.failed_calls, r.unmatched_exits, r.unfinished_calls, r.dropped_unfinished,
        r.ignored_events);
  }
  if (!r.ignored_by_name.empty()) {
    // Most frequent first, so the calls a workload leans on show at the front.
    std::vector<std::pair<std::string, uint64_t>> by_count(r.ignored_by_name.begin(),
                                                           r.ignored_by_name.end());
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string names;
    for (const auto& [name, n] : by_count) names += fmt::format(" {} x{}", name, n);
    out += fmt::format("  ignored (not modelled):{}\n", names);
  }
  if (r.vector_madvise_without_ranges > 0) {
    out += fmt::format("  {} process_madvise calls without decoded ranges\n",
                       r.vector_madvise_without_ranges);
  }
  if (r.vector_madvise_ranges_truncated > 0) {
    out += fmt::format("  {} process_madvise calls with only their first ranges decoded\n",
                       r.vector_madvise_ranges_truncated);
  }
  // The ordering edges are futex_wait events too (event.h kOrderUaddr), one per edge.
  const uint64_t order_waits = r.address_order_edges + r.pipe_wakeup_edges + r.socket_wakeup_edges;
  const uint64_t futex_waits = r.events_per_kind[static_cast<size_t>(EventKind::kFutexWait)];
  if (futex_waits > order_waits) {
    out += fmt::format(
        "  {} of {} futex waits paired with the wake that ended them, {} with a thread's exit\n",
        r.futex_waits_paired, futex_waits - order_waits, r.futex_waits_ended_by_exit);
  }
  if (r.address_order_edges > 0) {
    out += fmt::format(
        "  {} ordering edges: a thread's use of a range after another thread mapped it\n",
        r.address_order_edges);
  }
  if (r.pipe_wakeup_edges + r.pipe_calls_slept > 0) {
    out += fmt::format(
        "  {} pipe ordering edges (a read after the write of its data, a write after the read "
        "that made its room); {} pipe calls blocked\n",
        r.pipe_wakeup_edges, r.pipe_calls_slept);
  }
  if (r.socket_wakeup_edges + r.socket_calls_slept + r.socket_calls_unpaired > 0) {
    out += fmt::format(
        "  {} socket ordering edges (as a pipe's, per direction); {} socket calls blocked; {} "
        "socket reads/writes with the other end not in the recording (not ordered)\n",
        r.socket_wakeup_edges, r.socket_calls_slept, r.socket_calls_unpaired);
  }
  if (r.sync_wakes_on_waker_cpu + r.sync_wakes_on_other_cpu > 0) {
    out += fmt::format(
        "  {} calls woken by those edges ran on the waker's CPU, {} on another (replay places its "
        "sync wake-ups as most did)\n",
        r.sync_wakes_on_waker_cpu, r.sync_wakes_on_other_cpu);
  }
  if (r.readiness_waits_on_edges > 0) {
    out += fmt::format(
        "  {} poll/select/epoll waits replayed as the wait for the write their next read "
        "follows\n",
        r.readiness_waits_on_edges);
  }
  if (r.waits_for_any_child > 0) {
    out += fmt::format(
        "  {} waits for any child (wait4 pid -1) replayed as the first child to exit; {} waits a "
        "child's exit interrupted replayed as that wait\n",
        r.waits_for_any_child, r.waits_ended_by_child_exit);
  }
  if (r.socket_sndbuf_set + r.socket_sndbuf_unknown > 0) {
    out += fmt::format(
        "  {} setsockopt SO_SNDBUF calls sized their socket's send buffer; {} with the value not "
        "recorded (the default kept)\n",
        r.socket_sndbuf_set, r.socket_sndbuf_unknown);
  }
  if (r.socket_writes_in_pieces > 0) {
    out += fmt::format(
        "  {} AF_UNIX stream writes replayed as {} pieces (the skbs a read or a room wait starts "
        "at)\n",
        r.socket_writes_in_pieces, r.socket_write_pieces);
  }
  if (r.socket_connections_paired + r.socket_connects_unpaired + r.socket_accepts_unpaired > 0) {
    out += fmt::format(
        "  {} connections paired from connect and accept; {} connects and {} accepts unpaired\n",
        r.socket_connections_paired, r.socket_connects_unpaired, r.socket_accepts_unpaired);
  }
  if (r.shm_attach_without_size > 0) {
    out += fmt::format("  {} shmat calls of segments created before the recording (size unknown)\n",
                       r.shm_attach_without_size);
  }
  if (r.unknown_flag_names > 0) {
    out += fmt::format("  {} unknown flag names taken as 0\n", r.unknown_flag_names);
  }
  for (const auto& [name, n] : r.observations) out += fmt::format("  observed {} x{}\n", name, n);
  if (r.lost_events > 0) {
    out += fmt::format(
        "  perf LOST {} events (its buffer was full): the trace is short of them, faults "
        "included\n",
        r.lost_events);
  }
  if (r.off_cpu_intervals > 0) {
    out += fmt::format("  off CPU {} times, {:.6f} s ({:.6f} s preempted): not think time\n",
                       r.off_cpu_intervals, static_cast<double>(r.off_cpu_ns) / 1e9,
                       static_cast<double>(r.preempted_ns) / 1e9);
  }
  if (r.blocks_cut_at_wakeup > 0) {
    out += fmt::format(
        "  {} blocking calls end at their wake-up: {:.6f} s after it, waiting for a CPU, left to "
        "the replay's scheduler\n",
        r.blocks_cut_at_wakeup, static_cast<double>(r.blocks_runnable_ns) / 1e9);
  }
  if (r.launcher_lines > 0) {
    out += fmt::format("  {} lines of record's launcher before the command's exec: left out\n",
                       r.launcher_lines);
  }
  out += fmt::format("  {} unknown lines skipped\n", r.unknown_lines);
  for (const std::string& ex : r.unknown_examples) out += fmt::format("    {}\n", ex);
  return out;
}

}  // namespace mmreplay::formats

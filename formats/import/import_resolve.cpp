// ImportBuilder::finish(): (1) each thread's mm, (2) a time-ordered pass over all threads that
// follows each mm's mappings, ties faults to them and gives descriptors file ids and offsets,
// (3) implicit mappings for faults outside every known mapping, (4) the streams, each opened by
// thread_start (and mm_create for a forked child) and the mm's implicit mappings.

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "formats/import/address_ranges.h"
#include "formats/import/import_builder_impl.h"
#include "formats/think_time.h"

namespace mmreplay::formats::detail {
namespace {

struct MmState {
  AddressRanges mapped;  // now
  AddressRanges ever;    // at any time: implicit mappings never span these
  bool brk_known = false;
  uint64_t brk = 0;
  std::map<uint64_t, uint64_t> outside_pages;  // page -> faults, outside every known mapping
  uint32_t first_thread = 0;
};

uint64_t round_up(uint64_t v, uint64_t page) {
  const uint64_t r = v + (page - 1);
  return r < v ? ~(page - 1) : r & ~(page - 1);  // saturate at the top page
}

// The mm of every thread: the pid where known, else through the clone chain, else its own tid.
// Also returns, per thread, the parent mm when the thread starts a new mm by fork.
void resolve_mms(const BuilderState& s, std::vector<uint64_t>* mm,
                 std::vector<std::optional<uint64_t>>* forked_from) {
  const size_t n = s.threads.size();
  mm->assign(n, 0);
  forked_from->assign(n, std::nullopt);
  for (size_t i = 0; i < n; ++i) {
    // Walk up while the mm is inherited; at most n steps, so a clone loop in bad input ends.
    size_t cur = i;
    for (size_t step = 0; step <= n; ++step) {
      const ThreadState& t = s.threads[cur];
      if (t.pid || !t.parent_tid || t.origin == Origin::kNewMm) break;
      auto it = s.index_of.find(*t.parent_tid);
      if (it == s.index_of.end()) break;
      cur = it->second;
    }
    const ThreadState& root = s.threads[cur];
    (*mm)[i] = root.pid ? *root.pid : root.tid;
  }
  for (size_t i = 0; i < n; ++i) {
    const ThreadState& t = s.threads[i];
    if (!t.parent_tid) continue;
    auto it = s.index_of.find(*t.parent_tid);
    if (it == s.index_of.end()) continue;
    const uint64_t parent_mm = (*mm)[it->second];
    if (parent_mm != (*mm)[i]) (*forked_from)[i] = parent_mm;
  }
}

// True when im lies inside one of the parent's implicit mappings.
bool inherited(const std::vector<ImplicitMapping>& parent, const ImplicitMapping& im) {
  for (const ImplicitMapping& p : parent) {
    if (p.start <= im.start && im.end <= p.end) return true;
  }
  return false;
}

struct Ref {
  uint64_t ts;
  uint64_t seq;
  uint32_t thread;
  uint32_t index;
};

class Resolver {
 public:
  Resolver(BuilderState* s, ImportReport* report) : s_(*s), report_(*report), fds_(&file_table_) {}

  ImportedTrace run(RecorderInfo recorder);

 private:
  void apply(uint32_t thread, Item* item);
  void track_fault(MmState* m, const Event& e);
  void apply_fd_op(uint32_t thread, const FdOp& op);
  FdTables::Description& fd(uint32_t thread, int32_t fd) {
    return fds_.lookup(table_of_[thread], mm_[thread], fd);
  }
  std::vector<ImplicitMapping> implicit_mappings(uint64_t mm_id, const MmState& m) const;
  void assemble(ImportedTrace* out);

  BuilderState& s_;
  ImportReport& report_;
  std::vector<uint64_t> mm_;
  std::vector<std::optional<uint64_t>> forked_from_;
  std::map<uint64_t, MmState> mms_;
  std::vector<FileInfo> file_table_;  // before fds_, which extends it
  FdTables fds_;
  // Each thread's descriptor table: its mm's (threads share it) unless a clone without
  // CLONE_FILES gave it a copy of its own (fd_table.h (1)).
  std::vector<uint64_t> table_of_;
  uint64_t next_private_table_ = uint64_t{1} << 63;  // above every mm id
};

void Resolver::apply_fd_op(uint32_t thread, const FdOp& op) {
  if (op.type != FdOp::Type::kCloneTable) {
    fds_.apply(table_of_[thread], mm_[thread], op);
    return;
  }
  auto it = s_.index_of.find(op.child_tid);
  if (it == s_.index_of.end()) return;
  const uint32_t child = it->second;
  if (op.share_known ? op.share : mm_[child] == mm_[thread]) {
    table_of_[child] = table_of_[thread];
  } else {
    table_of_[child] = next_private_table_++;
    fds_.copy_table(table_of_[thread], table_of_[child]);
  }
}

void Resolver::track_fault(MmState* m, const Event& e) {
  if (m->mapped.contains(e.addr)) {
    ++report_.faults_in_known_mappings;
    return;
  }
  ++report_.faults_outside_mappings;
  ++m->outside_pages[e.addr & ~uint64_t{s_.page_size - 1}];
}

void Resolver::apply(uint32_t thread, Item* item) {
  const uint64_t mm = mm_[thread];
  auto [it, first] = mms_.try_emplace(mm);
  MmState& m = it->second;
  if (first && forked_from_[thread]) {
    // A forked child starts with its parent's mappings (dup_mmap()), as the parent has them now.
    const MmState& parent = mms_[*forked_from_[thread]];
    m.mapped = parent.mapped;
    m.ever = parent.mapped;
    m.brk_known = parent.brk_known;
    m.brk = parent.brk;
  }
  if (item->fd_op != kNoFdOp) apply_fd_op(thread, s_.fd_ops[item->fd_op]);
  if (!item->emit) return;
  Event& e = item->event;
  const uint64_t page = s_.page_size;
  switch (e.kind) {
    case EventKind::kMmap: {
      const uint64_t end = e.addr + round_up(e.len, page);
      m.mapped.add(e.addr, std::max(end, e.addr));
      m.ever.add(e.addr, std::max(end, e.addr));
      if (item->fd != kNoFd) e.arg1 = fd(thread, item->fd).file_id;
      break;
    }
    case EventKind::kMunmap:
      m.mapped.remove(e.addr, std::max(e.addr + round_up(e.len, page), e.addr));
      break;
    case EventKind::kMremap:
      if ((e.arg2 & kMremapDontUnmap) == 0) {
        m.mapped.remove(e.addr, std::max(e.addr + round_up(e.len, page), e.addr));
      }
      m.mapped.add(e.arg0, std::max(e.arg0 + round_up(e.arg1, page), e.arg0));
      m.ever.add(e.arg0, std::max(e.arg0 + round_up(e.arg1, page), e.arg0));
      break;
    case EventKind::kBrk: {
      const uint64_t now = round_up(e.addr, page);
      if (m.brk_known && now > m.brk) {
        m.mapped.add(m.brk, now);
        m.ever.add(m.brk, now);
      } else if (m.brk_known && now < m.brk) {
        m.mapped.remove(now, m.brk);
      }
      m.brk_known = true;
      m.brk = now;
      break;
    }
    case EventKind::kPageFault:
      track_fault(&m, e);
      break;
    case EventKind::kFileRead:
    case EventKind::kFileWrite: {
      if (item->fd == kNoFd) break;
      FdTables::Description& f = fd(thread, item->fd);
      e.arg0 = f.file_id;
      if (item->offset_from_fd) {
        e.arg1 = f.position;
        f.position += e.len;
      }
      FileInfo& info = file_table_[e.arg0 - 1];
      info.size_bytes = std::max(info.size_bytes, e.arg1 + e.len);
      break;
    }
    case EventKind::kFsync:
      if (item->fd != kNoFd) e.arg0 = fd(thread, item->fd).file_id;
      break;
    default:
      break;
  }
}

std::vector<ImplicitMapping> Resolver::implicit_mappings(uint64_t mm_id, const MmState& m) const {
  std::vector<ImplicitMapping> out;
  const uint64_t page = s_.page_size;
  for (const auto& [addr, faults] : m.outside_pages) {
    const uint64_t end = addr + page < addr ? addr : addr + page;
    if (!out.empty()) {
      ImplicitMapping& last = out.back();
      if (addr - last.end <= kImplicitMergeGapBytes && !m.ever.intersects(last.end, addr)) {
        last.end = std::max(last.end, end);
        last.faults += faults;
        continue;
      }
    }
    out.push_back(ImplicitMapping{mm_id, addr, end, faults});
  }
  return out;
}

void Resolver::assemble(ImportedTrace* out) {
  std::map<uint64_t, std::vector<ImplicitMapping>> implicit;
  for (const auto& [mm_id, m] : mms_) {
    auto list = implicit_mappings(mm_id, m);
    report_.implicit_mappings.insert(report_.implicit_mappings.end(), list.begin(), list.end());
    implicit[mm_id] = std::move(list);
  }
  std::map<uint64_t, uint32_t> first_thread;  // mm -> stream that opens it
  for (uint32_t i = 0; i < s_.threads.size(); ++i) first_thread.try_emplace(mm_[i], i);

  // Where a thread with neither an event nor a known clone starts: the recording's first event
  // (not time 0, which would stretch the replay's time origin back to it).
  // Descriptor changes make no event: a stream starts at its first event or its clone.
  auto first_event = [](const ThreadState& t) -> const Item* {
    for (const Item& item : t.items) {
      if (item.emit) return &item;
    }
    return nullptr;
  };
  uint64_t trace_first = UINT64_MAX;
  for (const ThreadState& t : s_.threads) {
    if (const Item* first = first_event(t)) trace_first = std::min(trace_first, first->event.ts_ns);
    if (t.clone_ts) trace_first = std::min(trace_first, *t.clone_ts);
  }
  if (trace_first == UINT64_MAX) trace_first = 0;
  out->streams.resize(s_.threads.size());
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    const ThreadState& t = s_.threads[i];
    out->meta.threads.push_back(ThreadInfo{t.tid, mm_[i], t.name, t.cpu});
    std::vector<Event>& events = out->streams[i];
    // A task exists from its clone: its stream starts there (else at its first event).
    const Item* first = first_event(t);
    uint64_t first_ts = first == nullptr ? trace_first : first->event.ts_ns;
    if (t.clone_ts && (first == nullptr || *t.clone_ts < first_ts)) first_ts = *t.clone_ts;
    events.push_back(ev::thread_start(first_ts));
    if (forked_from_[i]) events.push_back(ev::mm_create(first_ts, mm_[i], *forked_from_[i]));
    if (first_thread[mm_[i]] == i) {
      for (const ImplicitMapping& im : implicit[mm_[i]]) {
        // A forked child inherits its parent's implicit mappings: mapping them again
        // (MAP_FIXED) would throw away the pages fork shared.
        if (forked_from_[i] && inherited(implicit[*forked_from_[i]], im)) continue;
        events.push_back(ev::mmap(first_ts, im.start, im.end - im.start, kProtRead | kProtWrite,
                                  kMapPrivate | kMapAnonymous | kMapFixed));
      }
    }
    for (const Item& item : t.items) {
      if (item.emit) events.push_back(item.event);
    }
    // Think time: the gaps between one event's end and the next one's start, as recorded (the
    // recorder's costs are taken out at replay, formats/think_time.h).
    ThinkClock clock(GapCosts{});
    GapTally tally;
    for (const Event& e : events) report_.think_time_ns += clock.gap_before(e, &tally);
    for (const Event& e : events) {
      ++report_.events_per_kind[static_cast<size_t>(e.kind)];
      ++report_.events;
      if (e.has_duration()) ++report_.events_with_duration;
    }
  }
  report_.threads = s_.threads.size();
  report_.processes = first_thread.size();
  report_.files = file_table_.size();
  for (const FileInfo& f : file_table_) ++report_.files_per_kind[static_cast<size_t>(f.kind)];
  out->meta.files = file_table_;
}

ImportedTrace Resolver::run(RecorderInfo recorder) {
  resolve_mms(s_, &mm_, &forked_from_);
  table_of_ = mm_;
  std::vector<Ref> order;
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    auto& items = s_.threads[i].items;
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.event.ts_ns < b.event.ts_ns; });
    for (uint32_t k = 0; k < items.size(); ++k) {
      order.push_back(Ref{items[k].event.ts_ns, items[k].seq, i, k});
    }
  }
  std::sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.ts, a.seq) < std::tie(b.ts, b.seq);
  });
  for (const Ref& r : order) apply(r.thread, &s_.threads[r.thread].items[r.index]);

  ImportedTrace out;
  out.meta.recorder = std::move(recorder);
  out.meta.recorder.page_size = s_.page_size;
  for (const auto& [name, n] : report_.observations) {
    out.meta.params.emplace_back("observed." + name, std::to_string(n));
  }
  assemble(&out);
  out.ranges = std::move(s_.ranges);
  return out;
}

}  // namespace

ImportedTrace resolve_trace(BuilderState* state, RecorderInfo recorder, ImportReport* report) {
  return Resolver(state, report).run(std::move(recorder));
}

}  // namespace mmreplay::formats::detail

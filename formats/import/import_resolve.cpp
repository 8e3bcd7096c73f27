// ImportBuilder::finish(): (1) each thread's mm, (2) a time-ordered pass over all threads that
// follows each mm's mappings, ties faults to them and gives descriptors file ids and offsets,
// (3) implicit mappings for faults outside every known mapping, (4) the streams, each opened by
// thread_start (and mm_create for a forked child) and the mm's implicit mappings.
//
// A process's mm changes at each successful execve (an mm_create item in the exec'ing thread):
// the mm in force at time T is the process's base id (its pid, or the root of its clone chain)
// before its first exec, and base + g * kPidMaxLimit after its g-th. Ids stay unique because a
// pid is below PID_MAX_LIMIT. The implicit mappings of an exec's mm (the new binary, its stack)
// follow the exec's mm_create in the thread's stream.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "formats/import/address_order.h"
#include "formats/import/address_ranges.h"
#include "formats/import/import_builder_impl.h"
#include "formats/import/pipe_wakeups.h"
#include "formats/import/shared_file_maps.h"
#include "formats/import/socket_pairs.h"
#include "formats/import/socket_wakeups.h"
#include "formats/think_time.h"

namespace mmreplay::formats::detail {
namespace {

// include/linux/threads.h: PID_MAX_LIMIT on 64-bit, above every pid.
constexpr uint64_t kPidMaxLimit = uint64_t{4} * 1024 * 1024;

struct MmState {
  AddressRanges mapped;  // now
  AddressRanges ever;    // at any time: implicit mappings never span these
  bool brk_known = false;
  uint64_t brk = 0;
  std::map<uint64_t, uint64_t> outside_pages;  // page -> faults, outside every known mapping
  // Ranges a successful mprotect, madvise or mremap found mapped outside every known mapping:
  // mapped before the recording began (an exec'd binary's data segment, which ld.so mprotects
  // read-only for RELRO), so they belong in the implicit mappings as the faults' pages do.
  AddressRanges premapped;
  SharedFileMaps shared_files;  // the shared file mappings now, for msync
  uint32_t first_thread = 0;
};

uint64_t round_up(uint64_t v, uint64_t page) {
  const uint64_t r = v + (page - 1);
  return r < v ? ~(page - 1) : r & ~(page - 1);  // saturate at the top page
}

// The base mm of every thread (its mm before any exec): the pid where known, else through the
// clone chain, else its own tid.
void resolve_base_mms(const BuilderState& s, std::vector<uint64_t>* mm) {
  const size_t n = s.threads.size();
  mm->assign(n, 0);
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
  Resolver(BuilderState* s, ImportReport* report)
      : s_(*s),
        report_(*report),
        fds_(&file_table_),
        order_([this](ItemRef change, uint32_t user) { return clone_follows(change, user); }),
        pipes_(s->page_size),
        sockets_(s->page_size),
        socket_buffers_{s->wmem_default != 0 ? s->wmem_default : kSkWmemMax, s->page_size,
                        s->wmem_max != 0 ? s->wmem_max : kSkWmemMax} {}

  ImportedTrace run(RecorderInfo recorder);

 private:
  void resolve_mms();
  void pair_futexes();
  void pair_exit_wakes();
  void find_clones();
  bool clone_follows(ItemRef change, uint32_t user) const;
  PipeCall pipe_call(uint32_t thread, uint32_t index, const Event& e) const;
  // Counts where the recording ran the call an edge woke, when it slept: on the CPU of the
  // call that woke it, or another (RecorderInfo::sync_wakes_on_waker_cpu).
  void note_wake_placement(const ChannelEdge& edge);
  void note_socket_call(uint32_t thread, uint32_t index, const Event& e,
                        FdTables::Description* end);
  void number_order_edges();
  void emit_pieces(const Event& e, ItemRef ref, const std::set<uint64_t>& cuts,
                   std::vector<Event>* events) const;
  // A wake to emit once the events inside its call (its kernel-mode faults) are out.
  struct PendingWake {
    uint64_t id;
    uint64_t end;
  };
  void emit(const Item& item, ItemRef ref, std::vector<Event>* events,
            std::vector<PendingWake>* pending) const;
  // The thread's mm at `ts`: an exec at `ts` has happened (its own events are in the new mm).
  uint64_t mm_at(uint32_t thread, uint64_t ts) const;
  // The thread's mm just before `ts`: an exec at `ts` has not happened yet (the mm a thread
  // whose first event is its exec starts in).
  uint64_t mm_before(uint32_t thread, uint64_t ts) const;
  uint64_t mm_of_generation(uint32_t thread, uint64_t generation) const;
  uint64_t execs_until(uint32_t thread, uint64_t ts, bool at_ts) const;
  uint64_t first_ts(uint32_t thread, uint64_t trace_first) const;
  MmState& state_of(uint32_t thread, uint64_t mm);
  void apply(uint32_t thread, uint32_t index, Item* item);
  void track_fault(MmState* m, const Event& e);
  void note_premapped(MmState* m, uint64_t start, uint64_t end);
  void apply_fd_op(uint32_t thread, const FdOp& op);
  void pair_sockets(const std::vector<Ref>& order);
  // The file whose pages an unlink of `path` dropped (`pages` as recorded), or 0 when none went:
  // the recording saw none go (a descriptor still held it, or none were cached), or, without a
  // count, the file is still open or no call of the trace named it.
  uint64_t unlinked_file(const std::string& path, uint64_t pages) {
    if (pages == kTruncatedPagesUnknown) {
      const uint64_t id = fds_.file_named(path);
      return id != 0 && !fds_.is_open(id) ? id : 0;
    }
    return pages > 0 ? fds_.file_for_path(path) : 0;
  }
  FdTables::Description& fd(uint32_t thread, int32_t fd) {
    return fds_.lookup(table_of_[thread], mm_[thread], fd);
  }
  std::vector<ImplicitMapping> implicit_mappings(uint64_t mm_id, const MmState& m) const;
  void index_mapping_paths();
  void note_mapping_path(uint64_t mm, const Event& mmap);
  void name_mapped_files();
  void alias_file_ids(std::vector<Event>* events) const;
  bool block_without_edge(uint32_t thread, uint32_t index) const;
  bool readiness_wait_ends_at_next_read(uint32_t thread, uint32_t index) const;
  bool interrupted_wait_ends_at_child_exit(uint32_t thread, uint32_t index) const;
  void assemble(ImportedTrace* out);

  BuilderState& s_;
  ImportReport& report_;
  std::vector<uint64_t> base_;  // per thread: its process's mm before any exec
  std::vector<uint64_t> mm_;    // per thread: its mm at its start (the header's)
  std::vector<std::optional<uint64_t>> forked_from_;
  // Per thread: a process made with CLONE_VM (vfork(), posix_spawn()'s clone) runs in its
  // parent's mm, which it shares, until its first exec: that mm.
  std::vector<std::optional<uint64_t>> vm_of_parent_;
  std::map<uint64_t, std::vector<uint64_t>> execs_;  // base mm -> its execs' times, in order
  std::map<uint64_t, MmState> mms_;
  std::vector<FileInfo> file_table_;  // before fds_, which extends it
  // perf's file mapping records (ImportBuilder::mapping_path()) by (mm, address): (time, path).
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::pair<uint64_t, std::string>>>
      mapping_paths_;
  std::map<uint64_t, std::string> mapped_names_;  // unnamed file id -> the path mapped from it
  std::vector<uint64_t> file_alias_;  // by file id - 1: the file it turned out to be, 0 = itself
  bool any_alias_ = false;
  FdTables fds_;
  // Each thread's descriptor table: its mm's (threads share it) unless a clone without
  // CLONE_FILES gave it a copy of its own (fd_table.h (1)).
  std::vector<uint64_t> table_of_;
  uint64_t next_private_table_ = uint64_t{1} << 63;  // above every mm id
  uint64_t next_wake_id_ = 1;                        // futex pairs and ordering edges share the ids
  // Per thread: the thread and item index of the clone that created it, when in the trace.
  std::vector<std::optional<ItemRef>> clone_of_;
  AddressOrder order_;
  PipeWakeups pipes_;
  PipeWakeups sockets_;  // channels: a connected socket end's description, per direction
  SocketBuffers socket_buffers_;
  // Ordering edges (address_order.h) as wake ids: a wake after `from`, a wait before `to`.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> wake_after_;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> wake_before_;  // a thread's exit
  std::multimap<std::pair<uint32_t, uint32_t>, uint64_t> wait_before_;
  // Edges at a piece of a call (pipe_wakeups.h (4): an AF_UNIX stream write's skbs), by (thread,
  // index, bytes into the call): the wake after the piece that ends there, the waits before the
  // piece that starts there; and per call, where it is cut.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> piece_wake_;
  std::multimap<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> piece_wait_;
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint64_t>> cuts_;
  // Wake ids of pipe edges: emitted with kSyncOrderUaddr, the sync wake-up a pipe's other side
  // gets (event.h).
  std::set<uint64_t> sync_wakes_;
};

// The descriptor tables of a recording, followed in time order (fd_table.h): the resolver's own,
// or a scratch copy (pair_sockets()).
struct TableWalk {
  FdTables* fds;
  std::vector<uint64_t>* table_of;
  uint64_t* next_private;
};

void apply_fd_op_to(const TableWalk& w, const BuilderState& s, const std::vector<uint64_t>& mm,
                    uint32_t thread, const FdOp& op) {
  std::vector<uint64_t>& table_of = *w.table_of;
  if (op.type != FdOp::Type::kCloneTable) {
    w.fds->apply(table_of[thread], mm[thread], op);
    return;
  }
  auto it = s.index_of.find(op.child_tid);
  if (it == s.index_of.end()) return;
  const uint32_t child = it->second;
  if (op.share_known ? op.share : mm[child] == mm[thread]) {
    table_of[child] = table_of[thread];
  } else {
    table_of[child] = (*w.next_private)++;
    w.fds->copy_table(table_of[thread], table_of[child]);
  }
}

void Resolver::apply_fd_op(uint32_t thread, const FdOp& op) {
  if (op.type == FdOp::Type::kSetSndbuf) {
    ++(op.sndbuf != 0 ? report_.socket_sndbuf_set : report_.socket_sndbuf_unknown);
  }
  apply_fd_op_to(TableWalk{&fds_, &table_of_, &next_private_table_}, s_, mm_, thread, op);
}

// Decides which sockets are one connection's two ends (socket_pairs.h): the descriptor tables
// are followed once, on a scratch copy, for each socket's family and type, each accept's
// listener and the names strace -yy gives connected sockets; the pairs, by description number,
// are preset in the resolver's tables, which number descriptions the same way (fd_table.h), so
// a socket has its peer from its first call, even a write made before the other end's accept.
void Resolver::pair_sockets(const std::vector<Ref>& order) {
  std::vector<FileInfo> files;
  FdTables scratch(&files);
  std::vector<uint64_t> table_of = table_of_;
  uint64_t next_private = next_private_table_;
  const TableWalk walk{&scratch, &table_of, &next_private};
  std::vector<ConnectCall> connects;
  std::vector<AcceptCall> accepts;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> end_of;  // connect/accept item -> its socket
  std::map<std::pair<std::string, std::string>, uint32_t> named;  // (local, remote) -> socket
  for (const Ref& r : order) {
    const Item& item = s_.threads[r.thread].items[r.index];
    if (item.fd_op != kNoFdOp) {
      const FdOp& op = s_.fd_ops[item.fd_op];
      apply_fd_op_to(walk, s_, mm_, r.thread, op);
      const FdTables::Description* d = scratch.find(table_of[r.thread], op.fd);
      if (d != nullptr) {
        if (std::string local, remote; socket_endpoints(op.path, &local, &remote)) {
          named.try_emplace({local, remote}, d->index);
        }
        const ItemRef ref{r.thread, r.index};
        if (op.type == FdOp::Type::kConnect) {
          connects.push_back(
              ConnectCall{ref, item.event.ts_ns, d->family, d->sock_type, op.address});
          end_of[{r.thread, r.index}] = d->index;
        } else if (op.type == FdOp::Type::kOpen && op.listen_fd >= 0) {
          const FdTables::Description* l = scratch.find(table_of[r.thread], op.listen_fd);
          accepts.push_back(AcceptCall{ref, op.end_ns, l == nullptr ? UINT32_MAX : l->index,
                                       d->family, d->sock_type,
                                       l == nullptr ? std::string() : l->address});
          end_of[{r.thread, r.index}] = d->index;
        }
      }
    }
    // The resolver's own pass looks up each event's fd (apply()), which makes a description for
    // an fd from before the recording: so does this one, to number descriptions alike.
    if (item.emit && item.fd != kNoFd) scratch.lookup(table_of[r.thread], mm_[r.thread], item.fd);
  }
  std::map<uint32_t, uint32_t> peers;
  // Named by strace -yy ("UNIX:[101->102]", "TCP:[a:1->b:2]"): each end names the other.
  for (const auto& [key, end] : named) {
    auto other = named.find({key.second, key.first});
    if (other == named.end() || other->second == end) continue;
    peers[end] = other->second;
  }
  // Paired by the accept queues' order: those strace -yy did not name.
  std::erase_if(connects, [&](const ConnectCall& c) {
    return peers.contains(end_of[{c.ref.thread, c.ref.index}]);
  });
  std::erase_if(accepts, [&](const AcceptCall& a) {
    return peers.contains(end_of[{a.ref.thread, a.ref.index}]);
  });
  const SocketPairing pairing = pair_connections(connects, accepts);
  for (const auto& [connect, accept] : pairing.pairs) {
    const uint32_t a = end_of[{connect.thread, connect.index}];
    const uint32_t b = end_of[{accept.thread, accept.index}];
    peers[a] = b;
    peers[b] = a;
  }
  report_.socket_connections_paired = peers.size() / 2;
  report_.socket_connects_unpaired = pairing.connects_unpaired;
  report_.socket_accepts_unpaired = pairing.accepts_unpaired;
  fds_.preset_peers(std::move(peers));
}

void Resolver::track_fault(MmState* m, const Event& e) {
  if (m->mapped.contains(e.addr)) {
    ++report_.faults_in_known_mappings;
    return;
  }
  ++report_.faults_outside_mappings;
  ++m->outside_pages[e.addr & ~uint64_t{s_.page_size - 1}];
}

// The call succeeded on [start, end), so all of it was mapped: what no call of the trace has
// mapped so far was there before the recording began. (A part mapped once and unmapped since was
// mapped again by something the trace does not show; no mapping at the start can stand for it.)
void Resolver::note_premapped(MmState* m, uint64_t start, uint64_t end) {
  for (const auto& [gap_start, gap_end] : m->ever.gaps(start, end)) {
    m->premapped.add(gap_start, gap_end);
  }
}

uint64_t Resolver::mm_of_generation(uint32_t thread, uint64_t generation) const {
  if (generation == 0 && vm_of_parent_[thread]) {
    return *vm_of_parent_[thread];
  }
  return base_[thread] + generation * kPidMaxLimit;
}

// The execs of the thread's process before `ts`, and with `at_ts` one at `ts` too.
uint64_t Resolver::execs_until(uint32_t thread, uint64_t ts, bool at_ts) const {
  auto it = execs_.find(base_[thread]);
  if (it == execs_.end()) return 0;
  const std::vector<uint64_t>& times = it->second;
  const auto end = at_ts ? std::upper_bound(times.begin(), times.end(), ts)
                         : std::lower_bound(times.begin(), times.end(), ts);
  return static_cast<uint64_t>(end - times.begin());
}

uint64_t Resolver::mm_at(uint32_t thread, uint64_t ts) const {
  // An exec's own mm_create and everything from its time on are in the new mm.
  return mm_of_generation(thread, execs_until(thread, ts, /*at_ts=*/true));
}

uint64_t Resolver::mm_before(uint32_t thread, uint64_t ts) const {
  return mm_of_generation(thread, execs_until(thread, ts, /*at_ts=*/false));
}

// Where a thread's stream starts: its clone, else its first event, else the recording's first.
uint64_t Resolver::first_ts(uint32_t thread, uint64_t trace_first) const {
  // Descriptor changes make no event: a stream starts at its first event or its clone. The
  // earliest event, not the first item: an item is added when its call returns, so an exec's
  // mm_create (at its enter) follows the kernel-mode faults taken inside the exec until run()
  // sorts the items.
  const ThreadState& t = s_.threads[thread];
  std::optional<uint64_t> first_event;
  for (const Item& item : t.items) {
    if (item.emit && (!first_event || item.event.ts_ns < *first_event)) {
      first_event = item.event.ts_ns;
    }
  }
  uint64_t first = first_event.value_or(trace_first);
  if (t.clone_ts && (!first_event || *t.clone_ts < first)) first = *t.clone_ts;
  return first;
}

void Resolver::resolve_mms() {
  resolve_base_mms(s_, &base_);
  const size_t n = s_.threads.size();
  vm_of_parent_.assign(n, std::nullopt);  // known below, once the execs are
  for (uint32_t i = 0; i < n; ++i) {
    for (const Item& item : s_.threads[i].items) {
      if (item.event.kind == EventKind::kMmCreate) execs_[base_[i]].push_back(item.event.ts_ns);
    }
  }
  for (auto& [base, times] : execs_) std::sort(times.begin(), times.end());
  for (uint32_t i = 0; i < n; ++i) {
    for (Item& item : s_.threads[i].items) {
      if (item.event.kind == EventKind::kMmCreate) item.event.arg0 = mm_at(i, item.event.ts_ns);
    }
  }
  uint64_t trace_first = UINT64_MAX;
  for (uint32_t i = 0; i < n; ++i) trace_first = std::min(trace_first, first_ts(i, UINT64_MAX));
  // A thread whose process differs from its parent's was forked from the parent's mm of then,
  // or, made with CLONE_VM, shares it until it execs. Parents come first in the thread table
  // (a child's first event follows its clone), so a parent's own mm is known by then.
  forked_from_.assign(n, std::nullopt);
  for (uint32_t i = 0; i < n; ++i) {
    const ThreadState& t = s_.threads[i];
    if (!t.parent_tid) continue;
    auto it = s_.index_of.find(*t.parent_tid);
    if (it == s_.index_of.end() || base_[it->second] == base_[i]) continue;
    const uint64_t parent_mm =
        mm_at(it->second, t.clone_ts ? *t.clone_ts : first_ts(i, trace_first));
    if (t.origin == Origin::kSharedVm) {
      vm_of_parent_[i] = parent_mm;
    } else {
      forked_from_[i] = parent_mm;
    }
  }
  // A thread starts in the mm it had before its first event: a child whose first event is its
  // exec starts in the mm fork gave it (or its parent's), not in the exec's.
  mm_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) mm_[i] = mm_before(i, first_ts(i, trace_first));
}

// Each futex wait that returned 0 gets the id of the wake that ended it: the last futex_wake
// of the same mm and word (or second word, for WAKE_OP and requeues) that entered before the
// wait returned and had not returned before the wait entered. Waits with none keep id 0.
void Resolver::pair_futexes() {
  struct Wake {
    uint64_t ts;
    uint64_t end;
    Item* item;
  };
  std::map<std::pair<uint64_t, uint64_t>, std::vector<Wake>> wakes;
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    for (Item& item : s_.threads[i].items) {
      const Event& e = item.event;
      if (e.kind != EventKind::kFutexWake) continue;
      const uint64_t mm = mm_at(i, e.ts_ns);
      wakes[{mm, e.arg1}].push_back(Wake{e.ts_ns, e.end_ns(), &item});
      if (item.uaddr2 != 0 && item.uaddr2 != e.arg1) {
        wakes[{mm, item.uaddr2}].push_back(Wake{e.ts_ns, e.end_ns(), &item});
      }
    }
  }
  for (auto& [key, list] : wakes) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Wake& a, const Wake& b) { return a.ts < b.ts; });
  }
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    for (Item& item : s_.threads[i].items) {
      Event& e = item.event;
      if (e.kind != EventKind::kFutexWait) continue;
      auto it = wakes.find({mm_at(i, e.ts_ns), e.arg1});
      if (it == wakes.end()) continue;
      const std::vector<Wake>& list = it->second;
      const uint64_t end = e.end_ns();
      auto after = std::upper_bound(list.begin(), list.end(), end,
                                    [](uint64_t t, const Wake& w) { return t < w.ts; });
      if (after == list.begin()) continue;
      const Wake& w = *std::prev(after);
      if (w.end < e.ts_ns) continue;  // that wake was over before this wait began
      if (w.item->event.arg0 == 0) w.item->event.arg0 = next_wake_id_++;
      e.arg0 = w.item->event.arg0;
      ++report_.futex_waits_paired;
    }
  }
}

// glibc puts a thread's struct pthread, with the tid word pthread_join() waits on, at the top of
// the thread's stack block, just above where its stack starts (nptl/allocate_stack.c), so the
// thread's first fault (start_thread() on its fresh stack) lies at most this far below the word.
constexpr uint64_t kTidWordAboveFirstFault = 64 * 1024;

// A futex wait that no recorded call ended, on the tid word of another thread of its mm that
// exited before the wait returned: that exit ended it. pthread_join() waits on the word, which the
// kernel clears and wakes at the thread's exit (CLONE_CHILD_CLEARTID: mm_release()), with no
// futex call to record. The word's thread is the one whose first fault lies just below it (the
// clone3 that names the word hides it behind a pointer). The replay then wakes the wait when that
// thread exits (at once if it already has, as FUTEX_WAIT on a cleared word returns), instead of
// after the recorded time, which is the traced threads' (slower, and stalls included).
// REQUIRES: items sorted by time.
void Resolver::pair_exit_wakes() {
  struct Exit {
    uint64_t ts;
    ItemRef ref;
    uint64_t mm;
    uint64_t first_fault;  // 0: none
  };
  std::vector<Exit> exits;
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    const auto& items = s_.threads[i].items;
    uint64_t first_fault = 0;
    for (uint32_t k = 0; k < items.size(); ++k) {
      const Event& e = items[k].event;
      if (first_fault == 0 && e.kind == EventKind::kPageFault && !e.is_kernel_mode()) {
        first_fault = e.addr;
      }
      if (e.kind == EventKind::kThreadExit && first_fault != 0) {
        exits.push_back({e.ts_ns, {i, k}, mm_at(i, e.ts_ns), first_fault});
      }
    }
  }
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    for (Item& item : s_.threads[i].items) {
      Event& e = item.event;
      if (e.kind != EventKind::kFutexWait || e.arg0 != 0 || !e.has_duration()) continue;
      const uint64_t mm = mm_at(i, e.ts_ns);
      const Exit* best = nullptr;
      for (const Exit& x : exits) {
        if (x.ref.thread == i || x.mm != mm || x.ts > e.ts_ns + e.duration_ns) continue;
        if (x.first_fault > e.arg1 || e.arg1 - x.first_fault > kTidWordAboveFirstFault) continue;
        if (best == nullptr || x.first_fault > best->first_fault) best = &x;
      }
      if (best == nullptr) continue;
      auto [wake, added] = wake_before_.try_emplace({best->ref.thread, best->ref.index}, 0);
      if (added) wake->second = next_wake_id_++;
      e.arg0 = wake->second;
      ++report_.futex_waits_ended_by_exit;
    }
  }
}

void Resolver::find_clones() {
  clone_of_.assign(s_.threads.size(), std::nullopt);
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    const auto& items = s_.threads[i].items;
    for (uint32_t k = 0; k < items.size(); ++k) {
      if (!items[k].emit || items[k].event.kind != EventKind::kClone) continue;
      auto it = s_.index_of.find(items[k].event.arg0);
      if (it != s_.index_of.end() && !clone_of_[it->second]) clone_of_[it->second] = ItemRef{i, k};
    }
  }
}

// Whether `user` was created (through its chain of clones) by `change`'s thread after `change`:
// then its task starts after the change replayed (the clone order) and needs no edge.
bool Resolver::clone_follows(ItemRef change, uint32_t user) const {
  uint32_t t = user;
  for (size_t step = 0; step < clone_of_.size(); ++step) {  // bounded: a clone loop in bad input
    const std::optional<ItemRef>& c = clone_of_[t];
    if (!c) return false;
    if (c->thread == change.thread) return change.index < c->index;
    t = c->thread;
  }
  return false;
}

// A read or write of a pipe at its offset in the pipe's stream (pipe_wakeups.h); it slept when an
// off_cpu observation of the thread, not a preemption, lies between its start and end.
PipeCall Resolver::pipe_call(uint32_t thread, uint32_t index, const Event& e) const {
  PipeCall call;
  call.ref = ItemRef{thread, index};
  call.offset = e.arg1;
  call.len = e.len;
  call.write = e.kind == EventKind::kFileWrite;
  call.start_ns = e.ts_ns;
  call.end_ns = e.end_ns();
  const auto& items = s_.threads[thread].items;
  for (uint32_t k = index + 1;
       !call.slept && k < items.size() && items[k].event.ts_ns <= call.end_ns; ++k) {
    const Event& o = items[k].event;
    call.slept = o.kind == EventKind::kObservation &&
                 o.arg0 == static_cast<uint64_t>(ObservationKind::kOffCpu) && o.arg1 == 0 &&
                 o.has_duration();
  }
  call.end_cpu = s_.threads[thread].cpu_at(call.end_ns);
  return call;
}

// The waker's CPU as its call ended (it woke the sleeper on the way out, fs/pipe.c), against
// the sleeper's as its call ended (where it ran once woken). wake_affine_idle() pulls a sync
// wakee to the waker's CPU; select_idle_sibling() keeps it on its own idle one.
void Resolver::note_wake_placement(const ChannelEdge& edge) {
  if (!edge.to_slept || edge.from_cpu < 0 || edge.to_cpu < 0) return;
  ++(edge.from_cpu == edge.to_cpu ? report_.sync_wakes_on_waker_cpu
                                  : report_.sync_wakes_on_other_cpu);
}

// A read or write of a socket end: on its channel when the other end is in the recording
// (socket_wakeups.h), else counted as unordered.
void Resolver::note_socket_call(uint32_t thread, uint32_t index, const Event& e,
                                FdTables::Description* end) {
  if (end->peer == FdTables::kNoPeer) {
    ++report_.socket_calls_unpaired;
    return;
  }
  const bool write = e.kind == EventKind::kFileWrite;
  const SocketChannelCall c = socket_channel_call(end, write, e.len, socket_buffers_);
  PipeCall call = pipe_call(thread, index, e);
  call.offset = c.offset;
  call.len = c.len;
  // The writer's limits (its SO_SNDBUF); a read's guess only until the writer's first call.
  if (write || !sockets_.has_limits(c.channel)) sockets_.set_limits(c.channel, c.limits);
  sockets_.add(c.channel, call);
}

// Gives each ordering edge a wake id: one per event (or piece of one) that wakes others, waited
// for by each one (or piece) that must follow it.
void Resolver::number_order_edges() {
  auto wake_id = [this](ItemRef from, uint64_t at) {
    uint64_t* id = nullptr;
    if (at == 0) {
      id = &wake_after_.try_emplace({from.thread, from.index}, 0).first->second;
    } else {
      cuts_[{from.thread, from.index}].insert(at);
      id = &piece_wake_.try_emplace({from.thread, from.index, at}, 0).first->second;
    }
    if (*id == 0) *id = next_wake_id_++;
    return *id;
  };
  auto wait_for = [this](ItemRef to, uint64_t at, uint64_t id) {
    if (at == 0) {
      wait_before_.emplace(std::pair{to.thread, to.index}, id);
    } else {
      cuts_[{to.thread, to.index}].insert(at);
      piece_wait_.emplace(std::tuple{to.thread, to.index, at}, id);
    }
  };
  auto number = [&](const ChannelEdge& edge) {
    const uint64_t id = wake_id(edge.from, edge.from_bytes);
    wait_for(edge.to, edge.to_bytes, id);
    return id;
  };
  for (const OrderEdge& edge : order_.edges()) number(ChannelEdge{edge, 0, 0});
  const std::vector<ChannelEdge> pipe_edges = pipes_.edges();
  for (const ChannelEdge& edge : pipe_edges) {
    sync_wakes_.insert(number(edge));
    note_wake_placement(edge);
  }
  report_.address_order_edges = order_.edges().size();
  report_.pipe_wakeup_edges = pipe_edges.size();
  report_.pipe_calls_slept = pipes_.slept();
  const std::vector<ChannelEdge> socket_edges = sockets_.edges();
  for (const ChannelEdge& edge : socket_edges) {
    sync_wakes_.insert(number(edge));
    note_wake_placement(edge);
  }
  report_.socket_wakeup_edges = socket_edges.size();
  report_.socket_calls_slept = sockets_.slept();
  report_.socket_writes_in_pieces = cuts_.size();
  for (const auto& [call, cuts] : cuts_) report_.socket_write_pieces += cuts.size() + 1;
}

// A call cut in pieces (pipe_wakeups.h (4)): each piece is the call's event with its share of the
// bytes, at the call's start and with its duration (the pieces lie inside the call, so no think
// time comes between them, formats/think_time.h (2)); after the piece that ends at a cut, the
// wake its followers wait for; before the piece that starts there, its own waits.
void Resolver::emit_pieces(const Event& e, ItemRef ref, const std::set<uint64_t>& cuts,
                           std::vector<Event>* events) const {
  uint64_t from = 0;
  auto piece = [&](uint64_t to) {
    Event p = e;
    p.len = to - from;
    p.arg1 = e.arg1 + from;
    if (from != 0) p.flags |= kFlagContinued;  // entered the kernel with the first piece
    events->push_back(p);
    from = to;
  };
  for (const uint64_t cut : cuts) {
    piece(cut);
    const std::tuple key{ref.thread, ref.index, cut};
    if (auto it = piece_wake_.find(key); it != piece_wake_.end()) {
      const uint64_t uaddr = sync_wakes_.contains(it->second) ? kSyncOrderUaddr : kOrderUaddr;
      events->push_back(ev::futex_wake(e.ts_ns, it->second, uaddr));
    }
    auto [first, last] = piece_wait_.equal_range(key);
    for (auto it = first; it != last; ++it) {
      events->push_back(ev::futex_wait(e.ts_ns, it->second, kOrderUaddr, kNoDuration));
    }
  }
  piece(e.len);
}

// An item's event with its ordering edges: waits for the events it must follow just before it
// (at its start, so no think time moves), the wake its followers wait for just after it. A
// futex word at address 0 cannot be (the kernel answers EFAULT): uaddr 0 marks them as orders.
// The wake goes after the faults the kernel took inside the call (a pipe read's copy_to_user into
// fresh pages), as the kernel wakes the other side once it is done: pipe_read() wakes a writer
// after copying. Its timestamp is the event before it, so the stream stays in time order.
void Resolver::emit(const Item& item, ItemRef ref, std::vector<Event>* events,
                    std::vector<PendingWake>* pending) const {
  const Event& e = item.event;
  const bool inside_call =
      e.kind == EventKind::kObservation || (e.kind == EventKind::kPageFault && e.is_kernel_mode());
  std::erase_if(*pending, [&](const PendingWake& w) {
    if (item.emit && inside_call && e.ts_ns <= w.end) return false;
    const uint64_t uaddr = sync_wakes_.contains(w.id) ? kSyncOrderUaddr : kOrderUaddr;
    events->push_back(ev::futex_wake(events->back().ts_ns, w.id, uaddr));
    return true;
  });
  if (!item.emit) return;  // flush only (the end of the stream)
  const std::pair key{ref.thread, ref.index};
  if (auto it = wake_before_.find(key); it != wake_before_.end()) {
    events->push_back(ev::futex_wake(e.ts_ns, it->second, kOrderUaddr));
  }
  auto [first, last] = wait_before_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    events->push_back(ev::futex_wait(e.ts_ns, it->second, kOrderUaddr, kNoDuration));
  }
  if (auto cut = cuts_.find(key); cut != cuts_.end()) {
    emit_pieces(e, ref, cut->second, events);
  } else {
    events->push_back(e);
  }
  if (auto it = wake_after_.find(key); it != wake_after_.end()) {
    pending->push_back(PendingWake{it->second, e.end_ns()});
  }
}

MmState& Resolver::state_of(uint32_t thread, uint64_t mm) {
  auto [it, first] = mms_.try_emplace(mm);
  MmState& m = it->second;
  if (first && mm == mm_[thread] && forked_from_[thread]) {
    // A forked child starts with its parent's mappings (dup_mmap()), as the parent has them now.
    const MmState& parent = mms_[*forked_from_[thread]];
    m.mapped = parent.mapped;
    m.ever = parent.mapped;
    m.shared_files = parent.shared_files;
    m.brk_known = parent.brk_known;
    m.brk = parent.brk;
  }
  return m;
}

void Resolver::apply(uint32_t thread, uint32_t index, Item* item) {
  if (item->fd_op != kNoFdOp) apply_fd_op(thread, s_.fd_ops[item->fd_op]);
  if (!item->emit) return;
  Event& e = item->event;
  const uint64_t mm = mm_at(thread, e.ts_ns);
  MmState& m = state_of(thread, mm);
  const uint64_t page = s_.page_size;
  const ItemRef self{thread, index};
  // [addr, addr + len) rounded up to pages, saturating at the top of the address space.
  auto end_of = [page](uint64_t addr, uint64_t len) {
    return std::max(addr + round_up(len, page), addr);
  };
  switch (e.kind) {
    case EventKind::kMmap: {
      const uint64_t end = end_of(e.addr, e.len);
      m.mapped.add(e.addr, end);
      m.ever.add(e.addr, end);
      order_.change(mm, e.addr, end, self);
      if (item->fd != kNoFd) {
        e.arg1 = fd(thread, item->fd).file_id;
        note_mapping_path(mm, e);
      }
      if (item->fd != kNoFd && ((e.arg0 >> 32) & kMapShared) != 0) {
        m.shared_files.map(e.addr, end, e.arg1);
      } else {
        m.shared_files.unmap(e.addr, end);
      }
      break;
    }
    case EventKind::kMunmap:
      m.shared_files.unmap(e.addr, end_of(e.addr, e.len));
      m.mapped.remove(e.addr, end_of(e.addr, e.len));
      order_.change(mm, e.addr, end_of(e.addr, e.len), self);
      break;
    case EventKind::kMprotect:
      note_premapped(&m, e.addr, end_of(e.addr, e.len));
      order_.change(mm, e.addr, end_of(e.addr, e.len), self);
      break;
    case EventKind::kMremap:
      note_premapped(&m, e.addr, end_of(e.addr, e.len));
      m.shared_files.move(e.addr, end_of(e.addr, e.len), e.arg0, end_of(e.arg0, e.arg1) - e.arg0,
                          (e.arg2 & kMremapDontUnmap) != 0);
      if ((e.arg2 & kMremapDontUnmap) == 0) {
        m.mapped.remove(e.addr, end_of(e.addr, e.len));
        order_.change(mm, e.addr, end_of(e.addr, e.len), self);
      } else {
        order_.use(mm, e.addr, end_of(e.addr, e.len), self);
      }
      m.mapped.add(e.arg0, end_of(e.arg0, e.arg1));
      m.ever.add(e.arg0, end_of(e.arg0, e.arg1));
      order_.change(mm, e.arg0, end_of(e.arg0, e.arg1), self);
      break;
    case EventKind::kBrk: {
      const uint64_t now = round_up(e.addr, page);
      if (m.brk_known && now > m.brk) {
        m.mapped.add(m.brk, now);
        m.ever.add(m.brk, now);
        order_.change(mm, m.brk, now, self);
      } else if (m.brk_known && now < m.brk) {
        m.mapped.remove(now, m.brk);
        order_.change(mm, now, m.brk, self);
      }
      m.brk_known = true;
      m.brk = now;
      break;
    }
    case EventKind::kMadvise:
      note_premapped(&m, e.addr, end_of(e.addr, e.len));
      order_.use(mm, e.addr, end_of(e.addr, e.len), self);
      break;
    case EventKind::kMadviseVector:
      for (uint32_t r = 0; r < e.range_count; ++r) {
        const Range& range = s_.ranges[e.range_begin + r];
        note_premapped(&m, range.addr, end_of(range.addr, range.len));
        order_.use(mm, range.addr, end_of(range.addr, range.len), self);
      }
      break;
    case EventKind::kPageFault:
      track_fault(&m, e);
      order_.use(mm, e.addr, e.addr + 1, self);
      break;
    case EventKind::kClone:
      // The fork moment: a forked child's mappings are its parent's as of now.
      if (auto it = s_.index_of.find(e.arg0); it != s_.index_of.end()) {
        state_of(it->second, mm_[it->second]);
      }
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
      if (info.kind == FileKind::kPipe) {
        pipes_.add(e.arg0, pipe_call(thread, index, e));
      } else if (info.kind == FileKind::kSocket && item->offset_from_fd) {
        note_socket_call(thread, index, e, &f);
      }
      break;
    }
    case EventKind::kFsync:
      if (item->fd != kNoFd) e.arg0 = fd(thread, item->fd).file_id;
      if (item->file_by_address) {  // msync(MS_SYNC)
        // One event: a range over shared mappings of two files (rare) syncs one of them only.
        const std::vector<uint64_t> files = m.shared_files.files_in(e.addr, end_of(e.addr, e.len));
        e.addr = 0;
        e.len = 0;
        if (files.empty()) {  // no shared file mapping there: nothing to write
          ++report_.ignored_events;
          ++report_.ignored_by_name["msync"];
          item->emit = false;
          break;
        }
        e.arg0 = files.front();
      }
      break;
    case EventKind::kFileTruncate:
      if (item->fd != kNoFd) {
        e.arg0 = fd(thread, item->fd).file_id;
      } else if (item->fd_op != kNoFdOp && s_.fd_ops[item->fd_op].type == FdOp::Type::kUnlink) {
        const FdOp& op = s_.fd_ops[item->fd_op];
        const std::string path = fds_.path_at(table_of_[thread], op.dir_fd, op.path);
        if (path.empty()) {  // relative to a directory the capture did not name
          ++report_.ignored_events;
          ++report_.ignored_by_name["unlinkat"];
          item->emit = false;
          break;
        }
        e.arg0 = unlinked_file(path, e.arg2);
        if (e.arg0 == 0) item->emit = false;  // nothing the model holds went with the name
      }
      break;
    default:
      break;
  }
}

// perf names the files of executable mappings (PERF_RECORD_MMAP2): the dynamic loader's own
// openat of each library is seen, but no probe names it, so the file is "unknown pid MM fd N"
// until a mapping of it has a record. Each record is keyed by its mm (at its time) and address.
void Resolver::index_mapping_paths() {
  for (BuilderState::MappingPath& r : s_.mapping_paths) {
    const auto it = s_.index_of.find(r.tid);
    if (it == s_.index_of.end()) continue;  // a thread with no event of its own
    mapping_paths_[{mm_at(it->second, r.ts), r.addr}].emplace_back(r.ts, std::move(r.path));
  }
}

// An mmap of an unnamed file at an address a record names: the file is that path. The record
// is made inside the call (perf_event_mmap() in mmap_region()), so the last one by its return.
void Resolver::note_mapping_path(uint64_t mm, const Event& mmap) {
  if (mmap.arg1 == 0 || !is_unnamed_fd_name(file_table_[mmap.arg1 - 1].path)) return;
  const auto it = mapping_paths_.find({mm, mmap.addr});
  if (it == mapping_paths_.end()) return;
  const uint64_t end = mmap.end_ns();
  const std::string* path = nullptr;
  for (const auto& [ts, p] : it->second) {
    if (ts <= end) path = &p;
  }
  if (path != nullptr) mapped_names_.emplace(mmap.arg1, *path);
}

// Names the files note_mapping_path() found. One already in the table under that path (opened by
// name, or named by an earlier mapping: the same library in another process) is that file, so
// their page cache is one: this one's events take its id (assemble()), and its own entry, unused,
// keeps its placeholder name.
void Resolver::name_mapped_files() {
  file_alias_.assign(file_table_.size(), 0);
  std::unordered_map<std::string, uint64_t> id_of_path;
  for (size_t i = 0; i < file_table_.size(); ++i) {
    const FileInfo& f = file_table_[i];
    if (f.path.starts_with('/') && !mapped_names_.contains(i + 1))
      id_of_path.emplace(f.path, i + 1);
  }
  for (const auto& [id, path] : mapped_names_) {
    if (const auto it = id_of_path.find(path); it != id_of_path.end()) {
      file_alias_[id - 1] = it->second;
      any_alias_ = true;
      FileInfo& same = file_table_[it->second - 1];
      same.size_bytes = std::max(same.size_bytes, file_table_[id - 1].size_bytes);
      continue;
    }
    FileInfo& f = file_table_[id - 1];
    f.path = path;
    f.kind = file_kind_of_path(path);
    id_of_path.emplace(path, id);
    ++report_.files_named_by_mappings;
  }
}

// Files that turned out to be another (name_mapped_files()): their events take its id.
void Resolver::alias_file_ids(std::vector<Event>* events) const {
  for (Event& e : *events) {
    uint64_t* id = e.kind == EventKind::kMmap ? &e.arg1
                   : e.kind == EventKind::kFileRead || e.kind == EventKind::kFileWrite ||
                           e.kind == EventKind::kFsync || e.kind == EventKind::kFileTruncate
                       ? &e.arg0
                       : nullptr;
    if (id != nullptr && *id != 0 && *id <= file_alias_.size() && file_alias_[*id - 1] != 0) {
      *id = file_alias_[*id - 1];
    }
  }
}

std::vector<ImplicitMapping> Resolver::implicit_mappings(uint64_t mm_id, const MmState& m) const {
  // The faults' pages and the ranges calls found mapped, in address order.
  std::vector<ImplicitMapping> pieces;
  const uint64_t page = s_.page_size;
  for (const auto& [addr, faults] : m.outside_pages) {
    pieces.push_back(ImplicitMapping{mm_id, addr, addr + page < addr ? addr : addr + page, faults});
  }
  for (const auto& [start, end] : m.premapped.ranges()) {
    pieces.push_back(ImplicitMapping{mm_id, start, end, 0});
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const ImplicitMapping& a, const ImplicitMapping& b) { return a.start < b.start; });
  std::vector<ImplicitMapping> out;
  for (const ImplicitMapping& p : pieces) {
    if (!out.empty()) {
      ImplicitMapping& last = out.back();
      // Overlapping (a fault inside a premapped range), or near with no mapping between.
      if (p.start <= last.end ||
          (p.start - last.end <= kImplicitMergeGapBytes && !m.ever.intersects(last.end, p.start))) {
        last.end = std::max(last.end, p.end);
        last.faults += p.faults;
        continue;
      }
    }
    out.push_back(p);
  }
  return out;
}

// A block event that is no ordering edge of its own (one is kept as it is): what the two waits
// below may hand to the call after them.
bool Resolver::block_without_edge(uint32_t thread, uint32_t index) const {
  if (s_.threads[thread].items[index].event.kind != EventKind::kBlock) return false;
  const std::pair self{thread, index};
  return !wait_before_.contains(self) && !wake_before_.contains(self) &&
         !wake_after_.contains(self);
}

// A poll/select/epoll wait that returned ready descriptors, followed by the thread's read of a
// pipe or socket that waits for another thread's write (an ordering edge: the write of its
// data): that write is what made the descriptor ready and woke the wait (pipe_write() ->
// wake_up_interruptible_sync_poll() wakes poll waiters and readers alike). The read's edge
// replays that wake-up; the wait's recorded length, a timer, would not follow a writer that
// replays faster or slower than it ran under the tracer. The wait keeps its duration, so the
// think time around it stays what was recorded, and is marked kFlagWokenByEdge: the replay does
// not sleep it.
bool Resolver::readiness_wait_ends_at_next_read(uint32_t thread, uint32_t index) const {
  const std::vector<Item>& items = s_.threads[thread].items;
  const Item& wait = items[index];
  if (!wait.ready || !block_without_edge(thread, index)) return false;
  switch (static_cast<BlockCall>(wait.event.arg0)) {
    case BlockCall::kPoll:
    case BlockCall::kPpoll:
    case BlockCall::kSelect:
    case BlockCall::kPselect6:
    case BlockCall::kEpollWait:
    case BlockCall::kEpollPwait:
      break;
    default:
      return false;
  }
  for (uint32_t j = index + 1; j < items.size(); ++j) {
    const Item& next = items[j];
    const Event& n = next.event;
    // Descriptor changes, observations, the user code's faults and the lock it may take before
    // reading (futex calls: Python's Connection.recv() under the queue's lock) are not the
    // call that consumes what the wait found ready.
    const bool futex =
        n.kind == EventKind::kFutexWait || n.kind == EventKind::kFutexWake ||
        (n.kind == EventKind::kBlock && static_cast<BlockCall>(n.arg0) == BlockCall::kFutex);
    if (!next.emit || n.kind == EventKind::kObservation || n.kind == EventKind::kPageFault ||
        futex) {
      continue;
    }
    if (n.kind != EventKind::kFileRead || n.arg0 == 0 || n.arg0 > file_table_.size()) {
      return false;
    }
    const FileKind kind = file_table_[n.arg0 - 1].kind;
    return (kind == FileKind::kPipe || kind == FileKind::kSocket) &&
           wait_before_.contains(std::pair{thread, j});
  }
  return false;
}

// A wait a signal interrupted (pselect6() returning ERESTARTNOHAND), followed by the thread's
// wait4() for any child that reaped one: the signal was that child's SIGCHLD, as in GNU make,
// which sleeps in pselect6() on its jobserver pipe and reaps with wait4(-1, WNOHANG) when
// SIGCHLD interrupts it. The wait replays as the wait4's (kFlagAnyChild on both: the first child
// to exit in the replay ends it), not as a timer of its recorded length. The user code between
// the two (the signal handler's faults, rt_sigreturn) is not a call that could end the wait.
bool Resolver::interrupted_wait_ends_at_child_exit(uint32_t thread, uint32_t index) const {
  const std::vector<Item>& items = s_.threads[thread].items;
  if (!items[index].interrupted || !block_without_edge(thread, index)) return false;
  for (uint32_t j = index + 1; j < items.size(); ++j) {
    const Event& n = items[j].event;
    if (!items[j].emit || n.kind == EventKind::kObservation || n.kind == EventKind::kPageFault) {
      continue;
    }
    if (n.kind != EventKind::kWaitChild || !n.is_any_child()) return false;
    // The replay waits there only for a child it runs from a recorded clone (do_wait()); the
    // wait4 of a child outside the recording lasts its own recorded time, so the wait before it
    // keeps its own too.
    const auto child = s_.index_of.find(n.arg0);
    return child != s_.index_of.end() && s_.threads[child->second].parent_tid.has_value();
  }
  return false;
}

void Resolver::assemble(ImportedTrace* out) {
  std::map<uint64_t, std::vector<ImplicitMapping>> implicit;
  for (const auto& [mm_id, m] : mms_) {
    auto list = implicit_mappings(mm_id, m);
    report_.implicit_mappings.insert(report_.implicit_mappings.end(), list.begin(), list.end());
    implicit[mm_id] = std::move(list);
  }
  // mm -> stream that opens it: an exec's mm is opened by its mm_create, others by their first
  // thread.
  std::map<uint64_t, uint32_t> first_thread;
  std::set<uint64_t> exec_mms;
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    for (const Item& item : s_.threads[i].items) {
      if (item.event.kind == EventKind::kMmCreate) exec_mms.insert(item.event.arg0);
    }
  }
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    if (!exec_mms.contains(mm_[i])) first_thread.try_emplace(mm_[i], i);
  }
  auto put_implicit = [&](std::vector<Event>& events, uint64_t ts, uint64_t mm,
                          std::optional<uint64_t> forked_from) {
    for (const ImplicitMapping& im : implicit[mm]) {
      // A forked child inherits its parent's implicit mappings: mapping them again
      // (MAP_FIXED) would throw away the pages fork shared.
      if (forked_from && inherited(implicit[*forked_from], im)) continue;
      events.push_back(ev::mmap(ts, im.start, im.end - im.start, kProtRead | kProtWrite,
                                kMapPrivate | kMapAnonymous | kMapFixed));
    }
  };

  // Where a thread with neither an event nor a known clone starts: the recording's first event
  // (not time 0, which would stretch the replay's time origin back to it).
  uint64_t trace_first = UINT64_MAX;
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    trace_first = std::min(trace_first, first_ts(i, UINT64_MAX));
  }
  if (trace_first == UINT64_MAX) trace_first = 0;
  out->streams.resize(s_.threads.size());
  for (uint32_t i = 0; i < s_.threads.size(); ++i) {
    const ThreadState& t = s_.threads[i];
    out->meta.threads.push_back(
        ThreadInfo{t.tid, mm_[i], t.name, t.last_cpu(), t.parent_tid.value_or(0)});
    std::vector<Event>& events = out->streams[i];
    // A task exists from its clone: its stream starts there (else at its first event).
    const uint64_t start = first_ts(i, trace_first);
    events.push_back(ev::thread_start(start));
    if (forked_from_[i]) events.push_back(ev::mm_create(start, mm_[i], *forked_from_[i]));
    auto opener = first_thread.find(mm_[i]);
    if (opener != first_thread.end() && opener->second == i) {
      put_implicit(events, start, mm_[i], forked_from_[i]);
    }
    std::vector<PendingWake> pending;
    for (uint32_t k = 0; k < t.items.size(); ++k) {
      const Item& item = t.items[k];
      if (!item.emit) continue;  // a descriptor change only
      if (readiness_wait_ends_at_next_read(i, k)) {
        ++report_.readiness_waits_on_edges;
        Item woken = item;
        woken.event.flags |= kFlagWokenByEdge;
        emit(woken, ItemRef{i, k}, &events, &pending);
      } else if (interrupted_wait_ends_at_child_exit(i, k)) {
        ++report_.waits_ended_by_child_exit;
        Item woken = item;
        woken.event.flags |= kFlagAnyChild;
        emit(woken, ItemRef{i, k}, &events, &pending);
      } else {
        if (item.event.kind == EventKind::kWaitChild && item.event.is_any_child()) {
          ++report_.waits_for_any_child;
        }
        emit(item, ItemRef{i, k}, &events, &pending);
      }
      if (item.event.kind == EventKind::kMmCreate) {  // at the exec's return
        const Event& e = item.event;
        put_implicit(events, e.end_ns(), e.arg0, std::nullopt);
      }
    }
    Item end_of_stream;
    end_of_stream.emit = false;
    emit(end_of_stream, ItemRef{i, 0}, &events, &pending);
    if (any_alias_) alias_file_ids(&events);
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
  report_.processes = first_thread.size() + exec_mms.size();
  report_.files = file_table_.size();
  for (const FileInfo& f : file_table_) ++report_.files_per_kind[static_cast<size_t>(f.kind)];
  out->meta.files = file_table_;
}

ImportedTrace Resolver::run(RecorderInfo recorder) {
  resolve_mms();
  table_of_ = mm_;
  pair_futexes();
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
  pair_exit_wakes();
  find_clones();
  pair_sockets(order);
  index_mapping_paths();
  for (const Ref& r : order) apply(r.thread, r.index, &s_.threads[r.thread].items[r.index]);
  name_mapped_files();
  number_order_edges();

  ImportedTrace out;
  out.meta.recorder = std::move(recorder);
  out.meta.recorder.page_size = s_.page_size;
  out.meta.recorder.sync_wakes_on_waker_cpu = report_.sync_wakes_on_waker_cpu;
  out.meta.recorder.sync_wakes_on_other_cpu = report_.sync_wakes_on_other_cpu;
  for (const auto& [name, n] : report_.observations) {
    out.meta.params.emplace_back("observed." + name, std::to_string(n));
  }
  if (s_.wmem_default != 0) {
    out.meta.params.emplace_back(std::string(kWmemDefaultParam), std::to_string(s_.wmem_default));
  }
  if (s_.wmem_max != 0) {
    out.meta.params.emplace_back(std::string(kWmemMaxParam), std::to_string(s_.wmem_max));
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

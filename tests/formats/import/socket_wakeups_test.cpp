// Socket wake-ups (formats/import/socket_wakeups.h, socket_pairs.h): a socket whose other end is
// in the recording orders its reads after the peer's writes of their data and its writes after
// the peer's reads that made their room, per direction; datagrams count messages, not bytes;
// a connect and an accept are paired only where the recording leaves no choice.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "formats/import/import.h"
#include "formats/import/socket_pairs.h"
#include "formats/import/socket_wakeups.h"
#include "tests/formats/import/import_test_util.h"

namespace mmreplay::formats {
namespace {

// One call under perf, `dur` seconds long.
std::string call(uint64_t pid, uint64_t tid, double ts, std::string_view name,
                 std::string_view args, std::string_view ret, double dur = 1e-6) {
  return fmt::format(
      "p {}/{} [0] {:.9f}: syscalls:sys_enter_{}: {}\np {}/{} [0] {:.9f}: syscalls:sys_exit_{}: "
      "{}\n",
      pid, tid, ts, name, args, pid, tid, ts + dur, name, ret);
}

std::string io(uint64_t pid, uint64_t tid, double ts, std::string_view name, int fd, uint64_t bytes,
               double dur = 1e-6) {
  std::string args = fmt::format("fd: {:#x}, buf: 0x1000, count: {:#x}", fd, bytes);
  if (name == "sendto" || name == "recvfrom") {
    args = fmt::format("fd: {:#x}, buff: 0x1000, len: {:#x}, flags: 0x0, addr: 0x0, addr_len: 0x0",
                       fd, bytes);
  }
  return call(pid, tid, ts, name, args, fmt::format("{:#x}", bytes), dur);
}

// socketpair(AF_UNIX, type) by pid 10 with fds 3 and 4 (record's return probe names them).
std::string socketpair(int type) {
  return call(10, 10, 1.0, "socketpair",
              fmt::format("family: 0x1, type: {:#x}, protocol: 0x0, usockvec: 0x7ffc1000", type),
              "0x0") +
         "p 10/10 [0] 1.000001500: probe_libc:mmreplay_pipe_socketpair_99__return: "
         "(7f0000001000 <- 401000) fd0=3 fd1=4 ret=0\n";
}

// A thread of pid 10 (shares its fds).
std::string thread11() {
  return call(10, 10, 1.000002, "clone", "clone_flags: 0x3d0f00, newsp: 0x7f0000001000", "0xb");
}

struct Edge {
  uint64_t waker_tid;
  EventKind waker_kind;
  uint64_t waker_len;
  uint64_t waiter_tid;
  EventKind waiter_kind;
  uint64_t waiter_len;
  uint64_t wake_uaddr;
  bool operator==(const Edge&) const = default;
};

// The ordering edges of `t`: each futex_wake of an order (kOrderUaddr or kSyncOrderUaddr) after
// the file event it follows, each futex_wait of an order before the one it precedes.
std::vector<Edge> order_edges(const ImportedTrace& t) {
  struct End {
    uint64_t tid;
    const Event* e;
    uint64_t uaddr;
  };
  std::map<uint64_t, End> wakers;
  std::vector<std::pair<uint64_t, End>> waiters;
  for (size_t s = 0; s < t.streams.size(); ++s) {
    const auto& events = t.streams[s];
    const uint64_t tid = t.meta.threads[s].tid;
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.arg1 != kOrderUaddr && e.arg1 != kSyncOrderUaddr) continue;
      if (e.kind == EventKind::kFutexWake && i > 0) {
        wakers[e.arg0] = End{tid, &events[i - 1], e.arg1};
      } else if (e.kind == EventKind::kFutexWait && i + 1 < events.size()) {
        size_t k = i + 1;
        while (k < events.size() && events[k].kind == EventKind::kFutexWait) ++k;
        if (k < events.size()) waiters.emplace_back(e.arg0, End{tid, &events[k], 0});
      }
    }
  }
  std::vector<Edge> out;
  for (const auto& [id, w] : waiters) {
    auto it = wakers.find(id);
    if (it == wakers.end()) continue;
    const End& k = it->second;
    out.push_back(Edge{k.tid, k.e->kind, k.e->len, w.tid, w.e->kind, w.e->len, k.uaddr});
  }
  return out;
}

ImportedTrace import_perf(const std::string& text, ImportReport* r) {
  ImportedTrace t;
  const Status s = import_text(ImportFormat::kPerfScript, "sock.txt", text, &t, r);
  EXPECT_TRUE(s) << s.message();
  return t;
}

constexpr EventKind kRead = EventKind::kFileRead;
constexpr EventKind kWrite = EventKind::kFileWrite;

// A forked child of a socketpair's parent: the parent sends 4 KiB on fd 3, the child's blocked
// recv on fd 4 wakes; the child answers 64 bytes by send() on fd 4 and the parent's read on fd 3
// takes them. Each read follows the other process's write; the wake-ups are sync.
TEST(SocketWakeups, AStreamPairOrdersEachDirectionAfterTheOtherEndsWrite) {
  ImportReport r;
  const std::string text =
      socketpair(1) + call(10, 10, 1.000002, "clone", "clone_flags: 0x1200011, newsp: 0x0", "0xb") +
      io(11, 11, 1.000010, "recvfrom", 4, 4096, 990e-6) +  // blocked until the parent's write
      io(10, 10, 1.000990, "write", 3, 4096) + io(10, 10, 1.000995, "read", 3, 64, 50e-6) +
      io(11, 11, 1.001010, "sendto", 4, 64) +
      "p 11/11 [0] 1.001100000: syscalls:sys_enter_exit_group: error_code: 0x0\n"
      "p 10/10 [0] 1.001200000: syscalls:sys_enter_exit_group: error_code: 0x0\n";
  const ImportedTrace t = import_perf(text, &r);
  ASSERT_EQ(t.meta.files.size(), 1u);  // both ends, no names: one file of kind socket
  EXPECT_EQ(t.meta.files[0].kind, FileKind::kSocket);
  const std::vector<Edge> edges = order_edges(t);  // by waiting stream: the parent's first
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{11, kWrite, 64, 10, kRead, 64, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{10, kWrite, 4096, 11, kRead, 4096, kSyncOrderUaddr}));
  EXPECT_EQ(r.socket_wakeup_edges, 2u);
  EXPECT_EQ(r.socket_calls_unpaired, 0u);
  EXPECT_EQ(r.ignored_by_name.count("sendto"), 0u);
  EXPECT_EQ(r.ignored_by_name.count("recvfrom"), 0u);
  EXPECT_TRUE(testing::streams_ordered(t));
  EXPECT_NE(format_report(r).find("2 socket ordering edges"), std::string::npos);
}

// Both ends write before either reads: a socket is two channels, so each read takes the other
// end's bytes (as one byte stream per file it would take its own end's).
TEST(SocketWakeups, EachEndReadsWhatThePeerWroteNotWhatItWroteItself) {
  ImportReport r;
  const std::string text = socketpair(1) + thread11() + io(10, 10, 1.000010, "write", 3, 100) +
                           io(10, 11, 1.000020, "write", 4, 200) +
                           io(10, 10, 1.000030, "read", 3, 200) +
                           io(10, 11, 1.000040, "read", 4, 100);
  const ImportedTrace t = import_perf(text, &r);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{11, kWrite, 200, 10, kRead, 200, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{10, kWrite, 100, 11, kRead, 100, kSyncOrderUaddr}));
}

// SOCK_DGRAM: a read takes one datagram whatever its bytes. The first read truncates its 10-byte
// datagram to 5; the second still takes the second datagram (by bytes it would start inside the
// first write).
TEST(SocketWakeups, DatagramsCountMessagesNotBytes) {
  ImportReport r;
  const std::string text =
      socketpair(2) + thread11() + io(10, 10, 1.000010, "write", 3, 10) +
      io(10, 10, 1.000020, "write", 3, 20) + io(10, 10, 1.000030, "write", 3, 30) +
      io(10, 11, 1.000040, "read", 4, 5) + io(10, 11, 1.000050, "read", 4, 20) +
      io(10, 11, 1.000060, "read", 4, 30);
  const ImportedTrace t = import_perf(text, &r);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 3u);
  EXPECT_EQ(edges[0], (Edge{10, kWrite, 10, 11, kRead, 5, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{10, kWrite, 20, 11, kRead, 20, kSyncOrderUaddr}));
  EXPECT_EQ(edges[2], (Edge{10, kWrite, 30, 11, kRead, 30, kSyncOrderUaddr}));
}

// One AF_UNIX stream skb with the default sk_sndbuf and 4 KiB pages: SKB_MAX_HEAD(0) +
// UNIX_SKB_FRAGS_SZ = (4096 - 320) + 32768 (below sk_sndbuf / 2 - 64 = 106432).
constexpr uint64_t kSkb = 36544;

TEST(SocketWakeups, AnAfUnixStreamSkbIsAPageOfHeadAndItsFragsOrHalfTheSendBuffer) {
  EXPECT_EQ(detail::unix_stream_skb_bytes(detail::kSkWmemMax, 4096), kSkb);
  // A small SO_SNDBUF: half of it less 64 ("keep two messages in the pipe").
  EXPECT_EQ(detail::unix_stream_skb_bytes(16384, 4096), 16384u / 2 - 64);
  // 64 KiB pages: the head is a page less the shared info, the frags one page (with a send
  // buffer big enough; the default's half is smaller).
  EXPECT_EQ(detail::unix_stream_skb_bytes(1 << 20, 65536), 65536u - 320 + 65536);
  EXPECT_EQ(detail::unix_stream_skb_bytes(detail::kSkWmemMax, 65536), detail::kSkWmemMax / 2 - 64);
}

// A stream writer whose send buffer is full waits for the read that freed it: with 64 KiB
// writes, each queued as two skbs, the fourth write's first skb needs the room the first read
// made (sk_sndbuf bytes back), the fifth's the second read's. Only edges the recording agrees
// with are kept: a read that began after the write returned did not wake it (here: the reader was
// late, the real sk_sndbuf was bigger than the default).
TEST(SocketWakeups, AStreamWriteFollowsTheReadThatMadeItsRoomWhereTheRecordingAgrees) {
  constexpr uint64_t kBlock = 64 * 1024;
  static_assert(4 * kBlock > detail::kSkWmemMax && 3 * kBlock < detail::kSkWmemMax);
  auto run = [&](double reads_from) {
    std::string text = socketpair(1) + thread11();
    for (int k = 0; k < 5; ++k) {
      text += io(10, 10, 1.000010 + k * 10e-6, "write", 3, kBlock);
      text += io(10, 11, reads_from + k * 10e-6, "read", 4, kBlock);
    }
    ImportReport r;
    return order_edges(import_perf(text, &r));
  };
  auto room_edges = [](const std::vector<Edge>& edges) {
    std::vector<Edge> out;
    for (const Edge& e : edges) {
      if (e.waker_kind == kRead) out.push_back(e);
    }
    return out;
  };
  // Each read 5 us after its write: writes 4 and 5 follow reads 1 and 2; each read follows the
  // first skb of its write.
  std::vector<Edge> edges = run(1.000015);
  EXPECT_EQ(edges.size(), 7u);  // five reads after their writes, two writes after their room
  std::vector<Edge> room = room_edges(edges);
  ASSERT_EQ(room.size(), 2u);
  EXPECT_EQ(room[0], (Edge{11, kRead, kBlock, 10, kWrite, kSkb, kSyncOrderUaddr}));
  // The reads all after the writes returned: no write waited for one.
  edges = run(1.000200);
  EXPECT_EQ(edges.size(), 5u);
  EXPECT_TRUE(room_edges(edges).empty());
}

// unix_stream_sendmsg() queues each skb and wakes the reader before it copies the next, and
// unix_stream_read_generic() returns with what is queued: a read follows the skb that holds its
// first byte. A 100,000-byte write is three skbs (36,544, 36,544, 26,912 bytes); its reader takes
// them in three reads, and the write replays as three pieces, each waking one read.
TEST(SocketWakeups, AStreamReadFollowsTheSkbThatHoldsItsFirstByteNotTheWholeWrite) {
  constexpr uint64_t kBytes = 100000;
  ImportReport r;
  const std::string text =
      socketpair(1) + thread11() + io(10, 10, 1.000010, "write", 3, kBytes, 30e-6) +
      io(10, 11, 1.000015, "read", 4, kSkb) + io(10, 11, 1.000025, "read", 4, kSkb) +
      io(10, 11, 1.000035, "read", 4, kBytes - 2 * kSkb);
  const ImportedTrace t = import_perf(text, &r);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 3u);
  EXPECT_EQ(edges[0], (Edge{10, kWrite, kSkb, 11, kRead, kSkb, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{10, kWrite, kSkb, 11, kRead, kSkb, kSyncOrderUaddr}));
  EXPECT_EQ(edges[2],
            (Edge{10, kWrite, kBytes - 2 * kSkb, 11, kRead, kBytes - 2 * kSkb, kSyncOrderUaddr}));
  EXPECT_EQ(r.socket_writes_in_pieces, 1u);
  EXPECT_EQ(r.socket_write_pieces, 3u);
  EXPECT_NE(format_report(r).find("1 AF_UNIX stream writes replayed as 3 pieces"),
            std::string::npos);
  // The pieces are the write: its bytes in order, each at the call's start and with its duration
  // (no think time between them), and the stream stays in time order.
  // The first piece enters the syscall; the later ones are marked as its continuation, so the
  // replay charges one syscall entry for the write.
  uint64_t bytes = 0;
  for (const Event& e : t.streams[0]) {
    if (e.kind != kWrite) continue;
    EXPECT_EQ(e.arg1, bytes);
    EXPECT_EQ(e.ts_ns, 1000010000u);
    EXPECT_EQ(e.duration_ns, 30000u);
    EXPECT_EQ(e.is_continued(), bytes != 0) << "piece at " << bytes;
    bytes += e.len;
  }
  EXPECT_EQ(bytes, kBytes);
  EXPECT_TRUE(testing::streams_ordered(t));
}

// A read that took a whole write (it came after the write returned) still follows only the skb of
// its first byte: the edge is looser than the recording, never stricter. A datagram socket's
// write is one message, never cut.
TEST(SocketWakeups, OnlyAfUnixStreamWritesAreCutInSkbs) {
  constexpr uint64_t kBytes = 100000;
  for (int type : {1, 2}) {
    ImportReport r;
    const std::string text = socketpair(type) + thread11() +
                             io(10, 10, 1.000010, "write", 3, kBytes, 30e-6) +
                             io(10, 11, 1.000050, "read", 4, kBytes);
    const std::vector<Edge> edges = order_edges(import_perf(text, &r));
    ASSERT_EQ(edges.size(), 1u) << "type " << type;
    EXPECT_EQ(edges[0].waker_len, type == 1 ? kSkb : kBytes) << "type " << type;
    EXPECT_EQ(r.socket_write_pieces, type == 1 ? 2u : 0u) << "type " << type;
  }
}

// The recording machine's net.core.wmem_default sizes the send buffer: at 16 KiB an skb holds
// 8,128 bytes and the writer may queue 16 KiB before it waits. A 64 KiB write is then eight skbs;
// its reader takes 8 KiB a call, and from the third skb on each skb waits for the read that made
// its room, while each read follows the skb of its first byte. The value is kept in the header.
TEST(SocketWakeups, TheRecordingMachinesSendBufferSizesSkbsAndRoom) {
  constexpr uint64_t kSndbuf = 16384;
  constexpr uint64_t kPiece = kSndbuf / 2 - 64;
  constexpr uint64_t kBytes = 8 * kPiece;
  std::string text = socketpair(1) + thread11() + io(10, 10, 1.000010, "write", 3, kBytes, 100e-6);
  for (int k = 0; k < 8; ++k) text += io(10, 11, 1.000012 + k * 10e-6, "read", 4, kPiece);
  ImportReport r;
  ImportedTrace t;
  const Status s =
      import_text(ImportFormat::kPerfScript, "sock.txt", text, &t, &r, ImportOptions{kSndbuf});
  ASSERT_TRUE(s) << s.message();
  const std::vector<Edge> edges = order_edges(t);
  uint64_t data = 0;
  uint64_t room = 0;
  for (const Edge& e : edges) {
    if (e.waker_kind == kWrite) {
      ++data;
      EXPECT_EQ(e.waker_len, kPiece);
    } else {
      ++room;
      EXPECT_EQ(e.waiter_len, kPiece);  // a piece of the write waits, not the whole write
    }
  }
  EXPECT_EQ(data, 8u);
  // Pieces 3..8 end past the 16 KiB of room: each needs the read of the piece two before it.
  EXPECT_EQ(room, 6u);
  EXPECT_EQ(r.socket_write_pieces, 8u);
  EXPECT_TRUE(testing::streams_ordered(t));
  bool kept = false;
  for (const auto& [key, value] : t.meta.params) {
    kept = kept || (key == "net.core.wmem_default" && value == "16384");
  }
  EXPECT_TRUE(kept);
  // With the default send buffer the same write is two skbs and never waits for room.
  const ImportedTrace d = import_perf(text, &r);
  for (const Edge& e : order_edges(d)) EXPECT_EQ(e.waker_kind, kWrite);
  EXPECT_EQ(r.socket_write_pieces, 2u);
}

// sk_setsockopt(): SO_SNDBUF's value capped at net.core.wmem_max, doubled, at least
// SOCK_MIN_SNDBUF; SO_SNDBUFFORCE is not capped.
TEST(SocketWakeups, SetsockoptSndbufDoublesTheValueUnderWmemMax) {
  EXPECT_EQ(detail::sk_sndbuf_of(8192, false, detail::kSkWmemMax), 16384u);
  EXPECT_EQ(detail::sk_sndbuf_of(1 << 20, false, detail::kSkWmemMax), 2 * detail::kSkWmemMax);
  EXPECT_EQ(detail::sk_sndbuf_of(1 << 20, true, detail::kSkWmemMax), uint64_t{2} << 20);
  EXPECT_EQ(detail::sk_sndbuf_of(100, false, detail::kSkWmemMax), detail::kSockMinSndbuf);
}

// The writer's SO_SNDBUF sizes its skbs: strace prints the value, setsockopt(fd, SOL_SOCKET,
// SO_SNDBUF, [8192]) gives sk_sndbuf 16384 and skbs of 8,128 bytes, so a read of the 20,000-byte
// write follows its first skb, and the write's third skb, past the 16 KiB of room, the read.
// Another option changes nothing and is counted as ignored.
TEST(SocketWakeups, StraceSetsockoptSndbufSizesTheWritersSkbs) {
  ImportReport r;
  ImportedTrace t;
  const Status s = import_text(
      ImportFormat::kStrace, "sndbuf.strace",
      "7 1.000000 socketpair(AF_UNIX, SOCK_STREAM, 0, [3<UNIX:[11]>, 4<UNIX:[12]>]) = 0 "
      "<0.000001>\n"
      "7 1.000001 setsockopt(3<UNIX:[11]>, SOL_SOCKET, SO_SNDBUF, [8192], 4) = 0 <0.000001>\n"
      "7 1.000002 setsockopt(3<UNIX:[11]>, SOL_SOCKET, SO_RCVBUF, [8192], 4) = 0 <0.000001>\n"
      "7 1.000010 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
      "CLONE_THREAD|CLONE_SYSVSEM) = 8 <0.000002>\n"
      "7 1.000020 write(3<UNIX:[11]>, \"\"..., 20000) = 20000 <0.000010>\n"
      "8 1.000022 read(4<UNIX:[12]>, \"\"..., 65536) = 8128 <0.000001>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.socket_sndbuf_set, 1u);
  EXPECT_EQ(r.ignored_by_name["setsockopt"], 1u);  // SO_RCVBUF
  // The read follows the first skb; the third skb (past 16 KiB of room) follows the read.
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{8, kRead, 8128, 7, kWrite, 20000 - 2 * 8128, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{7, kWrite, 8128, 8, kRead, 8128, kSyncOrderUaddr}));
  EXPECT_NE(format_report(r).find("1 setsockopt SO_SNDBUF calls sized their socket's send buffer"),
            std::string::npos);
}

// Under perf the value sits behind a pointer: record's entry probe on glibc's setsockopt fetches
// it for the thread's next setsockopt. Without the probe the socket keeps the default, counted.
TEST(SocketWakeups, PerfSetsockoptTakesItsValueFromRecordsProbe) {
  const std::string setsockopt = call(10, 10, 1.000001, "setsockopt",
                                      "fd: 0x3, level: 0x1, optname: 0x7, optval: 0x7ffc3000, "
                                      "optlen: 0x4",
                                      "0x0");
  const std::string probe =
      "p 10/10 [0] 1.000000900: probe_libc:mmreplay_sockopt_99: (7f0000002000) val=8192\n";
  const std::string data = thread11() + io(10, 10, 1.000010, "write", 3, 20000, 10e-6) +
                           io(10, 11, 1.000012, "read", 4, 8128);
  ImportReport r;
  std::vector<Edge> edges = order_edges(import_perf(socketpair(1) + probe + setsockopt + data, &r));
  EXPECT_EQ(r.socket_sndbuf_set, 1u);
  ASSERT_EQ(edges.size(), 2u);  // the read after the first skb, the third skb after the read
  EXPECT_EQ(edges[1].waker_len, 8128u);
  EXPECT_EQ(edges[0].waiter_len, 20000u - 2 * 8128);
  edges = order_edges(import_perf(socketpair(1) + setsockopt + data, &r));
  EXPECT_EQ(r.socket_sndbuf_unknown, 1u);
  EXPECT_NE(format_report(r).find("1 with the value not recorded (the default kept)"),
            std::string::npos);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].waker_len, 20000u);  // one skb with the default send buffer
}

// A socket whose other end is not in the recording (socket() and its data, nothing paired) is
// counted, not ordered.
TEST(SocketWakeups, ASocketWithoutItsOtherEndIsCountedNotOrdered) {
  ImportReport r;
  const std::string text =
      call(10, 10, 1.0, "socket", "family: 0x2, type: 0x1, protocol: 0x0", "0x3") +
      io(10, 10, 1.000010, "write", 3, 100) + io(10, 10, 1.000020, "recvfrom", 3, 100);
  const ImportedTrace t = import_perf(text, &r);
  EXPECT_TRUE(order_edges(t).empty());
  EXPECT_EQ(r.socket_calls_unpaired, 2u);
  EXPECT_NE(format_report(r).find("2 socket reads/writes with the other end not in the recording"),
            std::string::npos);
}

// A server thread accepts on an AF_UNIX listener; a client thread connects: the one connect and
// the one accept are one connection, whose data is ordered as a socketpair's.
std::string server_and_client(int connects) {
  std::string text =
      call(10, 10, 1.0, "socket", "family: 0x1, type: 0x80001, protocol: 0x0", "0x3") + thread11() +
      call(10, 10, 1.000010, "accept4",
           "fd: 0x3, upeer_sockaddr: 0x0, "
           "upeer_addrlen: 0x0, flags: 0x0",
           "0x4", 20e-6);
  for (int k = 0; k < connects; ++k) {
    const int fd = 5 + k;
    text += call(10, 11, 1.000011 + k * 1e-6, "socket", "family: 0x1, type: 0x1, protocol: 0x0",
                 fmt::format("{:#x}", fd));
    text += call(10, 11, 1.000020 + k * 1e-6, "connect",
                 fmt::format("fd: {:#x}, uservaddr: 0x7ffc2000, addrlen: 0x6e", fd), "0x0");
  }
  text += io(10, 11, 1.000040, "sendto", 5, 300);
  text += io(10, 10, 1.000045, "recvfrom", 4, 300);
  return text;
}

TEST(SocketPairs, AConnectAndTheAcceptOfItsListenerAreOneConnection) {
  ImportReport r;
  const ImportedTrace t = import_perf(server_and_client(1), &r);
  EXPECT_EQ(r.socket_connections_paired, 1u);
  EXPECT_EQ(r.socket_connects_unpaired, 0u);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0], (Edge{11, kWrite, 300, 10, kRead, 300, kSyncOrderUaddr}));
  EXPECT_NE(format_report(r).find("1 connections paired from connect and accept"),
            std::string::npos);
}

// Two connects, one accept: which one it took is not in a perf recording (the addresses are
// pointers), so neither is paired and the data is not ordered.
TEST(SocketPairs, MoreConnectsThanAcceptsAreNotGuessed) {
  ImportReport r;
  const ImportedTrace t = import_perf(server_and_client(2), &r);
  EXPECT_EQ(r.socket_connections_paired, 0u);
  EXPECT_EQ(r.socket_connects_unpaired, 2u);
  EXPECT_EQ(r.socket_accepts_unpaired, 1u);
  EXPECT_TRUE(order_edges(t).empty());
}

// The client connects and sends before the server calls accept: the accepted socket is the
// client's peer from the start, so the send is on its channel and the server's read follows it.
TEST(SocketPairs, ASendBeforeTheAcceptStillWakesTheAcceptedSocketsRead) {
  ImportReport r;
  const std::string text =
      call(10, 10, 1.0, "socket", "family: 0x1, type: 0x1, protocol: 0x0", "0x3") + thread11() +
      call(10, 11, 1.000010, "socket", "family: 0x1, type: 0x1, protocol: 0x0", "0x5") +
      call(10, 11, 1.000020, "connect", "fd: 0x5, uservaddr: 0x7ffc2000, addrlen: 0x6e", "0x0") +
      io(10, 11, 1.000030, "write", 5, 300) +
      call(10, 10, 1.000040, "accept4",
           "fd: 0x3, upeer_sockaddr: 0x0, upeer_addrlen: 0x0, flags: 0x0", "0x4") +
      io(10, 10, 1.000050, "read", 4, 300);
  const ImportedTrace t = import_perf(text, &r);
  EXPECT_EQ(r.socket_connections_paired, 1u);
  EXPECT_EQ(r.socket_calls_unpaired, 0u);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0], (Edge{11, kWrite, 300, 10, kRead, 300, kSyncOrderUaddr}));
}

// strace -yy names connected sockets by both ends: two listeners (which the order cannot tell
// apart) and their clients are paired by name.
TEST(SocketPairs, StraceNamesPairTheEndsWhereTheOrderCannot) {
  ImportReport r;
  ImportedTrace t;
  const Status s = import_text(
      ImportFormat::kStrace, "yy.strace",
      "7 1.000000 socket(AF_UNIX, SOCK_STREAM, 0) = 3<UNIX:[100]> <0.000001>\n"
      "7 1.000001 socket(AF_UNIX, SOCK_STREAM, 0) = 4<UNIX:[200]> <0.000001>\n"
      "7 1.000002 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
      "CLONE_THREAD|CLONE_SYSVSEM) = 8 <0.000002>\n"
      "8 1.000010 socket(AF_UNIX, SOCK_STREAM, 0) = 5<UNIX:[102]> <0.000001>\n"
      "8 1.000011 connect(5<UNIX:[102]>, {sa_family=AF_UNIX, sun_path=\"/tmp/a\"}, 110) = 0 "
      "<0.000001>\n"
      "8 1.000012 socket(AF_UNIX, SOCK_STREAM, 0) = 6<UNIX:[202]> <0.000001>\n"
      "8 1.000013 connect(6<UNIX:[202]>, {sa_family=AF_UNIX, sun_path=\"/tmp/b\"}, 110) = 0 "
      "<0.000001>\n"
      "7 1.000020 accept4(4<UNIX:[200,\"/tmp/b\"]>, NULL, NULL, 0) = 9<UNIX:[201->202,"
      "\"/tmp/b\"]> <0.000001>\n"
      "7 1.000021 accept4(3<UNIX:[100,\"/tmp/a\"]>, NULL, NULL, 0) = 10<UNIX:[101->102,"
      "\"/tmp/a\"]> <0.000001>\n"
      "8 1.000030 write(5<UNIX:[102->101]>, \"a\", 10) = 10 <0.000001>\n"
      "8 1.000031 write(6<UNIX:[202->201]>, \"b\", 20) = 20 <0.000001>\n"
      "7 1.000040 read(10<UNIX:[101->102,\"/tmp/a\"]>, \"a\", 100) = 10 <0.000001>\n"
      "7 1.000041 read(9<UNIX:[201->202,\"/tmp/b\"]>, \"b\", 100) = 20 <0.000001>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.socket_connections_paired, 2u);
  EXPECT_EQ(r.socket_connects_unpaired, 0u);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{8, kWrite, 10, 7, kRead, 10, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{8, kWrite, 20, 7, kRead, 20, kSyncOrderUaddr}));
}

// Two listeners of one protocol, bound to /tmp/a and the abstract name b (@b); the client
// connects to b, then a, while the server accepts a first. By order alone that is no choice the
// data leaves (two listeners): with the addresses (record's probes on glibc's bind and connect;
// perf prints the sockaddr as a pointer) each connect is paired with the accept of the listener
// bound there. An abstract name's sun_path is a 0 byte (path="") and the name after it
// (abstract="b"). `ip`: TCP listeners on ports 5000 and 5001 (the probe's u16 at offset 2 is
// sin_port, read little-endian from network order; the strings after it are the address's
// bytes, not text).
std::string two_listeners(bool probes, bool ip = false) {
  auto addr = [&](uint64_t tid, double ts, std::string_view fn, std::string_view path) {
    if (!probes) return std::string();
    if (ip) {
      const unsigned port = path == "/tmp/a" ? 5000 : 5001;
      return fmt::format(
          "p 10/{} [0] {:.9f}: probe_libc:mmreplay_sockaddr_{}_99: (7f0000003000) fam=2 "
          "port={} abstract=\"\" path=\"\x13\"\n",
          tid, ts - 0.0000001, fn, ((port & 0xff) << 8) | (port >> 8));
    }
    const bool abstract = path.starts_with('@');
    return fmt::format(
        "p 10/{} [0] {:.9f}: probe_libc:mmreplay_sockaddr_{}_99: (7f0000003000) fam=1 "
        "port=29743 abstract=\"{}\" path=\"{}\"\n",
        tid, ts - 0.0000001, fn, path.substr(1), abstract ? "" : path);
  };
  const std::string sock =
      ip ? "family: 0x2, type: 0x1, protocol: 0x0" : "family: 0x1, type: 0x1, protocol: 0x0";
  std::string text =
      call(10, 10, 1.0, "socket", sock, "0x3") + addr(10, 1.000001, "bind", "/tmp/a") +
      call(10, 10, 1.000001, "bind", "fd: 0x3, umyaddr: 0x7ffc1000, addrlen: 0x6e", "0x0") +
      call(10, 10, 1.000002, "socket", sock, "0x4") + addr(10, 1.000003, "bind", "@b") +
      call(10, 10, 1.000003, "bind", "fd: 0x4, umyaddr: 0x7ffc1000, addrlen: 0x6e", "0x0") +
      thread11();
  int fd = 5;
  double ts = 1.000010;
  for (std::string_view path : {"@b", "/tmp/a"}) {
    text += call(10, 11, ts, "socket", sock, fmt::format("{:#x}", fd));
    text += addr(11, ts + 1e-6, "connect", path);
    text += call(10, 11, ts + 1e-6, "connect",
                 fmt::format("fd: {:#x}, uservaddr: 0x7ffc2000, addrlen: 0x6e", fd), "0x0");
    ++fd;
    ts += 5e-6;
  }
  text += call(10, 10, 1.000030, "accept4",
               "fd: 0x3, upeer_sockaddr: 0x0, upeer_addrlen: 0x0, flags: 0x0", "0x7");
  text += call(10, 10, 1.000031, "accept4",
               "fd: 0x4, upeer_sockaddr: 0x0, upeer_addrlen: 0x0, flags: 0x0", "0x8");
  text += io(10, 11, 1.000040, "write", 6, 100);  // to /tmp/a: accepted as fd 7
  text += io(10, 11, 1.000041, "write", 5, 50);   // to @b: accepted as fd 8
  text += io(10, 10, 1.000050, "read", 7, 100);
  text += io(10, 10, 1.000051, "read", 8, 50);
  return text;
}

// AF_UNIX listeners told apart by the probes' paths (one an abstract name), TCP ones by ports.
TEST(SocketPairs, AddressesTellTwoListenersApart) {
  for (bool ip : {false, true}) {
    ImportReport r;
    ImportedTrace t = import_perf(two_listeners(true, ip), &r);
    EXPECT_EQ(r.socket_connections_paired, 2u) << "ip " << ip;
    EXPECT_EQ(r.socket_connects_unpaired, 0u);
    std::vector<Edge> edges = order_edges(t);
    ASSERT_EQ(edges.size(), 2u);
    EXPECT_EQ(edges[0], (Edge{11, kWrite, 100, 10, kRead, 100, kSyncOrderUaddr}));
    EXPECT_EQ(edges[1], (Edge{11, kWrite, 50, 10, kRead, 50, kSyncOrderUaddr}));
    // Without the probes: two listeners of one protocol, nothing paired.
    t = import_perf(two_listeners(false, ip), &r);
    EXPECT_EQ(r.socket_connections_paired, 0u) << "ip " << ip;
    EXPECT_EQ(r.socket_connects_unpaired, 2u);
    EXPECT_TRUE(order_edges(t).empty());
  }
}

// strace of two listeners (fds 3 and 4, made by socket(sock_a) and socket(sock_b)) bound to
// addr_a and addr_b, and a client thread that connects (sockets made by socket(sock_client)) to
// to_b and then to_a, while the server accepts on 3 first; each connection carries one write.
// The pairing must follow the addresses, not the order: a's writer is the second connect.
void expect_strace_pairs_by_address(std::string_view sock_a, std::string_view addr_a,
                                    std::string_view sock_b, std::string_view addr_b,
                                    std::string_view sock_client, std::string_view to_a,
                                    std::string_view to_b) {
  ImportReport r;
  ImportedTrace t;
  const std::string text = fmt::format(
      "7 1.000000 socket({0}) = 3 <0.000001>\n"
      "7 1.000001 bind(3, {1}) = 0 <0.000001>\n"
      "7 1.000002 socket({2}) = 4 <0.000001>\n"
      "7 1.000003 bind(4, {3}) = 0 <0.000001>\n"
      "7 1.000004 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
      "CLONE_THREAD|CLONE_SYSVSEM) = 8 <0.000002>\n"
      "8 1.000010 socket({4}) = 5 <0.000001>\n"
      "8 1.000011 connect(5, {6}) = 0 <0.000001>\n"
      "8 1.000012 socket({4}) = 6 <0.000001>\n"
      "8 1.000013 connect(6, {5}) = 0 <0.000001>\n"
      "7 1.000020 accept4(3, NULL, NULL, 0) = 9 <0.000001>\n"
      "7 1.000021 accept4(4, NULL, NULL, 0) = 10 <0.000001>\n"
      "8 1.000030 write(6, \"a\", 10) = 10 <0.000001>\n"
      "8 1.000031 write(5, \"b\", 20) = 20 <0.000001>\n"
      "7 1.000040 read(9, \"a\", 100) = 10 <0.000001>\n"
      "7 1.000041 read(10, \"b\", 100) = 20 <0.000001>\n",
      sock_a, addr_a, sock_b, addr_b, sock_client, to_a, to_b);
  const Status s = import_text(ImportFormat::kStrace, "two.strace", text, &t, &r);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(r.socket_connections_paired, 2u);
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{8, kWrite, 10, 7, kRead, 10, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{8, kWrite, 20, 7, kRead, 20, kSyncOrderUaddr}));
}

// strace prints an IP sockaddr's port: a listener bound to any address and a connect to
// 127.0.0.1 at its port are one address, and a second listener's port another (an IPv6 one:
// IPv4 and IPv6 share a group).
TEST(SocketPairs, StracePortsTellTwoTcpListenersApart) {
  expect_strace_pairs_by_address(
      "AF_INET, SOCK_STREAM, IPPROTO_IP",
      "{sa_family=AF_INET, sin_port=htons(5000), sin_addr=inet_addr(\"0.0.0.0\")}, 16",
      "AF_INET6, SOCK_STREAM, IPPROTO_IP",
      "{sa_family=AF_INET6, sin6_port=htons(5001), sin6_flowinfo=htonl(0), "
      "inet_pton(AF_INET6, \"::\", &sin6_addr), sin6_scope_id=0}, 28",
      "AF_INET, SOCK_STREAM, IPPROTO_IP",
      "{sa_family=AF_INET, sin_port=htons(5000), sin_addr=inet_addr(\"127.0.0.1\")}, 16",
      "{sa_family=AF_INET, sin_port=htons(5001), sin_addr=inet_addr(\"127.0.0.1\")}, 16");
}

// strace without -yy prints the sockaddr: the same pairing from sun_path.
TEST(SocketPairs, StraceSunPathsTellTwoListenersApart) {
  expect_strace_pairs_by_address(
      "AF_UNIX, SOCK_STREAM, 0", "{sa_family=AF_UNIX, sun_path=\"/tmp/a\"}, 110",
      "AF_UNIX, SOCK_STREAM, 0", "{sa_family=AF_UNIX, sun_path=@\"b\"}, 110",
      "AF_UNIX, SOCK_STREAM, 0", "{sa_family=AF_UNIX, sun_path=\"/tmp/a\"}, 110",
      "{sa_family=AF_UNIX, sun_path=@\"b\"}, 110");
}

TEST(SocketPairs, EndpointsOfStraceNames) {
  std::string local;
  std::string remote;
  EXPECT_TRUE(detail::socket_endpoints("UNIX:[101->102,\"/tmp/a\"]", &local, &remote));
  EXPECT_EQ(local, "101");
  EXPECT_EQ(remote, "102");
  EXPECT_TRUE(detail::socket_endpoints("TCPv6:[[::1]:5000->[::1]:40000]", &local, &remote));
  EXPECT_EQ(local, "[::1]:5000");
  EXPECT_EQ(remote, "[::1]:40000");
  EXPECT_FALSE(detail::socket_endpoints("UNIX:[101]", &local, &remote));
  EXPECT_FALSE(detail::socket_endpoints("/tmp/a->b", &local, &remote));
}

// strace names the type (SOCK_DGRAM|SOCK_CLOEXEC) and prints send/recv with their buffers.
TEST(SocketWakeups, StraceGivesTheTypeAndTheSocketCalls) {
  ImportReport r;
  ImportedTrace t;
  const Status s = import_text(
      ImportFormat::kStrace, "sock.strace",
      "7 1.000000 socketpair(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0, [3<UNIX:[11]>, "
      "4<UNIX:[12]>]) = 0 <0.000001>\n"
      "7 1.000010 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
      "CLONE_THREAD|CLONE_SYSVSEM) = 8 <0.000002>\n"
      "7 1.000020 sendto(3<UNIX:[11]>, \"abcdefghij\", 10, 0, NULL, 0) = 10 <0.000001>\n"
      "7 1.000030 sendmsg(3<UNIX:[11]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"x\", "
      "iov_len=20}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 20 <0.000001>\n"
      "8 1.000040 recvfrom(4<UNIX:[12]>, \"abcde\", 5, MSG_TRUNC, NULL, NULL) = 5 <0.000001>\n"
      "8 1.000050 recvmsg(4<UNIX:[12]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"x\", "
      "iov_len=20}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 20 <0.000001>\n",
      &t, &r);
  ASSERT_TRUE(s) << s.message();
  ASSERT_EQ(t.meta.files.size(), 2u);  // two sockets, one inode each
  const std::vector<Edge> edges = order_edges(t);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0], (Edge{7, kWrite, 10, 8, kRead, 5, kSyncOrderUaddr}));
  EXPECT_EQ(edges[1], (Edge{7, kWrite, 20, 8, kRead, 20, kSyncOrderUaddr}));
}

// Bad input: a socket call without its descriptor and length names the line.
TEST(SocketWakeups, ASendWithoutItsArgumentsStopsTheImportWithItsLine) {
  ImportReport r;
  ImportedTrace t;
  const Status s = import_text(ImportFormat::kStrace, "bad.strace",
                               "7 1.000000 brk(NULL) = 0x1000 <0.000001>\n"
                               "7 1.000010 sendto(3) = 10 <0.000001>\n",
                               &t, &r);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("bad.strace:2: malformed strace line: cannot read the arguments of "
                             "sendto()"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace mmreplay::formats

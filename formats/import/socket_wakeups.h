// Socket wake-ups: a socket whose other end is in the recording orders its reads and writes as
// a pipe does (pipe_wakeups.h), once per direction (issue 19).
//
// A connected socket pair is two channels: what one end writes goes to the other end's receive
// queue, and that end's reads take it out. A read that found the queue empty slept until the
// peer's write woke it; a write that found its send buffer full slept until the peer's read
// freed it. Both wake-ups are sync, as a pipe's:
//   - net/unix/af_unix.c: unix_stream_sendmsg() and unix_dgram_sendmsg() queue the skb on the
//     peer and call its sk_data_ready(), sock_def_readable() (net/core/sock.c), which wakes the
//     reader with wake_up_interruptible_sync_poll();
//   - the reader consumes the skb, whose destructor (sock_wfree() -> unix_write_space()) wakes
//     the writer with wake_up_interruptible_sync_poll() once unix_writable() (the writer's
//     sk_wmem_alloc at most a quarter of its sk_sndbuf); a datagram reader also wakes peer_wait
//     (unix_dgram_recvmsg()).
//   - TCP over loopback: tcp_data_ready() -> sk_data_ready, sock_def_readable() as above.
// The channel of a write is the writing end (its description); a read's is its peer's. Offsets
// count what went through each channel, per end (FdTables::Description::sent and received):
//   (1) SOCK_STREAM: bytes, as a pipe's. The writer's room is its sk_sndbuf, counted in skb
//       truesize rather than bytes (sock_alloc_send_pskb() waits while sk_wmem_alloc >=
//       sk_sndbuf, and the wake-up comes at a quarter of it), so the capacity is an estimate:
//       the writer's sk_sndbuf as the recording gives it (SocketBuffers: net.core.wmem_default
//       of the recording machine, or the socket's SO_SNDBUF), the recorded order deciding
//       (pipe_wakeups.h (3)). An AF_UNIX stream write is queued one skb at a time
//       (unix_stream_sendmsg(): each skb holds at most min(sk_sndbuf / 2 - 64,
//       SKB_MAX_HEAD(0) + UNIX_SKB_FRAGS_SZ) bytes, 36,544 with 4 KiB pages, and is queued on
//       the peer with sk_data_ready() before the next is allocated), and a reader takes what is
//       queued and returns (unix_stream_read_generic() sleeps only while it has copied nothing):
//       so a read follows the skb of the write that holds its first byte, and each skb of a write
//       the read that made its room (the write replays as those pieces, pipe_wakeups.h (4)).
//       TCP's send buffer grows with the connection (tcp_sndbuf_expand()): its writes get no room
//       edge, only its reads a data edge, on the whole write.
//   (2) SOCK_DGRAM and SOCK_SEQPACKET: messages. A read takes one datagram, the one a write put
//       in, whatever its bytes (a short buffer truncates it). A connected AF_UNIX pair skips the
//       receive-queue limit (unix_dgram_sendmsg() checks unix_recvq_full() only when the
//       receiver is not its peer), so the writer waits on sk_sndbuf in truesize per message,
//       which the recording does not give: datagram writes get no room edge.
//   (3) A type not known (a socket from before the recording): bytes, reads only.
// Every channel keeps only the edges the recorded order agrees with, so a wrong estimate can
// make an edge looser or drop it, never deadlock the replay.
// Not ordered: reads and writes of a socket whose other end is not paired (a server's clients
// outside the recording, a connect whose accept was not recorded); a sendto with an address on
// an unconnected datagram socket. They replay as a syscall and a copy, counted in the report.

#pragma once

#include <cstdint>
#include <string_view>

#include "formats/import/fd_table.h"
#include "formats/import/pipe_wakeups.h"

namespace mmreplay::formats::detail {

// include/net/sock.h: SK_WMEM_MAX, net.core.wmem_default and so a new socket's sk_sndbuf
// (sock_init_data()), 212992 bytes on x86-64 (_SK_MEM_OVERHEAD * _SK_MEM_PACKETS).
inline constexpr uint64_t kSkWmemMax = 212992;
// include/net/sock.h: SOCK_MIN_SNDBUF, the least sk_sndbuf the kernel gives a socket
// (2 * TCP_SKB_MIN_TRUESIZE, 2 * (2048 + SKB_DATA_ALIGN(sizeof(struct sk_buff))) on x86-64).
inline constexpr uint64_t kSockMinSndbuf = 4608;
// include/linux/skbuff.h: SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64 (17 frags),
// what SKB_MAX_HEAD(0) leaves of a page for an skb's linear data.
inline constexpr uint64_t kSkbSharedInfoBytes = 320;
// net/unix/af_unix.c: UNIX_SKB_FRAGS_SZ (PAGE_SIZE << get_order(32768)), the page fragments of
// one stream skb.
inline constexpr uint64_t kUnixSkbFragsBytes = 32768;
// unix_stream_sendmsg(): "Keep two messages in the pipe so it schedules better": an skb holds at
// most sk_sndbuf / 2 less this.
inline constexpr uint64_t kUnixSkbSndbufSlack = 64;

// The header's param that holds the recording machine's net.core.wmem_default, when known.
inline constexpr std::string_view kWmemDefaultParam = "net.core.wmem_default";

// The send buffers of a recording's sockets: a socket's sk_sndbuf is wmem_default unless its
// SO_SNDBUF set it (FdTables::Description::sndbuf).
struct SocketBuffers {
  uint64_t wmem_default = kSkWmemMax;  // net.core.wmem_default of the recording machine
  uint64_t page_size = 4096;
  uint64_t wmem_max = kSkWmemMax;  // net.core.wmem_max: SO_SNDBUF's cap
};

// The header's param that holds the recording machine's net.core.wmem_max, when known.
inline constexpr std::string_view kWmemMaxParam = "net.core.wmem_max";

// sk_sndbuf after setsockopt(SO_SNDBUF, val) (net/core/sock.c sk_setsockopt()): val capped at
// net.core.wmem_max (not for SO_SNDBUFFORCE), doubled for the kernel's overhead, at least
// SOCK_MIN_SNDBUF.
uint64_t sk_sndbuf_of(uint64_t val, bool force, uint64_t wmem_max);

// The bytes of one AF_UNIX stream skb for a writer whose sk_sndbuf is `sndbuf` (1).
uint64_t unix_stream_skb_bytes(uint64_t sndbuf, uint64_t page_size);

// One read or write of a connected socket end: the channel it moves data on, its offset and
// length in the channel's units, and the channel's limits.
struct SocketChannelCall {
  uint64_t channel = 0;  // the writing end's description index
  uint64_t offset = 0;
  uint64_t len = 0;
  ChannelLimits limits;
};

// Places a call of `bytes` on end `d` in its channel and advances d's count (1)-(3); the limits
// are the writer's: a write's own, a read's as far as `d` knows them (the same defaults).
// REQUIRES: d.peer != FdTables::kNoPeer; calls of one end in recorded order.
SocketChannelCall socket_channel_call(FdTables::Description* d, bool write, uint64_t bytes,
                                      const SocketBuffers& buffers);

}  // namespace mmreplay::formats::detail

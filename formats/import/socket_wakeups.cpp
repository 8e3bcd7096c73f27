#include "formats/import/socket_wakeups.h"

#include <algorithm>

#include "formats/import/syscall.h"

namespace mmreplay::formats::detail {

uint64_t unix_stream_skb_bytes(uint64_t sndbuf, uint64_t page_size) {
  const uint64_t half = sndbuf / 2 > kUnixSkbSndbufSlack ? sndbuf / 2 - kUnixSkbSndbufSlack : 1;
  // SKB_MAX_HEAD(0): a page less the shared info; UNIX_SKB_FRAGS_SZ: at least one page.
  const uint64_t head = page_size > kSkbSharedInfoBytes ? page_size - kSkbSharedInfoBytes : 0;
  return std::min(half, head + std::max(kUnixSkbFragsBytes, page_size));
}

uint64_t sk_sndbuf_of(uint64_t val, bool force, uint64_t wmem_max) {
  const uint64_t v = force ? val : std::min(val, wmem_max);
  return std::max(v * 2, kSockMinSndbuf);
}

SocketChannelCall socket_channel_call(FdTables::Description* d, bool write, uint64_t bytes,
                                      const SocketBuffers& buffers) {
  SocketChannelCall c;
  c.channel = write ? d->index : d->peer;
  const bool messages = d->sock_type == kSockDgram || d->sock_type == kSockSeqpacket;
  // (2): a datagram is one unit whatever its bytes; (1), (3): bytes.
  c.len = messages ? 1 : bytes;
  uint64_t& count = write ? d->sent : d->received;
  c.offset = count;
  count += c.len;
  c.limits.recorded_order = true;
  if (d->sock_type == kSockStream && d->family == kAfUnix) {
    // A read does not know its writer's SO_SNDBUF: the default (the writer's calls set theirs).
    const uint64_t sndbuf = write && d->sndbuf != 0
                                ? sk_sndbuf_of(d->sndbuf, d->sndbuf_force, buffers.wmem_max)
                                : buffers.wmem_default;
    c.limits.capacity = sndbuf;
    c.limits.piece = unix_stream_skb_bytes(sndbuf, buffers.page_size);
  }
  return c;
}

}  // namespace mmreplay::formats::detail

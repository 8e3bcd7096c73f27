#include "formats/import/socket_wakeups.h"

#include "formats/import/syscall.h"

namespace mmreplay::formats::detail {

SocketChannelCall socket_channel_call(FdTables::Description* d, bool write, uint64_t bytes) {
  SocketChannelCall c;
  c.channel = write ? d->index : d->peer;
  const bool messages = d->sock_type == kSockDgram || d->sock_type == kSockSeqpacket;
  // (2): a datagram is one unit whatever its bytes; (1), (3): bytes.
  c.len = messages ? 1 : bytes;
  uint64_t& count = write ? d->sent : d->received;
  c.offset = count;
  count += c.len;
  c.limits.recorded_order = true;
  if (d->sock_type == kSockStream && d->family == kAfUnix) c.limits.capacity = kSkWmemMax;
  return c;
}

}  // namespace mmreplay::formats::detail

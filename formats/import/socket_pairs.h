// Socket pairs from connect and accept: which accepted socket is the other end of which
// connecting one, where the recording holds both (issue 19), so their reads and writes get
// wake-up edges (socket_wakeups.h).
//
// perf prints connect's and bind's addresses only as pointers (record's probes on glibc's connect
// and bind fetch AF_UNIX paths and IP ports), so the pairing uses what every recording has: a
// listener's accept queue is FIFO (the k-th connection that reached it is the k-th accepted:
// unix_stream_connect() queues its skb on the listener, unix_accept() takes the first;
// inet_csk_accept() takes the head of icsk_accept_queue). Connects and accepts are grouped by
// protocol (AF_UNIX or IP, IPv4 and IPv6 together as a v6 listener takes both; socket type) and a
// group is paired only when the data leaves no choice:
//   (1) all of its accepts are on one listening socket of the recording;
//   (2) it has as many connects as accepts (each client and the server are in the recording);
//   (3) in connect start order and accept end order, every connect began before its accept
//       returned.
// Where every connect and accept of a group has its address (AF_UNIX paths, IP ports: strace
// prints them, record's probe on glibc's connect and bind fetches them), the group is split by
// address first,
// so two listeners of one protocol are told apart (a connect goes to the listener bound to its
// address) and (1)-(3) apply to each address.
// Otherwise none of the group is paired, and its connects and accepts are counted as unpaired:
// two listeners of one protocol, a server's clients outside the recording, a program's connects
// to a server outside it. Their reads and writes replay unordered, as a syscall and a copy.
// strace -yy names a connected socket by both ends ("UNIX:[101->102]" for the socket of inode 101
// whose peer is 102, "TCP:[127.0.0.1:5000->127.0.0.1:40000]"): two sockets that name each other
// are paired by name, whatever (1)-(3) say, and left out of the order's groups.
// Not followed: a connect of a datagram socket (it names a default peer; both ends are never
// accepted), sockets passed over SCM_RIGHTS, connects refused or failed (no connection).

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/import/address_order.h"

namespace mmreplay::formats::detail {

struct ConnectCall {
  ItemRef ref;
  uint64_t start_ns = 0;
  uint8_t family = 0;  // AF_UNIX, AF_INET, AF_INET6 (0: not known)
  uint8_t sock_type = 0;
  std::string address;  // the address connected to (an AF_UNIX sun_path; "": not known)
};

struct AcceptCall {
  ItemRef ref;
  uint64_t end_ns = 0;
  uint32_t listener = UINT32_MAX;  // the listening socket's description (UINT32_MAX: unknown)
  uint8_t family = 0;
  uint8_t sock_type = 0;
  std::string address;  // the address the listener was bound to ("": not known)
};

struct SocketPairing {
  std::vector<std::pair<ItemRef, ItemRef>> pairs;  // (connect, accept)
  uint64_t connects_unpaired = 0;
  uint64_t accepts_unpaired = 0;
};

// A connected socket's name as strace -yy prints it: the local and the remote end, false for
// another path (a socket not connected: "UNIX:[101]", "socket:[9]").
bool socket_endpoints(std::string_view path, std::string* local, std::string* remote);

// The address an IP connect or bind is grouped by: its port. A listener bound to 0.0.0.0:P or
// [::]:P takes connects to any local address at P (inet_lookup_listener() matches the port, then
// the address or a wildcard), and IPv4 and IPv6 share a group, so the port is what tells a
// recording's listeners apart; two bound to one port on different addresses share it and, by
// (1), stay unpaired.
std::string ip_port_address(uint16_t port);

// The pairs (1)-(3).
SocketPairing pair_connections(const std::vector<ConnectCall>& connects,
                               const std::vector<AcceptCall>& accepts);

}  // namespace mmreplay::formats::detail

#include "formats/import/socket_pairs.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "formats/import/fd_table.h"
#include "formats/import/syscall.h"

namespace mmreplay::formats::detail {
namespace {

// A group: the protocol family (IPv4 and IPv6 as one) and the socket type.
std::pair<uint8_t, uint8_t> group_of(uint8_t family, uint8_t sock_type) {
  const uint8_t f = family == kAfInet6 ? static_cast<uint8_t>(kAfInet) : family;
  return {f, sock_type};
}

struct Group {
  std::vector<ConnectCall> connects;
  std::vector<AcceptCall> accepts;
};

// (1) and (2).
bool can_pair(const Group& g) {
  std::set<uint32_t> listeners;
  for (const AcceptCall& a : g.accepts) listeners.insert(a.listener);
  return listeners.size() == 1 && *listeners.begin() != UINT32_MAX &&
         g.connects.size() == g.accepts.size();
}

}  // namespace

std::string ip_port_address(uint16_t port) {
  return "port " + std::to_string(port);
}

bool socket_endpoints(std::string_view path, std::string* local, std::string* remote) {
  if (file_kind_of_path(path) != FileKind::kSocket) return false;
  const size_t open = path.find('[');
  const size_t close = path.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open) {
    return false;
  }
  std::string_view inside = path.substr(open + 1, close - open - 1);
  const size_t arrow = inside.find("->");
  if (arrow == std::string_view::npos) return false;
  std::string_view far = inside.substr(arrow + 2);
  // AF_UNIX: "101->102,\"/tmp/s\"": the bound path after the peer's inode is no end.
  if (path.starts_with("UNIX")) far = far.substr(0, far.find(','));
  if (arrow == 0 || far.empty()) return false;
  *local = std::string(inside.substr(0, arrow));
  *remote = std::string(far);
  return true;
}

SocketPairing pair_connections(const std::vector<ConnectCall>& connects,
                               const std::vector<AcceptCall>& accepts) {
  std::map<std::pair<uint8_t, uint8_t>, Group> groups;
  for (const ConnectCall& c : connects)
    groups[group_of(c.family, c.sock_type)].connects.push_back(c);
  for (const AcceptCall& a : accepts) groups[group_of(a.family, a.sock_type)].accepts.push_back(a);
  SocketPairing out;
  // Split by address where each call of a protocol group has one.
  std::vector<std::pair<std::pair<uint8_t, uint8_t>, Group>> split;
  for (auto& [key, g] : groups) {
    const bool addressed = std::all_of(g.connects.begin(), g.connects.end(),
                                       [](const ConnectCall& c) { return !c.address.empty(); }) &&
                           std::all_of(g.accepts.begin(), g.accepts.end(),
                                       [](const AcceptCall& a) { return !a.address.empty(); });
    if (!addressed) {
      split.emplace_back(key, std::move(g));
      continue;
    }
    std::map<std::string, Group> by_address;
    for (ConnectCall& c : g.connects) by_address[c.address].connects.push_back(std::move(c));
    for (AcceptCall& a : g.accepts) by_address[a.address].accepts.push_back(std::move(a));
    for (auto& [address, sub] : by_address) split.emplace_back(key, std::move(sub));
  }
  for (auto& [key, g] : split) {
    std::stable_sort(
        g.connects.begin(), g.connects.end(),
        [](const ConnectCall& a, const ConnectCall& b) { return a.start_ns < b.start_ns; });
    std::stable_sort(g.accepts.begin(), g.accepts.end(),
                     [](const AcceptCall& a, const AcceptCall& b) { return a.end_ns < b.end_ns; });
    bool ok = key.first != 0 && key.second != 0 && can_pair(g);
    for (size_t i = 0; ok && i < g.connects.size(); ++i) {
      ok = g.accepts[i].end_ns == 0 || g.connects[i].start_ns <= g.accepts[i].end_ns;  // (3)
    }
    if (!ok) {
      out.connects_unpaired += g.connects.size();
      out.accepts_unpaired += g.accepts.size();
      continue;
    }
    for (size_t i = 0; i < g.connects.size(); ++i) {
      out.pairs.emplace_back(g.connects[i].ref, g.accepts[i].ref);
    }
  }
  return out;
}

}  // namespace mmreplay::formats::detail

#include "formats/event_text.h"

#include <cinttypes>
#include <cstdio>

namespace mmreplay::formats {
namespace {

void put_hex(std::string* out, const char* key, uint64_t v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, " %s=0x%" PRIx64, key, v);
  *out += buf;
}

void put_dec(std::string* out, const char* key, uint64_t v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, " %s=%" PRIu64, key, v);
  *out += buf;
}

std::string prot_name(uint32_t prot) {
  if (prot == 0) return "none";
  std::string s;
  s += (prot & 1) ? 'r' : '-';
  s += (prot & 2) ? 'w' : '-';
  s += (prot & 4) ? 'x' : '-';
  return s;
}

}  // namespace

std::string advice_name(uint64_t advice) {
  switch (advice) {
    case kMadvNormal:
      return "normal";
    case kMadvWillNeed:
      return "willneed";
    case kMadvDontNeed:
      return "dontneed";
    case kMadvFree:
      return "free";
    case kMadvCold:
      return "cold";
    case kMadvPageout:
      return "pageout";
    case kMadvPopulateRead:
      return "populate_read";
    case kMadvPopulateWrite:
      return "populate_write";
    default:
      return std::to_string(advice);
  }
}

void append_event_fields(const Event& e, std::span<const Range> ranges, std::string* out) {
  *out += kind_name(e.kind);
  switch (e.kind) {
    case EventKind::kThreadStart:
    case EventKind::kThreadExit:
      break;
    case EventKind::kMmCreate:
      put_dec(out, "mm", e.arg0);
      put_dec(out, "parent", e.arg1);
      break;
    case EventKind::kMmExit:
      put_dec(out, "mm", e.arg0);
      break;
    case EventKind::kMmap:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      *out += " prot=" + prot_name(e.prot());
      put_hex(out, "flags", e.map_flags());
      if (e.arg1 != 0) {
        put_dec(out, "file", e.arg1);
        put_dec(out, "offset", e.arg2);
      }
      break;
    case EventKind::kMunmap:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      break;
    case EventKind::kMprotect:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      *out += " prot=" + prot_name(static_cast<uint32_t>(e.arg0));
      break;
    case EventKind::kMremap:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      put_hex(out, "new_addr", e.arg0);
      put_dec(out, "new_len", e.arg1);
      put_hex(out, "flags", e.arg2);
      break;
    case EventKind::kBrk:
      put_hex(out, "brk", e.addr);
      break;
    case EventKind::kMadvise:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      *out += " advice=" + advice_name(e.arg0);
      break;
    case EventKind::kMadviseVector:
      *out += " advice=" + advice_name(e.arg0);
      put_dec(out, "ranges", ranges.size());
      for (const Range& r : ranges) {
        put_hex(out, "addr", r.addr);
        put_dec(out, "len", r.len);
      }
      break;
    case EventKind::kPageFault:
      put_hex(out, "addr", e.addr);
      *out += e.is_write() ? " write" : " read";
      if (e.is_major()) *out += " major";
      if (e.is_kernel_mode()) *out += " kernel";
      break;
    case EventKind::kTouch:
      put_hex(out, "addr", e.addr);
      put_dec(out, "len", e.len);
      *out += e.is_write() ? " write" : " read";
      if (e.arg0 != 0) put_dec(out, "stride", e.arg0);
      break;
    case EventKind::kFileRead:
    case EventKind::kFileWrite:
      put_dec(out, "file", e.arg0);
      put_dec(out, "offset", e.arg1);
      put_dec(out, "len", e.len);
      if (e.kind == EventKind::kFileRead && e.is_kernel_mode()) *out += " splice";
      if (e.is_continued()) *out += " continued";
      break;
    case EventKind::kFsync:
      put_dec(out, "file", e.arg0);
      break;
    case EventKind::kFileTruncate:
      put_dec(out, "file", e.arg0);
      put_dec(out, "size", e.arg1);
      if (e.arg2 != kTruncatedPagesUnknown) put_dec(out, "pages_dropped", e.arg2);
      break;
    case EventKind::kContigAlloc:
      put_dec(out, "handle", e.arg0);
      put_dec(out, "bytes", e.len);
      break;
    case EventKind::kContigFree:
      put_dec(out, "handle", e.arg0);
      break;
    case EventKind::kObservation:
      *out += " what=";
      *out += observation_name(static_cast<ObservationKind>(e.arg0));
      put_hex(out, "value", e.arg1);
      break;
    case EventKind::kBlock:
      *out += " call=";
      *out += block_call_name(static_cast<BlockCall>(e.arg0));
      if (e.is_woken_by_edge()) *out += " woken_by_edge";
      if (e.is_any_child()) *out += " ended_by_child_exit";
      break;
    case EventKind::kClone:
      put_dec(out, "child", e.arg0);
      if (e.arg1 != kCloneFlagsUnknown) put_hex(out, "clone_flags", e.arg1);
      break;
    case EventKind::kFutexWake:
    case EventKind::kFutexWait:
      put_dec(out, "wake", e.arg0);
      put_hex(out, "uaddr", e.arg1);
      break;
    case EventKind::kWaitChild:
      put_dec(out, "child", e.arg0);
      *out += " call=";
      *out += block_call_name(static_cast<BlockCall>(e.arg1));
      if (e.is_any_child()) *out += " any_child";
      break;
  }
  // Flag bits the kind does not name above print as a number.
  const uint8_t named = e.kind == EventKind::kFileWrite   ? kFlagContinued
                        : e.kind == EventKind::kFileRead  ? kFlagKernel
                        : e.kind == EventKind::kBlock     ? kFlagWokenByEdge | kFlagAnyChild
                        : e.kind == EventKind::kWaitChild ? kFlagAnyChild
                                                          : 0;
  const uint8_t other = static_cast<uint8_t>(e.flags & ~named);
  if (e.kind != EventKind::kPageFault && e.kind != EventKind::kTouch && other != 0) {
    put_hex(out, "eflags", other);
  }
  if (e.has_duration()) put_dec(out, "dur_ns", e.duration_ns);
}

}  // namespace mmreplay::formats

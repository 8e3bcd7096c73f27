// What the bytes of a chunk mean, shared by its encoder (chunk_encoder.cpp) and its decoders
// (chunk_decode*.cpp): the op byte's bits, the byKind column fields, and which earlier value
// predicts an address or a file offset. Part of the format (formats/chunk_codec.h says how).

#pragma once

#include <cstdint>

#include "formats/chunk_codec.h"
#include "formats/event.h"
#include "formats/trace.capnp.h"

namespace mmreplay::formats::chunk {

// The op byte: the kind in the low six bits, then whether the event has flags and a duration.
inline constexpr uint8_t kOpKindMask = 0x3f;
inline constexpr uint8_t kOpHasFlags = 1u << 6;
inline constexpr uint8_t kOpHasDuration = 1u << 7;

// The fields of a byKind column (trace.capnp ColumnField).
using Field = capnp_schema::ColumnField;
constexpr int field_index(Field f) {
  return static_cast<int>(f);
}

// Which earlier address predicts an address of `kind`: accesses (a fault, or a touch of the page
// the fault before it took) follow each other, and so do madvise calls and mapping calls.
constexpr AddrClass addr_class(EventKind kind) {
  switch (kind) {
    case EventKind::kPageFault:
    case EventKind::kTouch:
      return AddrClass::kAccess;
    case EventKind::kMadvise:
    case EventKind::kMadviseVector:
      return AddrClass::kAdvice;
    default:
      return AddrClass::kMapping;
  }
}

// File reads and writes store their offset as a delta from the end of the previous one.
constexpr bool is_file_io(EventKind kind) {
  return kind == EventKind::kFileRead || kind == EventKind::kFileWrite;
}

}  // namespace mmreplay::formats::chunk

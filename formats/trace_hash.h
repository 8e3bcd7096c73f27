// A trace's content hash: what `merge` compares to tell whether two results files replayed the
// same trace (issue 15), wherever each shard's copy of the file lives.
//
// The hash is of the content, not of the bytes: it mixes the zstd content checksum (XXH64 of the
// decompressed frame, RFC 8878 section 3.1.1) of the header frame and of every chunk, in stream
// and sequence order. A trace recompressed at another level, or one whose chunks were written in
// another interleaving, hashes the same; a changed event changes its chunk's checksum. It costs a
// few bytes read per chunk, not a pass over the file. Frames written without a checksum (not by
// this writer) are hashed by their bytes instead.

#pragma once

#include <string>

#include "formats/trace_reader.h"

namespace mmreplay::formats {

// 16 hex digits.
std::string trace_content_hash(const TraceReader& reader);

}  // namespace mmreplay::formats

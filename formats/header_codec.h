// Maps TraceMeta and the chunk index to and from their Cap'n Proto messages.

#pragma once

#include <vector>

#include "common/status.h"
#include "formats/trace.capnp.h"
#include "formats/trace_meta.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {

void build_header(const TraceMeta& meta, uint32_t chunk_events, capnp_schema::Header::Builder out);
// Reads the header; refuses a newer major version. `where` names the file in messages.
// Refuses (ResourceExhausted) a thread table longer than `max_threads` before reading it.
Status read_header(capnp_schema::Header::Reader in, const std::string& where, TraceMeta* meta,
                   uint32_t max_threads = kDefaultMaxThreads);

void build_threads(const std::vector<ThreadInfo>& threads,
                   capnp::List<capnp_schema::Thread>::Builder out);
std::vector<ThreadInfo> read_threads(capnp::List<capnp_schema::Thread>::Reader in);

void build_index(const std::vector<ChunkRef>& chunks, const std::vector<ThreadInfo>& threads,
                 uint64_t total_events, capnp_schema::Index::Builder out);

}  // namespace mmreplay::formats

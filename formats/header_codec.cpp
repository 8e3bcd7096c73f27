#include "formats/header_codec.h"

#include <algorithm>
#include <string>

namespace mmreplay::formats {

void build_threads(const std::vector<ThreadInfo>& threads,
                   capnp::List<capnp_schema::Thread>::Builder out) {
  for (size_t i = 0; i < threads.size(); ++i) {
    auto t = out[static_cast<unsigned>(i)];
    t.setTid(threads[i].tid);
    t.setMmId(threads[i].mm_id);
    t.setName(threads[i].name);
    t.setCpu(threads[i].cpu);
    t.setParentTid(threads[i].parent_tid);
  }
}

std::vector<ThreadInfo> read_threads(capnp::List<capnp_schema::Thread>::Reader in) {
  std::vector<ThreadInfo> threads;
  threads.reserve(in.size());
  for (auto t : in)
    threads.push_back(
        ThreadInfo{t.getTid(), t.getMmId(), t.getName().cStr(), t.getCpu(), t.getParentTid()});
  return threads;
}

void build_header(const TraceMeta& meta, uint32_t chunk_events, capnp_schema::Header::Builder out) {
  out.setVersionMajor(meta.version_major);
  out.setVersionMinor(meta.version_minor);
  auto rec = out.initRecorder();
  rec.setTool(meta.recorder.tool);
  rec.setCommandLine(meta.recorder.command_line);
  rec.setKernelRelease(meta.recorder.kernel_release);
  rec.setCpus(meta.recorder.cpus);
  rec.setMemoryBytes(meta.recorder.memory_bytes);
  rec.setPageSize(meta.recorder.page_size);
  rec.setSwapBytes(meta.recorder.swap_bytes);
  rec.setTracingCostNs(meta.recorder.tracing_cost_ns);
  rec.setFaultCostNs(meta.recorder.fault_cost_ns);
  rec.setSyncWakesOnWakerCpu(meta.recorder.sync_wakes_on_waker_cpu);
  rec.setSyncWakesOnOtherCpu(meta.recorder.sync_wakes_on_other_cpu);
  rec.setMinFreeKbytes(meta.recorder.min_free_kbytes);
  rec.setSwapDevice(meta.recorder.swap_device);
  rec.setMemcgLimitBytes(meta.recorder.memcg_limit_bytes);
  out.setGenerator(meta.generator);
  out.setAllocator(meta.allocator);
  auto params = out.initParams(static_cast<unsigned>(meta.params.size()));
  for (size_t i = 0; i < meta.params.size(); ++i) {
    params[static_cast<unsigned>(i)].setKey(meta.params[i].first);
    params[static_cast<unsigned>(i)].setValue(meta.params[i].second);
  }
  build_threads(meta.threads, out.initThreads(static_cast<unsigned>(meta.threads.size())));
  auto files = out.initFiles(static_cast<unsigned>(meta.files.size()));
  for (size_t i = 0; i < meta.files.size(); ++i) {
    auto f = files[static_cast<unsigned>(i)];
    f.setId(meta.files[i].id);
    f.setPath(meta.files[i].path);
    f.setSizeBytes(meta.files[i].size_bytes);
    f.setBlockSize(meta.files[i].block_size);
    f.setKind(static_cast<capnp_schema::FileKind>(meta.files[i].kind));
    f.setCreated(meta.files[i].created);
    f.setReadAheadKb(meta.files[i].read_ahead_kb);
  }
  out.setChunkEvents(chunk_events);
}

Status read_header(capnp_schema::Header::Reader in, const std::string& where, TraceMeta* meta,
                   uint32_t max_threads) {
  meta->version_major = in.getVersionMajor();
  meta->version_minor = in.getVersionMinor();
  if (meta->version_major > kFormatVersionMajor) {
    return Status::corruption(where + ": format version " + std::to_string(meta->version_major) +
                              "." + std::to_string(meta->version_minor) +
                              " is newer than this reader (" + std::to_string(kFormatVersionMajor) +
                              ".x); upgrade trace-replay");
  }
  if (meta->version_major == 0) return Status::corruption(where + ": header has no format version");
  auto rec = in.getRecorder();
  meta->recorder.tool = rec.getTool().cStr();
  meta->recorder.command_line = rec.getCommandLine().cStr();
  meta->recorder.kernel_release = rec.getKernelRelease().cStr();
  meta->recorder.cpus = rec.getCpus();
  meta->recorder.memory_bytes = rec.getMemoryBytes();
  meta->recorder.page_size = rec.getPageSize();
  meta->recorder.swap_bytes = rec.getSwapBytes();
  meta->recorder.tracing_cost_ns = rec.getTracingCostNs();
  meta->recorder.fault_cost_ns = rec.getFaultCostNs();
  meta->recorder.sync_wakes_on_waker_cpu = rec.getSyncWakesOnWakerCpu();  // 0 before format 1.11
  meta->recorder.sync_wakes_on_other_cpu = rec.getSyncWakesOnOtherCpu();
  meta->recorder.min_free_kbytes = rec.getMinFreeKbytes();  // 0 before format 1.12
  // "" before format 1.13; a kind newer than this reader (or a crafted one) reads as not known.
  meta->recorder.swap_device = rec.getSwapDevice().cStr();
  if (meta->recorder.swap_device != "zram" && meta->recorder.swap_device != "block")
    meta->recorder.swap_device.clear();
  meta->recorder.memcg_limit_bytes = rec.getMemcgLimitBytes();  // 0 before format 1.14
  meta->generator = in.getGenerator().cStr();
  meta->allocator = in.getAllocator().cStr();  // "" before format 1.5
  meta->params.clear();
  for (auto p : in.getParams()) meta->params.emplace_back(p.getKey().cStr(), p.getValue().cStr());
  if (const uint32_t n = in.getThreads().size(); n > max_threads) {
    return Status::resource_exhausted(
        where + ": header names " + std::to_string(n) + " threads, more than the limit of " +
        std::to_string(max_threads) + " (ReaderOptions::max_threads)");
  }
  meta->threads = read_threads(in.getThreads());
  meta->files.clear();
  for (auto f : in.getFiles()) {
    // A kind newer than this reader (or a crafted value) reads as unknown: replayed as regular.
    const auto kind = static_cast<uint16_t>(f.getKind());
    meta->files.push_back(FileInfo{
        f.getId(), f.getPath().cStr(), f.getSizeBytes(), f.getBlockSize(),
        kind < kFileKindCount ? static_cast<FileKind>(kind) : FileKind::kUnknown, f.getCreated(),
        std::max(f.getReadAheadKb(), int32_t{-1})});  // a crafted value below -1 reads as unknown
  }
  return Status::ok();
}

void build_index(const std::vector<ChunkRef>& chunks, const std::vector<ThreadInfo>& threads,
                 uint64_t total_events, capnp_schema::Index::Builder out) {
  out.setVersionMajor(kFormatVersionMajor);
  out.setVersionMinor(kFormatVersionMinor);
  auto list = out.initChunks(static_cast<unsigned>(chunks.size()));
  for (size_t i = 0; i < chunks.size(); ++i) {
    auto e = list[static_cast<unsigned>(i)];
    const ChunkRef& c = chunks[i];
    e.setOffset(c.offset);
    e.setSize(c.size);
    e.setStream(c.stream);
    e.setSeq(c.seq);
    e.setFirstTs(c.first_ts);
    e.setLastTs(c.last_ts);
    e.setEvents(c.events);
  }
  build_threads(threads, out.initThreads(static_cast<unsigned>(threads.size())));
  out.setTotalEvents(total_events);
}

}  // namespace mmreplay::formats

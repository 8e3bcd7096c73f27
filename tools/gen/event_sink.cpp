// The two sinks of event_sink.h.

#include "tools/gen/event_sink.h"

#include <string>

namespace mmreplay::gen {

using formats::Event;
using formats::EventKind;
using formats::Range;

uint32_t WriterSink::add_thread(formats::ThreadInfo info) {
  return writer_->add_thread(std::move(info));
}

Status WriterSink::append(uint32_t stream, const Event& event, std::span<const Range> ranges) {
  if (writer_->bytes_written() > max_bytes_) {
    return Status::invalid_argument(
        "trace passed --max-bytes " + std::to_string(max_bytes_) + " after " +
        std::to_string(writer_->events_written()) + " events (" +
        std::to_string(writer_->bytes_written()) +
        " bytes written); stopped, no trace written: lower the workload's parameters or raise "
        "--max-bytes");
  }
  return writer_->append(stream, event, ranges);
}

uint32_t CollectingSink::add_thread(formats::ThreadInfo info) {
  threads_.push_back(std::move(info));
  last_ts_.push_back(0);
  events_.emplace_back();
  return static_cast<uint32_t>(threads_.size() - 1);
}

Status CollectingSink::append(uint32_t stream, const Event& event, std::span<const Range> ranges) {
  if (stream >= threads_.size()) {
    return Status::invalid_argument("append to unknown stream " + std::to_string(stream));
  }
  if (event.ts_ns < last_ts_[stream]) monotonic_ = false;
  last_ts_[stream] = event.ts_ns;
  ++counts_[static_cast<size_t>(event.kind)];
  ++total_;
  if (event.kind == EventKind::kTouch && event.is_write()) touched_write_bytes_ += event.len;
  if (event.kind == EventKind::kMadvise) madvised_bytes_ += event.len;
  if (event.kind == EventKind::kMadviseVector) {
    ranges_total_ += ranges.size();
    for (const Range& range : ranges) madvised_bytes_ += range.len;
  }
  if (keep_events_) {
    Event kept = event;
    if (event.kind == EventKind::kMadviseVector) {
      kept.range_begin = static_cast<uint32_t>(ranges_.size());
      kept.range_count = static_cast<uint32_t>(ranges.size());
      ranges_.insert(ranges_.end(), ranges.begin(), ranges.end());
    }
    events_[stream].push_back(kept);
  }
  return Status::ok();
}

}  // namespace mmreplay::gen

// RunTimeline: the --timeline file of one run: opens it, attaches a TimelineJsonWriter to the
// run's Simulation, labels trace threads' tracks with their recorded tid and name, and closes it
// (errors name the file).

#pragma once

#include <fstream>
#include <memory>

#include "common/status.h"
#include "formats/atomic_file.h"
#include "formats/trace_meta.h"
#include "replay/timeline_json.h"

namespace mmreplay::kernelsim {
class Simulation;
}

namespace mmreplay::replay {

struct RunSpec;

class RunTimeline {
 public:
  // Opens spec.timeline_path and attaches the writer to `sim` (before any task starts).
  static Status open(const RunSpec& spec, kernelsim::Simulation& sim,
                     std::unique_ptr<RunTimeline>* out);
  ~RunTimeline();

  // The track of task `task_id` is trace thread `thread`.
  void label_task(uint32_t task_id, const formats::ThreadInfo& thread);
  // Ends open slices at `end`, closes the JSON array and the file.
  Status close(kernelsim::SimTime end);
  const TimelineStats& stats() const { return writer_->stats(); }

 private:
  RunTimeline() = default;
  std::string path_;
  kernelsim::Simulation* sim_ = nullptr;
  std::unique_ptr<formats::AtomicOutputFile> file_;  // whole or absent (formats/atomic_file.h)
  std::unique_ptr<TimelineJsonWriter> writer_;
};

}  // namespace mmreplay::replay

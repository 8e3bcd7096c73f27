#include "replay/run_timeline.h"

#include "kernelsim/simulation.h"
#include "replay/run.h"

namespace mmreplay::replay {

Status RunTimeline::open(const RunSpec& spec, kernelsim::Simulation& sim,
                         std::unique_ptr<RunTimeline>* out) {
  std::unique_ptr<RunTimeline> t(new RunTimeline());
  t->path_ = spec.timeline_path;
  if (Status s = formats::AtomicOutputFile::open(spec.timeline_path, &t->file_); !s) {
    return s.with_context("--timeline");
  }
  TimelineOptions options;
  options.process_name =
      "replay " + spec.policy_name + " on " + std::to_string(sim.nr_cpus()) + " CPUs";
  options.window_start = kernelsim::SimTime::ns(spec.timeline_window_start_ns);
  options.window_end = kernelsim::SimTime::ns(spec.timeline_window_end_ns);
  if (spec.timeline_max_bytes != 0) options.max_bytes = spec.timeline_max_bytes;
  t->writer_ =
      std::make_unique<TimelineJsonWriter>(t->file_->stream(), sim.nr_cpus(), std::move(options));
  t->sim_ = &sim;
  sim.set_trace_sink(t->writer_.get());
  *out = std::move(t);
  return Status::ok();
}

RunTimeline::~RunTimeline() {
  if (sim_ != nullptr) sim_->set_trace_sink(nullptr);
}

void RunTimeline::label_task(uint32_t task_id, const formats::ThreadInfo& thread) {
  std::string label = "tid " + std::to_string(thread.tid);
  if (!thread.name.empty()) label += " " + thread.name;
  writer_->set_task_label(task_id, std::move(label));
}

Status RunTimeline::close(kernelsim::SimTime end) {
  sim_->set_trace_sink(nullptr);
  sim_ = nullptr;
  writer_->finish(end);
  return file_->commit().with_context("--timeline");
}

}  // namespace mmreplay::replay

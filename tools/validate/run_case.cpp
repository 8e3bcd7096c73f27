#include "tools/validate/run_case.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include "formats/trace_reader.h"
#include "replay/policy_spec.h"
#include "replay/study.h"
#include "tools/gen/generate.h"
#include "tools/validate/extract.h"

namespace mmreplay::validate {

const Scale* ValidationCase::find_scale(const std::string& wanted) const {
  for (const Scale& s : scales) {
    if (s.name == wanted) return &s;
  }
  return nullptr;
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

Status run_case(const ValidationCase& vc, const Scale& scale, const RunCaseOptions& options,
                CaseResult* result) {
  const auto start = std::chrono::steady_clock::now();
  *result = CaseResult();
  if (Status s = check_case(vc); !s) return s;
  result->vc = &vc;
  result->scale = &scale;
  const std::filesystem::path dir = options.work_dir.empty()
                                        ? std::filesystem::temp_directory_path()
                                        : std::filesystem::path(options.work_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);

  // Every arm's policy is resolved before any trace is generated: a bad one fails at once.
  std::vector<kernelsim::KernelConfig> configs(vc.arms.size());
  std::vector<replay::TraceRewrites> rewrites(vc.arms.size());
  for (size_t a = 0; a < vc.arms.size(); ++a) {
    if (Status s = replay::resolve_policy(vc.arms[a].policy, &configs[a], &rewrites[a]); !s) {
      return s.with_context(vc.name);
    }
  }

  // One trace per distinct parameter list: arms that differ only in policy share a trace. The
  // runs are draw-major: the arms of draw 1, then those of draw 2 (compute_rows()).
  std::map<std::string, size_t> trace_of_params;
  std::vector<std::string> paths;
  std::vector<std::unique_ptr<formats::TraceReader>> readers;
  replay::Study study;
  const uint32_t draws = std::max<uint32_t>(scale.draws, 1);
  for (uint32_t draw = 1; draw <= draws; ++draw) {
    for (const Arm& arm : vc.arms) {
      std::vector<std::string> params = scale.params;
      params.insert(params.end(), arm.extra_params.begin(), arm.extra_params.end());
      if (scale.draws > 1) {
        params.push_back("--seed");
        params.push_back(std::to_string(draw));
      }
      const std::string key = join(params);
      auto [it, added] = trace_of_params.emplace(key, paths.size());
      if (added) {
        const std::string path =
            (dir / ("validate-" + std::to_string(::getpid()) + "-" + vc.name + "-" + scale.name +
                    "-" + std::to_string(paths.size()) + ".mmtrace"))
                .string();
        gen::PreparedWorkload prepared;
        if (Status s = gen::prepare_workload(vc.workload, params, path, &prepared); !s) {
          return s.with_context(vc.name);
        }
        gen::GenStats stats;
        if (Status s = gen::generate_to_file(prepared, path, formats::WriterOptions(), &stats);
            !s) {
          return s.with_context(vc.name);
        }
        paths.push_back(path);
        Status open_status;
        auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &open_status);
        if (!reader) return open_status.with_context(vc.name);
        readers.push_back(std::move(reader));
        study.traces.push_back(readers.back().get());
      }
      replay::StudyRun run;
      run.trace = it->second;
      run.spec.policy_name = arm.policy;
      run.spec.config = configs[static_cast<size_t>(&arm - vc.arms.data())];
      run.spec.rewrites = rewrites[static_cast<size_t>(&arm - vc.arms.data())];
      run.spec.cpus = scale.cpus;
      // A scale without a memory size runs on the trace's (the generator scales it with the
      // workload), also on a machine preset, whose memory is the full-size machine's.
      run.spec.memory_bytes = scale.memory_bytes != 0
                                  ? scale.memory_bytes
                                  : readers[it->second]->meta().recorder.memory_bytes;
      run.spec.swap_bytes = scale.swap_bytes;
      run.spec.min_free_kbytes = scale.min_free_kbytes;
      run.spec.profile = vc.profile;
      run.spec.machine = vc.machine_preset;
      study.runs.push_back(run);
    }
  }

  replay::StudyOptions study_options;
  study_options.threads = options.threads;
  replay::StudyResult study_result;
  const Status status = replay::run_study(study, study_options, &study_result);
  readers.clear();
  if (!options.keep_traces) {
    for (const std::string& p : paths) std::filesystem::remove(p, ec);
  }
  if (!status) return status.with_context(vc.name);
  result->runs = std::move(study_result.runs);
  result->draws = draws;
  compute_rows(result);
  result->wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::ok();
}

}  // namespace mmreplay::validate

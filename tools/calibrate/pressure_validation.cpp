#include "tools/calibrate/pressure_validation.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "replay/run.h"
#include "replay/running_kernel.h"
#include "tools/calibrate/pressure_sandbox.h"
#include "tools/calibrate/real_validation.h"

namespace mmreplay::tools::calibrate {
namespace {

std::string ratio(double model, double native) {
  return native == 0 ? "-" : fmt::format("{:.2f}", model / native);
}

void print(const PressureValidationResult& result, std::ostream& out) {
  out << fmt::format("{:<9} {:<16} {:>12} {:>12} {:>8}\n", "advice", "metric", "native", "model",
                     "model/native");
  for (const PressureArm& a : result.arms) {
    const auto row = [&](const char* metric, double n, double m, const char* f) {
      out << fmt::format("{:<9} {:<16} {:>12} {:>12} {:>8}\n", a.advice, metric,
                         fmt::format(fmt::runtime(f), n), fmt::format(fmt::runtime(f), m),
                         ratio(m, n));
    };
    const auto count = [&](const char* metric, uint64_t n, uint64_t m) {
      row(metric, static_cast<double>(n), static_cast<double>(m), "{:.0f}");
    };
    row("elapsed (s)", a.native.seconds, a.model.seconds, "{:.3f}");
    row("CPU (s)", a.native.cpu_seconds, a.model.cpu_seconds, "{:.3f}");
    count("faults", a.native.faults, a.model.faults);
    count("swap-outs", a.native.swapouts, a.model.swapouts);
    count("swap-ins", a.native.swapins, a.model.swapins);
    count("lazily freed", a.native.lazyfreed, a.model.lazyfreed);
    count("reused", a.native.reused, a.model.reused);
    if (a.native.tlb_ipis_known) count("TLB IPIs", a.native.tlb_ipis, a.model.tlb_ipis);
  }
  if (result.arms.size() == 2) {
    const PressureArm& d = result.arms[0];
    const PressureArm& f = result.arms[1];
    out << fmt::format("free / dontneed: elapsed native {} model {}; CPU native {} model {}\n",
                       ratio(f.native.seconds, d.native.seconds),
                       ratio(f.model.seconds, d.model.seconds),
                       ratio(f.native.cpu_seconds, d.native.cpu_seconds),
                       ratio(f.model.cpu_seconds, d.model.cpu_seconds));
  }
}

Status write_json(const PressureValidationOptions& o, const PressureValidationResult& result) {
  const auto figures = [](const BombFigures& f) {
    return nlohmann::json{{"seconds", f.seconds}, {"cpu_seconds", f.cpu_seconds},
                          {"faults", f.faults},   {"swapouts", f.swapouts},
                          {"swapins", f.swapins}, {"lazyfreed", f.lazyfreed},
                          {"reused", f.reused}};
  };
  const auto with_ipis = [&figures](const BombFigures& f) {
    nlohmann::json j = figures(f);
    if (f.tlb_ipis_known) j["tlb_ipis"] = f.tlb_ipis;
    return j;
  };
  nlohmann::json arms = nlohmann::json::array();
  for (const PressureArm& a : result.arms) {
    arms.push_back(
        {{"advice", a.advice}, {"native", with_ipis(a.native)}, {"model", with_ipis(a.model)}});
  }
  const nlohmann::json doc = {{"skipped", result.skipped},
                              {"skip_reason", result.skip_reason},
                              {"processes", o.shape.processes},
                              {"region_bytes", o.shape.region_bytes},
                              {"loops", o.shape.loops},
                              {"page_writes", bomb_page_writes(o.shape)},
                              {"memcg_limit_bytes", o.shape.memcg_limit_bytes},
                              {"profile", o.profile},
                              {"policy", replay::describe_policy(o.policy)},
                              {"arms", arms}};
  std::ofstream out(o.json_path);
  out << doc.dump(1) << "\n";
  out.flush();
  if (!out) return Status::io_error(o.json_path + ": cannot write");
  return Status::ok();
}

}  // namespace

Status run_pressure_validation(const PressureValidationOptions& o, std::ostream& out,
                               PressureValidationResult* result) {
  *result = PressureValidationResult();
  replay::RunSpec spec;
  if (Status s = resolve_real_run(o.profile, o.policy, &spec); !s) return s;
  // The limit needs a memory controller: a policy without one gets memcg=page_counter.
  const bool memcg_added = set_bomb_machine(o.shape, 0, &spec);
  std::string dir = o.work_dir;
  const bool temporary = dir.empty();
  if (temporary && (dir = make_var_tmp_dir("pressure")).empty()) {
    return Status::io_error("cannot make a folder in /var/tmp");
  }
  std::error_code ec;
  if (!temporary && !std::filesystem::create_directories(dir, ec) && ec) {
    return Status::io_error("--work-dir " + dir + ": " + ec.message());
  }
  out << fmt::format(
      "validate --real --pressure: {} processes x {} MiB x {} loops (write a byte a page, "
      "madvise) under a {} MiB memcg with swap; profile {}, policy {}{}\n",
      o.shape.processes, o.shape.region_bytes >> 20, o.shape.loops, o.shape.memcg_limit_bytes >> 20,
      o.profile, replay::describe_policy(o.policy), memcg_added ? "+memcg=page_counter" : "");
  Status status = Status::ok();
  {
    PressureSandbox box;
    const std::string why = box.set_up(o.shape.memcg_limit_bytes, dir, o.swap_file_bytes);
    if (!why.empty()) {
      result->skipped = true;
      result->skip_reason = why;
      out << "skipped: " << why << "\n";
    } else {
      spec.swap_bytes = box.swap.total_bytes();
      for (const bool free : {false, true}) {
        PressureArm arm;
        arm.advice = advice_name(free);
        const std::string trace = dir + "/pressure-" + arm.advice + ".mmtrace";
        status = run_native_bomb(o.shape, box.memcg, free, &arm.native);
        if (status) status = write_bomb_trace(o.shape, free, trace);
        if (status) status = run_model_bomb(spec, trace, &arm.model);
        std::filesystem::remove(trace);
        if (!status) break;
        result->arms.push_back(arm);
      }
      if (status) print(*result, out);
    }
  }
  if (temporary) std::filesystem::remove_all(dir);
  if (!status) return status;
  if (!o.json_path.empty()) return write_json(o, *result);
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate

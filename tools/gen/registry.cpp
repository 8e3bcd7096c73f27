// The explicit list of workloads; adding one is one new file plus one line here.

#include "tools/gen/registry.h"

#include <algorithm>

namespace mmreplay::gen {

const std::vector<WorkloadSpec>& all_workloads() {
  static const std::vector<WorkloadSpec> workloads = {
      madv_bomb_spec(),   jemalloc_purge_spec(), bulk_free_spec(),   page_fault_scale_spec(),
      parallel_dd_spec(), cma_bh_spec(),         page_fault1_spec(), page_fault2_spec(),
      page_fault3_spec(), tlb_flush1_spec(),     tlb_flush2_spec(),  tlb_flush3_spec(),
      ebizzy_spec(),      madvise_vector_spec(), mmap_munmap_spec(),
  };
  return workloads;
}

const WorkloadSpec* find_workload(std::string_view name) {
  for (const WorkloadSpec& spec : all_workloads()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

namespace {

std::string default_with_unit(const ParamSpec& param) {
  return param.default_text + (param.unit.empty() ? "" : " " + param.unit);
}

}  // namespace

std::string describe_workloads() {
  std::string out;
  for (const WorkloadSpec& spec : all_workloads()) {
    out += spec.name + "\n    " + spec.description + "\n";
    size_t name_width = 0;
    size_t value_width = 0;
    for (const ParamSpec& param : spec.params) {
      name_width = std::max(name_width, param.name.size());
      value_width = std::max(value_width, default_with_unit(param).size());
    }
    for (const ParamSpec& param : spec.params) {
      std::string value = default_with_unit(param);
      out += "    --" + param.name + std::string(name_width - param.name.size() + 2, ' ') + value +
             std::string(value_width - value.size() + 2, ' ') + param.help + "\n";
    }
  }
  return out;
}

}  // namespace mmreplay::gen

#include "replay/cost_profile_json.h"

#include <cerrno>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "formats/atomic_file.h"

namespace mmreplay::replay {
namespace {

using nlohmann::json;

// The most one cost may be. Issue 15: 2^63-1 was accepted and latencies wrapped to 1.8e19 ns.
constexpr uint64_t kMaxCostNs = 1'000'000'000;

Status entry_error(const std::string& path, std::string_view section, std::string_view field,
                   const std::string& what) {
  return Status::invalid_argument(path + ": " + std::string(section) + "." + std::string(field) +
                                  ": " + what);
}

Status field_error(const std::string& path, std::string_view field, const std::string& what) {
  return entry_error(path, "costs", field, what);
}

// One entry of `section` ("costs" or "sizes"): a number, or {"<unit>": number, "source": string}.
// *value: the number.
Status entry_value(const json& v, const std::string& path, std::string_view section,
                   std::string_view name, const std::string& unit, const json** value,
                   std::string* source) {
  *value = &v;
  if (!v.is_object()) return Status::ok();
  for (const auto& [key, unused] : v.items()) {
    if (key != unit && key != "source") {
      return entry_error(path, section, name, "unknown key '" + key + "'");
    }
  }
  if (!v.contains(unit)) return entry_error(path, section, name, "missing \"" + unit + "\"");
  *value = &v[unit];
  if (v.contains("source")) {
    if (!v["source"].is_string()) {
      return entry_error(path, section, name, "\"source\" is not a string");
    }
    *source = v["source"].get<std::string>();
  }
  return Status::ok();
}

// One entry of "costs", in nanoseconds.
Status parse_field(const json& v, const std::string& path, std::string_view name, int64_t* ns,
                   std::string* source) {
  const json* value = nullptr;
  if (Status s = entry_value(v, path, "costs", name, "ns", &value, source); !s) return s;
  if (value->is_number_unsigned()) {
    const uint64_t u = value->get<uint64_t>();
    if (u > kMaxCostNs) {
      return field_error(path, name,
                         std::to_string(u) + " ns is outside 0.." + std::to_string(kMaxCostNs) +
                             " (1 s): no modelled step costs more, and sums of such would wrap");
    }
    *ns = static_cast<int64_t>(u);
    return Status::ok();
  }
  if (value->is_number_integer()) return field_error(path, name, "negative value");
  return field_error(path, name, "not a whole number of nanoseconds");
}

// The "sizes" object: each entry a count in its field's unit.
Status parse_sizes(const json& sizes, const std::string& path, CostProfileFile* p) {
  if (!sizes.is_object()) return Status::invalid_argument(path + ": \"sizes\" is not an object");
  for (const auto& [key, v] : sizes.items()) {
    const kernelsim::CostSizeField* f = nullptr;
    for (const kernelsim::CostSizeField& c : kernelsim::cost_size_fields()) {
      if (c.name == key) f = &c;
    }
    if (f == nullptr) return entry_error(path, "sizes", key, "unknown size field");
    const std::string unit(f->unit);
    const json* value = nullptr;
    std::string source;
    if (Status s = entry_value(v, path, "sizes", key, unit, &value, &source); !s) return s;
    if (!value->is_number_unsigned()) {
      return entry_error(path, "sizes", key, "not a whole number of " + unit);
    }
    p->costs.*f->member = value->get<uint64_t>();
    if (!source.empty()) p->sources[key] = source;
  }
  return Status::ok();
}

}  // namespace

Status parse_cost_profile_json(const std::string& text, const std::string& path,
                               CostProfileFile* out) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  // Not JSON, or JSON of another kind: a corrupt or foreign file. A profile with a bad key or
  // value: a bad argument, like a bad --profile name.
  if (doc.is_discarded()) return Status::corruption(path + ": not valid JSON");
  if (!doc.is_object()) return Status::corruption(path + ": not a JSON object");
  if (!doc.contains("format") || doc["format"] != kCostProfileFormat) {
    return Status::corruption(path + ": \"format\" is not \"" + std::string(kCostProfileFormat) +
                              "\"");
  }
  for (const auto& [key, unused] : doc.items()) {
    if (key != "format" && key != "name" && key != "description" && key != "costs" &&
        key != "sizes") {
      return Status::invalid_argument(path + ": unknown key '" + key + "'");
    }
  }
  CostProfileFile p;
  if (doc.contains("name") && doc["name"].is_string()) p.name = doc["name"].get<std::string>();
  if (doc.contains("description") && doc["description"].is_string()) {
    p.description = doc["description"].get<std::string>();
  }
  if (!doc.contains("costs") || !doc["costs"].is_object()) {
    return Status::invalid_argument(path + ": no \"costs\" object");
  }
  std::set<std::string_view> seen;
  for (const auto& [key, value] : doc["costs"].items()) {
    const kernelsim::CostField* f = kernelsim::find_cost_field(key);
    if (f == nullptr) return field_error(path, key, "unknown cost field");
    int64_t ns = 0;
    std::string source;
    if (Status s = parse_field(value, path, key, &ns, &source); !s) return s;
    p.costs.*f->member = kernelsim::SimTime::ns(ns);
    if (!source.empty()) p.sources[key] = source;
    seen.insert(f->name);
  }
  const kernelsim::CostProfile defaults = kernelsim::cost_profile_default();
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    if (seen.contains(f.name)) continue;
    if (!f.added_later) return field_error(path, f.name, "missing");
    p.costs.*f.member = defaults.*f.member;  // a profile written before the field existed
  }
  // "sizes" came later than "costs": a profile without it, or without a field of it, takes the
  // default's value.
  if (doc.contains("sizes")) {
    if (Status s = parse_sizes(doc["sizes"], path, &p); !s) return s;
  }
  *out = std::move(p);
  return Status::ok();
}

Status load_cost_profile_json(const std::string& path, CostProfileFile* out) {
  std::ifstream in(path);
  if (!in) return Status::from_errno(errno, path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_cost_profile_json(text.str(), path, out);
}

std::string cost_profile_to_json(const CostProfileFile& profile) {
  // ordered_json keeps cost_fields() order, so a written profile reads like the C++ table.
  nlohmann::ordered_json doc;
  doc["format"] = kCostProfileFormat;
  doc["name"] = profile.name;
  doc["description"] = profile.description;
  nlohmann::ordered_json costs = nlohmann::ordered_json::object();
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    nlohmann::ordered_json v;
    v["ns"] = (profile.costs.*f.member).count_ns();
    if (auto it = profile.sources.find(std::string(f.name)); it != profile.sources.end()) {
      v["source"] = it->second;
    }
    costs[std::string(f.name)] = v;
  }
  doc["costs"] = costs;
  nlohmann::ordered_json sizes = nlohmann::ordered_json::object();
  for (const kernelsim::CostSizeField& f : kernelsim::cost_size_fields()) {
    nlohmann::ordered_json v;
    v[std::string(f.unit)] = profile.costs.*f.member;
    if (auto it = profile.sources.find(std::string(f.name)); it != profile.sources.end()) {
      v["source"] = it->second;
    }
    sizes[std::string(f.name)] = v;
  }
  doc["sizes"] = sizes;
  return doc.dump(2) + "\n";
}

Status write_cost_profile_json(const std::string& path, const CostProfileFile& profile) {
  return formats::write_file_atomically(
      path, [&](std::ostream& out) { out << cost_profile_to_json(profile); });
}

bool is_cost_profile_path(const std::string& spec) {
  return spec.find('/') != std::string::npos ||
         (spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0);
}

Status resolve_cost_profile(const std::string& spec, kernelsim::CostProfile* out) {
  if (!is_cost_profile_path(spec)) {
    const auto builtin = kernelsim::find_cost_profile(spec);
    if (!builtin) {
      return Status::invalid_argument(
          "--profile " + spec +
          ": no such cost profile (default, xeon-2014, zram, or a .json file)");
    }
    *out = *builtin;
    return Status::ok();
  }
  CostProfileFile file;
  if (Status s = load_cost_profile_json(spec, &file); !s) {
    return Status::from_code(s.code(), "--profile " + s.message());
  }
  *out = file.costs;
  return Status::ok();
}

}  // namespace mmreplay::replay

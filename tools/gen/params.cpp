// Parsing of generator parameters; see params.h for the accepted forms.

#include "tools/gen/params.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace mmreplay::gen {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kNsPerUs = 1000;
constexpr uint64_t kNsPerMs = 1000 * kNsPerUs;
constexpr uint64_t kNsPerS = 1000 * kNsPerMs;

// Multiplies with overflow detection.
bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

// Splits "123abc" into the number 123 and the suffix "abc"; false without leading digits.
bool split_number(std::string_view text, uint64_t* number, std::string_view* suffix) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    begin += 2;
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(begin, end, *number, base);
  if (ec != std::errc() || ptr == begin) return false;
  *suffix = std::string_view(ptr, static_cast<size_t>(end - ptr));
  return true;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

std::string kind_word(ParamKind kind) {
  switch (kind) {
    case ParamKind::kCount:
      return "number";
    case ParamKind::kBytes:
      return "size";
    case ParamKind::kNanos:
      return "duration";
    case ParamKind::kFlag:
      return "on/off value";
    case ParamKind::kChoice:
      return "choice";
    case ParamKind::kScale:
      return "scale";
    case ParamKind::kSeed:
      return "seed";
  }
  return "value";
}

// Parses one value of `spec`; on error returns the message.
Status parse_value(const ParamSpec& spec, std::string_view text, uint64_t* number, double* real) {
  auto bad = [&](const std::string& why) {
    return Status::invalid_argument("--" + spec.name + ": " + why);
  };
  bool ok = false;
  switch (spec.kind) {
    case ParamKind::kCount:
      ok = parse_count(text, number);
      break;
    case ParamKind::kBytes:
      ok = parse_bytes(text, number);
      break;
    case ParamKind::kNanos:
      ok = parse_nanos(text, number);
      break;
    case ParamKind::kSeed:
      ok = parse_count(text, number);
      break;
    case ParamKind::kScale:
      ok = parse_scale(text, real);
      break;
    case ParamKind::kFlag: {
      bool flag = false;
      ok = parse_flag(text, &flag);
      *number = flag ? 1 : 0;
      break;
    }
    case ParamKind::kChoice: {
      std::string list;
      for (const std::string& choice : spec.choices) {
        if (choice == text) return Status::ok();
        list += (list.empty() ? "" : ", ") + choice;
      }
      return bad("'" + std::string(text) + "' is not one of " + list);
    }
  }
  if (!ok) return bad("bad " + kind_word(spec.kind) + " '" + std::string(text) + "'");
  bool ranged = spec.kind == ParamKind::kCount || spec.kind == ParamKind::kBytes ||
                spec.kind == ParamKind::kNanos;
  if (ranged && (*number < spec.min || *number > spec.max)) {
    return bad(std::string(text) + " is outside [" + std::to_string(spec.min) + ", " +
               std::to_string(spec.max) + "]");
  }
  if (spec.power_of_two && (*number & (*number - 1)) != 0) {
    return bad(std::string(text) + " is not a power of two");
  }
  if (spec.kind == ParamKind::kScale && *real > kScaleMax) {
    return bad(std::string(text) + " is outside (0, 1e6]");
  }
  return Status::ok();
}

}  // namespace

bool parse_count(std::string_view text, uint64_t* value) {
  std::string_view suffix;
  return split_number(text, value, &suffix) && suffix.empty();
}

bool parse_bytes(std::string_view text, uint64_t* bytes) {
  uint64_t number = 0;
  std::string_view suffix;
  if (!split_number(text, &number, &suffix)) return false;
  // Accept "K", "KB", "KiB" alike: sizes here are always binary, as in the seeds ("512M").
  if (suffix.size() == 3 && iequals(suffix.substr(1), "ib")) suffix = suffix.substr(0, 1);
  if (suffix.size() == 2 && iequals(suffix.substr(1), "b")) suffix = suffix.substr(0, 1);
  uint64_t unit = 1;
  if (suffix.empty() || iequals(suffix, "b"))
    unit = 1;
  else if (iequals(suffix, "k"))
    unit = kKiB;
  else if (iequals(suffix, "m"))
    unit = kKiB * kKiB;
  else if (iequals(suffix, "g"))
    unit = kKiB * kKiB * kKiB;
  else if (iequals(suffix, "t"))
    unit = kKiB * kKiB * kKiB * kKiB;
  else
    return false;
  return checked_mul(number, unit, bytes);
}

bool parse_nanos(std::string_view text, uint64_t* nanos) {
  uint64_t number = 0;
  std::string_view suffix;
  if (!split_number(text, &number, &suffix)) return false;
  uint64_t unit = 0;
  if (suffix.empty() || suffix == "ns")
    unit = 1;
  else if (suffix == "us")
    unit = kNsPerUs;
  else if (suffix == "ms")
    unit = kNsPerMs;
  else if (suffix == "s")
    unit = kNsPerS;
  else
    return false;
  return checked_mul(number, unit, nanos);
}

bool parse_scale(std::string_view text, double* scale) {
  if (text == "full") {
    *scale = kScaleFull;
    return true;
  }
  if (text == "medium") {
    *scale = kScaleMedium;
    return true;
  }
  if (text == "small") {
    *scale = kScaleSmall;
    return true;
  }
  if (text == "tiny") {
    *scale = kScaleTiny;
    return true;
  }
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    uint64_t num = 0;
    uint64_t den = 0;
    if (!parse_count(text.substr(0, slash), &num) || !parse_count(text.substr(slash + 1), &den) ||
        num == 0 || den == 0) {
      return false;
    }
    *scale = static_cast<double>(num) / static_cast<double>(den);
    return true;
  }
  // strtod is correctly rounded in glibc, so the same text gives the same factor everywhere.
  std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !(value > 0) || !std::isfinite(value)) {
    return false;
  }
  *scale = value;
  return true;
}

bool parse_flag(std::string_view text, bool* flag) {
  for (std::string_view yes : {"on", "true", "yes", "1"}) {
    if (iequals(text, yes)) {
      *flag = true;
      return true;
    }
  }
  for (std::string_view no : {"off", "false", "no", "0"}) {
    if (iequals(text, no)) {
      *flag = false;
      return true;
    }
  }
  return false;
}

Status parse_params(std::span<const ParamSpec> specs, std::span<const std::string> args,
                    ParamValues* out) {
  ParamValues values;
  for (const ParamSpec& spec : specs) {
    ParamValues::Value value;
    value.spec = &spec;
    value.text = spec.default_text;
    Status status = parse_value(spec, spec.default_text, &value.number, &value.real);
    assert(status.is_ok() && "a workload's default must parse");
    values.values_.push_back(std::move(value));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      return Status::invalid_argument("unexpected argument '" + std::string(arg) +
                                      "' (parameters are --name value)");
    }
    std::string_view name = arg.substr(2);
    std::string_view text;
    bool has_inline = false;
    if (size_t eq = name.find('='); eq != std::string_view::npos) {
      text = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline = true;
    }
    ParamValues::Value* value = nullptr;
    for (ParamValues::Value& candidate : values.values_) {
      if (candidate.spec->name == name) value = &candidate;
    }
    if (value == nullptr)
      return Status::invalid_argument("unknown parameter --" + std::string(name));
    if (!has_inline) {
      bool next_is_flag_word = false;
      if (i + 1 < args.size()) {
        bool ignored = false;
        next_is_flag_word = parse_flag(args[i + 1], &ignored);
      }
      if (value->spec->kind == ParamKind::kFlag && !next_is_flag_word) {
        text = "on";  // `--vector` alone
      } else if (i + 1 < args.size()) {
        text = args[++i];
      } else {
        return Status::invalid_argument("--" + std::string(name) + ": missing value");
      }
    }
    Status status = parse_value(*value->spec, text, &value->number, &value->real);
    if (!status.is_ok()) return status;
    value->text = std::string(text);
  }
  // A range given as --min-NAME and --max-NAME must not be empty.
  for (const ParamValues::Value& lo : values.values_) {
    if (!lo.spec->name.starts_with("min-")) continue;
    const ParamValues::Value* hi = values.lookup("max-" + lo.spec->name.substr(4));
    if (hi != nullptr && hi->spec->kind == lo.spec->kind && lo.number > hi->number) {
      return Status::invalid_argument("--" + lo.spec->name + " " + lo.text + " is above --" +
                                      hi->spec->name + " " + hi->text);
    }
  }
  *out = std::move(values);
  return Status::ok();
}

const ParamValues::Value* ParamValues::lookup(std::string_view name) const {
  for (const Value& value : values_) {
    if (value.spec->name == name) return &value;
  }
  return nullptr;
}

const ParamValues::Value& ParamValues::find(std::string_view name, ParamKind kind) const {
  const Value* value = lookup(name);
  // A workload asking for a parameter it did not declare is a generator bug, not bad input.
  assert(value != nullptr && value->spec->kind == kind);
  (void)kind;
  return *value;
}

uint64_t ParamValues::count(std::string_view name) const {
  return find(name, ParamKind::kCount).number;
}
uint64_t ParamValues::bytes(std::string_view name) const {
  return find(name, ParamKind::kBytes).number;
}
uint64_t ParamValues::nanos(std::string_view name) const {
  return find(name, ParamKind::kNanos).number;
}
bool ParamValues::flag(std::string_view name) const {
  return find(name, ParamKind::kFlag).number != 0;
}
const std::string& ParamValues::choice(std::string_view name) const {
  return find(name, ParamKind::kChoice).text;
}

uint64_t ParamValues::seed() const {
  const Value* value = lookup("seed");
  return value != nullptr ? value->number : 0;
}

double ParamValues::scale() const {
  const Value* value = lookup("scale");
  return value != nullptr ? value->real : kScaleFull;
}

uint64_t ParamValues::scaled(uint64_t bytes) const {
  double scaled = std::ceil(static_cast<double>(bytes) * scale() / static_cast<double>(kPageSize));
  uint64_t pages = scaled < 1 ? 1 : static_cast<uint64_t>(scaled);
  return pages * kPageSize;
}

uint64_t ParamValues::scaled_bytes(std::string_view name) const {
  return scaled(bytes(name));
}

std::vector<std::pair<std::string, std::string>> ParamValues::effective() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(values_.size());
  for (const Value& value : values_) out.emplace_back(value.spec->name, value.text);
  return out;
}

ParamSpec count_param(std::string name, uint64_t default_value, std::string unit, std::string help,
                      uint64_t min, uint64_t max) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.kind = ParamKind::kCount;
  spec.default_text = std::to_string(default_value);
  spec.unit = std::move(unit);
  spec.help = std::move(help);
  spec.min = min;
  spec.max = max;
  return spec;
}

ParamSpec bytes_param(std::string name, std::string default_text, std::string help, uint64_t min) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.kind = ParamKind::kBytes;
  spec.default_text = std::move(default_text);
  spec.unit = "bytes";
  spec.help = std::move(help);
  spec.min = min;
  return spec;
}

ParamSpec nanos_param(std::string name, std::string default_text, std::string help) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.kind = ParamKind::kNanos;
  spec.default_text = std::move(default_text);
  spec.unit = "ns";
  spec.help = std::move(help);
  return spec;
}

ParamSpec flag_param(std::string name, bool default_value, std::string help) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.kind = ParamKind::kFlag;
  spec.default_text = default_value ? "on" : "off";
  spec.unit = "on/off";
  spec.help = std::move(help);
  return spec;
}

ParamSpec choice_param(std::string name, std::vector<std::string> choices, std::string help) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.kind = ParamKind::kChoice;
  spec.default_text = choices.front();
  std::string unit;
  for (const std::string& choice : choices) unit += (unit.empty() ? "" : "|") + choice;
  spec.unit = "(" + unit + ")";
  spec.help = std::move(help);
  spec.choices = std::move(choices);
  return spec;
}

namespace shared_params {

ParamSpec threads(uint64_t default_value, std::string help) {
  return count_param("threads", default_value, "threads", std::move(help), 1, kMaxTasks);
}
ParamSpec processes(uint64_t default_value, std::string help) {
  return count_param("processes", default_value, "processes", std::move(help), 1, kMaxTasks);
}
ParamSpec loops(uint64_t default_value, std::string help) {
  return count_param("loops", default_value, "loops", std::move(help));
}
ParamSpec size(std::string default_text, std::string help) {
  return bytes_param("size", std::move(default_text), std::move(help), kPageSize);
}
ParamSpec scale() {
  ParamSpec spec;
  spec.name = "scale";
  spec.kind = ParamKind::kScale;
  spec.default_text = "full";
  spec.unit = "factor";
  spec.help = "memory-size factor: full, medium (1/16), small (1/256), tiny (1/4096), or a number";
  return spec;
}
ParamSpec seed() {
  ParamSpec spec;
  spec.name = "seed";
  spec.kind = ParamKind::kSeed;
  spec.default_text = std::to_string(1);  // not = "1": GCC 12 -O3 false -Wrestrict (PR105329)
  spec.help = "seed of the SplitMix64 generator (same seed, same trace)";
  return spec;
}
ParamSpec vector(std::string help) {
  return flag_param("vector", false, std::move(help));
}
ParamSpec vlen(uint64_t default_value, std::string help) {
  return count_param("vlen", default_value, "ranges", std::move(help), 1, kUioMaxIov);
}
ParamSpec think() {
  return nanos_param("think", "0",
                     "extra user-space time after every operation (cost table + this)");
}

}  // namespace shared_params
}  // namespace mmreplay::gen

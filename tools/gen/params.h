// Generator parameters: what each workload accepts, and parsing `--name value` lists against it.
//
// Every workload declares its parameters (name, kind, default, unit, one-line help) next to its
// recipe; parse_params() checks a command line against that list. Unknown names are rejected by
// name rather than ignored (STYLE.md: "config typos silently falling back to defaults" is what to
// avoid), bad values by name and value, and every effective value (defaults included) is kept so
// the trace header can say exactly how to make the trace again.
//
// Shared names (issue 4): --threads, --processes, --loops, --size, --scale, --seed, --vector,
// --vlen, --think. The factories in namespace shared_params keep their kinds and help text the same
// in every workload.

#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace mmreplay::gen {

enum class ParamKind : uint8_t {
  kCount,   // a whole number within [min, max]
  kBytes,   // a size with an optional binary suffix: 4096, 4K, 512M, 66G
  kNanos,   // a duration: 250, 250ns, 3us, 2ms, 1s
  kFlag,    // on/off; `--vector` alone means on
  kChoice,  // one of `choices`
  kScale,   // memory-size factor: full, medium, small, tiny, a number (0.25) or a fraction (1/64)
  kSeed,    // any 64-bit number, decimal or 0x-hex
};

struct ParamSpec {
  std::string name;  // without the leading "--"
  ParamKind kind = ParamKind::kCount;
  std::string default_text;  // parsed like a value given on the command line
  std::string unit;          // shown by `gen --list`: "processes", "bytes", "ns", ...
  std::string help;
  uint64_t min = 0;  // kCount, kBytes, kNanos: smallest accepted value
  uint64_t max = std::numeric_limits<uint64_t>::max();
  std::vector<std::string> choices = {};  // kChoice only; the first is the default
  bool power_of_two = false;              // kBytes, kCount: only powers of two are accepted
};

// The page size every generator lays memory out in (x86-64, the seeds' machines).
inline constexpr uint64_t kPageSize = 4096;

// Most ranges one vector madvise takes: UIO_MAXIOV of include/uapi/linux/uio.h, the limit
// rw_copy_check_uvector() enforces for madvisev() in seed 002.
inline constexpr uint64_t kUioMaxIov = 1024;

// Most tasks (threads or processes) one parameter may ask for. Every task gets its own slice of
// the address space (address_space.h), and 256 slices fit the 47-bit user space with room left.
inline constexpr uint64_t kMaxTasks = 256;

// Named --scale values: full size, and the shrink factors used for quick runs and tests.
inline constexpr double kScaleFull = 1.0;
inline constexpr double kScaleMedium = 1.0 / 16;
inline constexpr double kScaleSmall = 1.0 / 256;
inline constexpr double kScaleTiny = 1.0 / 4096;
// The largest --scale: a million times a seed's sizes is already past any disk's worth of trace.
inline constexpr double kScaleMax = 1e6;

class ParamValues {
 public:
  uint64_t count(std::string_view name) const;
  uint64_t bytes(std::string_view name) const;  // as given, not scaled
  // A memory size multiplied by --scale, rounded up to whole pages, never below one page.
  uint64_t scaled_bytes(std::string_view name) const;
  uint64_t scaled(uint64_t bytes) const;
  uint64_t nanos(std::string_view name) const;
  bool flag(std::string_view name) const;
  const std::string& choice(std::string_view name) const;
  uint64_t seed() const;  // --seed, or 0 when the workload takes none
  double scale() const;   // --scale, or 1 when the workload takes none

  // (name, text) of every parameter in declaration order, defaults included.
  std::vector<std::pair<std::string, std::string>> effective() const;

 private:
  friend Status parse_params(std::span<const ParamSpec> specs, std::span<const std::string> args,
                             ParamValues* out);
  struct Value {
    const ParamSpec* spec = nullptr;
    std::string text;
    uint64_t number = 0;  // kCount, kBytes, kNanos, kSeed, kFlag (0/1)
    double real = 0;      // kScale
  };
  const Value& find(std::string_view name, ParamKind kind) const;
  const Value* lookup(std::string_view name) const;
  std::vector<Value> values_;
};

// Parses `args` ("--name value", "--name=value", or a bare "--flag") against `specs`.
// On error returns a one-line message naming the flag, e.g. "unknown parameter --thread for
// madv-bomb" (the caller adds the workload name) or "--size: bad size '12Q'".
// REQUIRES: `specs` outlives `out`.
Status parse_params(std::span<const ParamSpec> specs, std::span<const std::string> args,
                    ParamValues* out);

// Value parsers, exposed for tests and for the gen command's own options.
bool parse_bytes(std::string_view text, uint64_t* bytes);
bool parse_nanos(std::string_view text, uint64_t* nanos);
bool parse_count(std::string_view text, uint64_t* value);
bool parse_scale(std::string_view text, double* scale);
bool parse_flag(std::string_view text, bool* flag);

// Builders for workload-specific parameters.
ParamSpec count_param(std::string name, uint64_t default_value, std::string unit, std::string help,
                      uint64_t min = 1, uint64_t max = std::numeric_limits<uint64_t>::max());
ParamSpec bytes_param(std::string name, std::string default_text, std::string help,
                      uint64_t min = 1);
ParamSpec nanos_param(std::string name, std::string default_text, std::string help);
ParamSpec flag_param(std::string name, bool default_value, std::string help);
ParamSpec choice_param(std::string name, std::vector<std::string> choices, std::string help);

// The shared parameters, with the same meaning in every workload that takes them.
namespace shared_params {
ParamSpec threads(uint64_t default_value, std::string help = "threads sharing one mm");
ParamSpec processes(uint64_t default_value, std::string help = "processes, one mm each");
ParamSpec loops(uint64_t default_value, std::string help = "iterations of the main loop");
ParamSpec size(std::string default_text, std::string help);
ParamSpec scale();
ParamSpec seed();
ParamSpec vector(std::string help);
ParamSpec vlen(uint64_t default_value, std::string help);
ParamSpec think();
}  // namespace shared_params

}  // namespace mmreplay::gen

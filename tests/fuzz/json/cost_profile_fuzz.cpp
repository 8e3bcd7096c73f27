// Fuzz target for the cost profile loader (`--profile FILE.json`): any bytes are parsed; the
// parse either succeeds with every cost in 0..1 s or fails with one message that names the file.
// An uncaught exception (nlohmann's typed getters throw) or a crash is what the fuzzer reports.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "kernelsim/costs/cost_profile.h"
#include "replay/cost_profile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmreplay;
  const std::string path = "fuzz.json";
  replay::CostProfileFile profile;
  const Status s = replay::parse_cost_profile_json(
      std::string(reinterpret_cast<const char*>(data), size), path, &profile);
  if (!s) {
    if (s.message().compare(0, path.size() + 1, path + ":") != 0) std::abort();
    return 0;
  }
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    const int64_t ns = (profile.costs.*f.member).count_ns();
    if (ns < 0 || ns > 1'000'000'000) std::abort();
  }
  (void)replay::cost_profile_to_json(profile);
  return 0;
}

// Fuzz target for the strace importer (see import_fuzz_target.h).

#include "tests/fuzz/import/import_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mmreplay::formats::fuzz_import(mmreplay::formats::ImportFormat::kStrace, data, size);
  return 0;
}

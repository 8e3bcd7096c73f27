// The files the calibration probes read and map: one helper, so every probe's file is made the
// same way (in $TMPDIR or /tmp, unlinked at once, written so its pages are in the page cache).

#pragma once

#include <cstddef>
#include <string>

namespace mmreplay::tools::calibrate {

// A file of `pages` pages written `block_pages` at a time (its pages in the page cache, dirty),
// already unlinked; the open descriptor, or -1 with *why set.
int scratch_file(size_t pages, size_t block_pages, std::string* why);

}  // namespace mmreplay::tools::calibrate

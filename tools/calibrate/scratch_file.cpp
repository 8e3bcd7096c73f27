#include "tools/calibrate/scratch_file.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "tools/calibrate/user_pages.h"

namespace mmreplay::tools::calibrate {

int scratch_file(size_t pages, size_t block_pages, std::string* why) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/trace-replay-calibrate.XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) {
    *why = "cannot create a file in " + path;
    return -1;
  }
  ::unlink(path.c_str());
  const std::vector<char> block(block_pages * kUserPage, 'x');
  for (size_t i = 0; i < pages; i += block_pages) {
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
      ::close(fd);
      *why = "cannot write the file";
      return -1;
    }
  }
  return fd;
}

}  // namespace mmreplay::tools::calibrate

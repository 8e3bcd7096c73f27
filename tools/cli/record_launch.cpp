#include "tools/cli/record_launch.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/cli/commands.h"
#include "tools/cli/record_perf.h"

namespace mmreplay::tools {

uint64_t warm_bytes(uint64_t mib, uint64_t free_bytes) {
  return std::min(mib << 20, free_bytes / kWarmFreeMemoryDivisor);
}

bool warm_free_memory(uint64_t bytes) {
  if (bytes == 0) return true;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) return false;
  ::munmap(p, bytes);
  return true;
}

std::vector<std::string> launcher_argv(const std::string& self, uint64_t warm_mib,
                                       const std::vector<std::string>& command) {
  std::vector<std::string> argv = {self, kLaunchCommand, "--warm-mib", std::to_string(warm_mib),
                                   "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

int launch(uint64_t warm_mib, const std::vector<std::string>& command) {
  if (command.empty()) {
    fmt::print(stderr, "{}: no command to run\n", kLaunchCommand);
    return kExitCannotRun;
  }
  const long free_pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (free_pages > 0 && page_size > 0) {
    warm_free_memory(
        warm_bytes(warm_mib, static_cast<uint64_t>(free_pages) * static_cast<uint64_t>(page_size)));
  }
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  fmt::print(stderr, "{}: cannot run {}: {}\n", kLaunchCommand, command[0], std::strerror(errno));
  return kExitCannotRun;
}

void register_record_launch_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(kLaunchCommand, "record's launcher (internal)");
  cmd->group("");  // hidden from --help: record has perf run it
  auto warm_mib = std::make_shared<uint64_t>(kRecordWarmMiB);
  auto command = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--warm-mib", *warm_mib);
  cmd->add_option("command", *command)->required();
  cmd->callback([exit_code, warm_mib, command] { *exit_code = launch(*warm_mib, *command); });
}

}  // namespace mmreplay::tools

// What the throughput calibration reads from /proc: the TLB-shootdown interrupt count (the "TLB"
// line of /proc/interrupts) and the 1-minute load average, with the rule that refuses to measure
// on a machine already busy. The parsers take the text, so tests feed them fixtures.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace mmreplay::tools::calibrate {

// The sum over CPUs of the "TLB:" line of /proc/interrupts text ("TLB: 12 34 TLB shootdowns");
// nullopt when the text has no such line (a kernel or architecture that does not count them) or
// the line has no number.
std::optional<uint64_t> parse_tlb_shootdowns(std::string_view interrupts_text);
// parse_tlb_shootdowns() of this machine's /proc/interrupts; nullopt when unreadable.
std::optional<uint64_t> read_tlb_shootdowns();

// The first field of /proc/loadavg text ("0.66 1.41 1.63 2/345 6789"); nullopt when malformed.
std::optional<double> parse_load1(std::string_view loadavg_text);
// parse_load1() of this machine's /proc/loadavg; nullopt when unreadable.
std::optional<double> read_load1();

// Why a throughput measurement must not start: a one-line message when the 1-minute load average
// `load1` exceeds `cpus` (other work would share the CPUs the loops are pinned to and their
// figures would be that work's, not the kernel's); empty when it may start.
std::string load_refusal(double load1, int cpus);

// load_refusal() of this machine (its load average, the CPUs this process may use) as an
// InvalidArgument; Ok when quiet or when /proc/loadavg cannot be read (then nothing is known).
Status check_machine_quiet();

}  // namespace mmreplay::tools::calibrate

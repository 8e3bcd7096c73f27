// The figures a validation case reads off a run, as Extract functions (validation_case.h).

#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "tools/validate/validation_case.h"

namespace mmreplay::validate {

// The run's virtual makespan in seconds ("elapsed" of /usr/bin/time).
Extract elapsed_seconds();
// A counter of RunResult::counters (e.g. "swapins"); nullopt when the run has no such counter.
Extract counter(std::string name);
// A counter divided by the CPUs and the makespan: a per-CPU rate in events per second
// (seed 002's "TLB flush interrupts per CPU per second").
Extract per_cpu_rate(std::string counter_name);
// A counter per second of makespan over the whole machine, summed over its CPUs (seed 002's
// TLB flush interrupts: see seed_002_madvisev.cpp for why the sum).
Extract machine_rate(std::string counter_name);
// "faults" per second of makespan over the whole machine (seed 001's faults/s).
Extract faults_per_second();
// Total time (count x mean) spent in the latency histograms of `ops`, divided by `per` (e.g. the
// number of threads): seconds.
Extract op_time_seconds(std::vector<std::string> ops, double per);
// A lock's contentions, and its total wait time in seconds.
Extract lock_contentions(std::string lock);
Extract lock_wait_seconds(std::string lock);
// A latency percentile of one operation, in microseconds.
Extract op_percentile_us(std::string op, double percentile);
// The mean latency of one operation, in microseconds.
Extract op_mean_us(std::string op);
// The CPU time of the whole machine in seconds: every CPU's busy time (tasks and interrupt
// handlers), what time(1) reports as user + system over all of a test's processes (kswapd's
// share included, which time(1) leaves out).
Extract busy_cpu_seconds();
// The user and system time of the test's processes in seconds, as getrusage() (time(1)) reports
// them under tick-based accounting (RunResult::process_times()): user is user-mode work plus the
// interrupts that landed in it (user_ns + irq_user_ns); system is the rest of the processes' busy
// time, interrupts that landed in kernel work and spinning included. kswapd's time is in neither.
// process_cpu_seconds() is their sum, busy_ns - kthread_ns.
Extract user_cpu_seconds();
Extract system_cpu_seconds();
Extract process_cpu_seconds();

// Every results key the case's metrics read is one a run can hold (replay/result_keys.h): an
// error naming the case, the metric and the unknown key otherwise. A known lock class may still
// be absent from a run that never took it; its extractors read that as 0.
Status check_case(const ValidationCase& vc);

}  // namespace mmreplay::validate

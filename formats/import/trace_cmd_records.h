// The records of a trace.dat, read by libtracecmd in a child process and handed to the importer
// as plain values.
//
// Why a child: Debian's libtraceevent 1.7 is not safe on damaged files. One bit flipped inside a
// compressed section of the test recording makes tep_parse_event() die of SIGSEGV, and 36 bytes
// of header make it free memory twice; fuzz_import_trace_cmd found both (issue 15). Some damage
// corrupts the heap without any crash at the time, so a library that read the file in this
// process could break it later. The child reads the file, sends each record (time, task, event,
// every field) down a pipe and exits; if it dies, the file is reported as damaged. Cost: a fork
// and a copy of each record, small beside libtracecmd's own work.

#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace mmreplay::formats {

struct TcField {
  std::string name;
  bool is_number = false;  // read as a number (tep_read_number_field)
  uint64_t value = 0;
};

struct TcRecord {
  uint64_t ts = 0;         // ns
  uint64_t offset = 0;     // in the file
  int32_t pid = 0;         // the task (thread) id
  bool described = false;  // false: an event the file does not describe (no system, name, fields)
  bool has_comm = false;
  std::string comm, system, name;
  std::vector<TcField> fields;  // the event's own fields, in declared order

  // The fields from index `skip` on, at most max; false when one of them is not a number.
  bool field_values(size_t skip, uint64_t* values, size_t max, size_t* count) const;
  // One field by name; false when it is missing or not a number.
  bool field_value(std::string_view name, uint64_t* value) const;
};

// Calls on_record for every record of the trace.dat at `path`, in time order, until it returns
// false. *cpus gets the recorded CPU count. Errors name the file: NotFound when it is missing,
// Corruption when libtracecmd cannot open it or dies reading it.
Status read_trace_dat_records(const std::string& path,
                              const std::function<bool(const TcRecord&)>& on_record, int* cpus);

}  // namespace mmreplay::formats

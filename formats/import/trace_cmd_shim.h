/* A C shim over libtracecmd for trace_cmd.cpp: Debian's tracefs.h (pulled in by trace-cmd.h)
 * does not compile as C++, so the one file that includes it is C. Records come out in time order
 * with their event's system, name and task; fields are read by position. It runs in the child
 * process of trace_cmd_records.cpp, never in the importer's own. */

#ifndef MMREPLAY_FORMATS_IMPORT_TRACE_CMD_SHIM_H
#define MMREPLAY_FORMATS_IMPORT_TRACE_CMD_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mmr_tc_record {
  unsigned long long ts;     /* ns */
  unsigned long long offset; /* in the file */
  int pid;                   /* the task (thread) id */
  const char* comm;          /* may be NULL */
  const char* system;        /* NULL when the file does not describe the event */
  const char* name;
  void* impl_event;
  void* impl_record;
};

/* Returns 0 when the callback returning non-zero should stop the walk. Returns -1 when the file
 * cannot be opened. *cpus gets the recorded CPU count. */
int mmr_tc_read(const char* path, int (*callback)(const struct mmr_tc_record*, void*), void* data,
                int* cpus);

/* The record's field number `index` (declared order): its name, and *ok = 1 with its value when it
 * reads as a number. -1 past the last field. */
int mmr_tc_field_at(const struct mmr_tc_record* r, size_t index, const char** name,
                    unsigned long long* value, int* ok);

#ifdef __cplusplus
}
#endif

#endif

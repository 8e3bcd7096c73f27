/* See trace_cmd_shim.h. */

#include "formats/import/trace_cmd_shim.h"

#include <event-parse.h>
#include <trace-cmd.h>

struct walk {
  int (*callback)(const struct mmr_tc_record*, void*);
  void* data;
  struct tep_handle* tep;
};

static int on_record(struct tracecmd_input* handle, struct tep_record* record, int cpu,
                     void* data) {
  struct walk* w = data;
  struct mmr_tc_record r = {0};
  struct tep_event* event = tep_find_event_by_record(w->tep, record);
  (void)handle;
  (void)cpu;
  r.ts = record->ts;
  r.offset = record->offset;
  r.pid = tep_data_pid(w->tep, record);
  r.comm = tep_data_comm_from_pid(w->tep, r.pid);
  if (event != NULL) {
    r.system = event->system;
    r.name = event->name;
  }
  r.impl_event = event;
  r.impl_record = record;
  return w->callback(&r, w->data);
}

int mmr_tc_read(const char* path, int (*callback)(const struct mmr_tc_record*, void*), void* data,
                int* cpus) {
  struct walk w;
  struct tracecmd_input* handle;
  tracecmd_set_loglevel(TEP_LOG_NONE);
  handle = tracecmd_open(path, 0);
  if (handle == NULL) return -1;
  w.callback = callback;
  w.data = data;
  w.tep = tracecmd_get_tep(handle);
  *cpus = tep_get_cpus(w.tep);
  tracecmd_iterate_events(handle, NULL, 0, on_record, &w);
  tracecmd_close(handle);
  return 0;
}

int mmr_tc_field_values(const struct mmr_tc_record* r, size_t skip, unsigned long long* values,
                        size_t max, size_t* count) {
  struct tep_event* event = r->impl_event;
  struct tep_record* record = r->impl_record;
  struct tep_format_field* f;
  size_t index = 0;
  *count = 0;
  if (event == NULL) return -1;
  for (f = event->format.fields; f != NULL; f = f->next, ++index) {
    if (index < skip) continue;
    if (*count >= max) break;
    if (tep_read_number_field(f, record->data, &values[*count]) != 0) return -1;
    ++*count;
  }
  return 0;
}

int mmr_tc_field_value(const struct mmr_tc_record* r, const char* name, unsigned long long* value) {
  struct tep_event* event = r->impl_event;
  struct tep_record* record = r->impl_record;
  struct tep_format_field* f;
  if (event == NULL) return -1;
  f = tep_find_field(event, name);
  if (f == NULL) return -1;
  return tep_read_number_field(f, record->data, value);
}

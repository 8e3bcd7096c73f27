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

int mmr_tc_field_at(const struct mmr_tc_record* r, size_t index, const char** name,
                    unsigned long long* value, int* ok) {
  struct tep_event* event = r->impl_event;
  struct tep_record* record = r->impl_record;
  struct tep_format_field* f;
  if (event == NULL) return -1;
  for (f = event->format.fields; f != NULL && index > 0; f = f->next) --index;
  if (f == NULL) return -1;
  *name = f->name;
  *ok = tep_read_number_field(f, record->data, value) == 0;
  return 0;
}

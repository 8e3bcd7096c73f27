#include "kernelsim/mm/oom_kill.h"

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models mm/oom_kill.c: out_of_memory() -> oom_kill_process() (mark_oom_victim()).
void out_of_memory(Task& t) {
  if (t.oom_killed) return;  // tsk_is_oom_victim(): already dying
  t.oom_killed = true;
  ++t.sim().vm().oom;
}

}  // namespace mmreplay::kernelsim

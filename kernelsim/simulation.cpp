#include "kernelsim/simulation.h"

#include <cassert>

#include "kernelsim/kernel/thread.h"
#include "kernelsim/policy/presets.h"
#include "kernelsim/trace_counters.h"

namespace mmreplay::kernelsim {
namespace {

std::vector<Cpu> make_cpus(const MachineConfig& machine) {
  std::vector<Cpu> cpus;
  cpus.reserve(machine.nr_cpus);
  for (uint32_t i = 0; i < machine.nr_cpus; ++i) {
    cpus.emplace_back(i);
    cpus.back().stlb.configure(machine.stlb);
  }
  return cpus;
}

}  // namespace

Simulation::Simulation(const MachineConfig& machine, const CostProfile& costs,
                       const KernelConfig& config)
    : SimFloor(TimeSlice(config.sched, machine.nr_cpus)),
      machine_(machine),
      costs_(costs),
      topology_(machine.topology, machine.nr_cpus, costs),
      config_(config),
      policies_(PolicySet::build(config)),
      cpus_(make_cpus(machine)),
      sched_(*this),
      swap_(machine.swap_bytes >> PAGE_SHIFT, machine.swap_device) {
  assert(machine.nr_cpus >= 1 && machine.nr_cpus <= NR_CPUS);
  scheduler_ = &sched_;
  page_alloc_ = std::make_unique<PageAllocator>(*this, machine.memory_bytes >> PAGE_SHIFT,
                                                machine.nr_cpus, topology_.nr_nodes());
  lruvec_ = std::make_unique<Lruvec>(*this, machine.nr_cpus, topology_.nr_nodes());
  buffers_ =
      std::make_unique<BufferCache>(machine.nr_cpus, config.bh_lru_size, machine.fs_block_size);
  memcg_ = std::make_unique<MemcgSet>(*this, machine.nr_cpus);
  assert(machine.cma_bytes <= machine.memory_bytes);
  cma_ = std::make_unique<CmaArea>(machine.memory_bytes >> PAGE_SHIFT,
                                   machine.cma_bytes >> PAGE_SHIFT);
  page_cache_ = std::make_unique<PageCache>(*this);
  kswapd_data_ = std::make_unique<KswapdData>(*this, config.predict_window);
}

std::unique_ptr<Simulation> Simulation::create(const MachineConfig& machine,
                                               const CostProfile& costs, const KernelConfig& config,
                                               std::string* error) {
  if (machine.nr_cpus < 1 || machine.nr_cpus > NR_CPUS) {
    if (error)
      *error =
          "nr_cpus " + std::to_string(machine.nr_cpus) + " outside 1.." + std::to_string(NR_CPUS);
    return nullptr;
  }
  const uint64_t bs = machine.fs_block_size;
  if (bs == 0 || (bs & (bs - 1)) != 0 || PAGE_SIZE % bs != 0) {
    if (error)
      *error =
          "fs_block_size " + std::to_string(bs) + " is not a power of two dividing the page size";
    return nullptr;
  }
  if (std::string e = check_topology(machine.topology); !e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  if (const char* e = check_stlb_geometry(machine.stlb); *e != '\0') {
    if (error) *error = e;
    return nullptr;
  }
  if (machine.cma_bytes > machine.memory_bytes) {
    if (error) *error = "cma_bytes " + std::to_string(machine.cma_bytes) + " exceeds memory_bytes";
    return nullptr;
  }
  return std::make_unique<Simulation>(machine, costs, config);
}

std::unique_ptr<Simulation> Simulation::create(const MachineConfig& machine,
                                               const CostProfile& costs, std::string_view policy,
                                               std::string* error) {
  KernelConfig config;
  if (!policy.empty()) {
    if (Status s = expand_policy(policy, &config); !s) {
      if (error) *error = s.message();
      return nullptr;
    }
  }
  return create(machine, costs, config, error);
}

void Simulation::trace_task_start(const Task& t) {
  trace_->name_task(t.id(), t.cpu().id, t.mm() != nullptr ? t.mm()->id : 0, t.kthread);
}

Simulation::~Simulation() {
  // Task frames reference mms and locks: destroy them first.
  tasks_.clear();
}

Mm& Simulation::mm(uint32_t mm_id) {
  if (Mm* m = find_mm(mm_id)) return *m;
  mms_.push_back(std::make_unique<Mm>(*this, mm_id));
  return *mms_.back();
}

Mm* Simulation::find_mm(uint32_t mm_id) const {
  for (const auto& m : mms_) {
    if (m->id == mm_id) return m.get();
  }
  return nullptr;
}

Task& Simulation::create_task(uint32_t cpu, Mm* mm) {
  assert(cpu < cpus_.size());
  tasks_.push_back(
      std::make_unique<Task>(*this, *this, static_cast<uint32_t>(tasks_.size()), cpus_[cpu]));
  Task& t = *tasks_.back();
  t.set_mm(mm);
  if (mm != nullptr) ++mm->users;
  return t;
}

Task& Simulation::spawn_thread(uint32_t mm_id, uint32_t cpu, std::unique_ptr<OpSource> source,
                               SimTime start) {
  Task& t = create_task(cpu, &mm(mm_id));
  t.start(run_thread(t, std::move(source)), start);
  return t;
}

Task& Simulation::spawn_thread_on_clone(uint64_t clone_key, uint32_t mm_id, uint32_t cpu,
                                        std::unique_ptr<OpSource> source) {
  Task& t = create_task(cpu, &mm(mm_id));
  clone_children_.emplace(clone_key, CloneChild{&t, std::move(source)});
  clone_tasks_[clone_key] = &t;
  return t;
}

Task* Simulation::clone_task(uint64_t clone_key) const {
  auto it = clone_tasks_.find(clone_key);
  return it == clone_tasks_.end() ? nullptr : it->second;
}

Task* Simulation::clone_child(uint64_t clone_key) const {
  auto it = clone_children_.find(clone_key);
  return it == clone_children_.end() ? nullptr : it->second.task;
}

void Simulation::start_clone_child(uint64_t clone_key, SimTime at) {
  auto it = clone_children_.find(clone_key);
  assert(it != clone_children_.end());
  Task& t = *it->second.task;
  std::unique_ptr<OpSource> source = std::move(it->second.source);
  clone_children_.erase(it);
  t.start(run_thread(t, std::move(source)), at);
}

void Simulation::start_task(Task& t, Co<void> body, SimTime start) {
  t.start(run_body(t, std::move(body)), start);
}

void Simulation::run() {
  FramePool::Use frames(frames_);  // this run's coroutine frames come from its pool
  for (;;) {
    while (events_.run_one()) {
      if (trace_ != nullptr) sample_trace_counters(false);
    }
    // Waits whose wake never replayed end now rather than hang the run.
    if (futex_wake_all(futex_wakes_, now()) != 0) continue;
    if (clone_children_.empty()) break;
    // Children no clone claimed: start them now rather than leave them out.
    while (!clone_children_.empty()) start_clone_child(clone_children_.begin()->first, now());
  }
  fire_pending_irqs();
  if (trace_ != nullptr) sample_trace_counters(true);
}

bool Simulation::run_until(SimTime t) {
  FramePool::Use frames(frames_);
  events_.set_horizon(t);
  while (!events_.empty() && events_.next_time() <= t) {
    events_.run_one();
    if (trace_ != nullptr) sample_trace_counters(false);
  }
  events_.set_horizon(SimTime::infinite());
  if (events_.empty()) fire_pending_irqs();  // the run is over, as at the end of run()
  return !events_.empty();
}

void Simulation::fire_pending_irqs() {
  // An interrupt still pending in IRR fires after the last event: its entry is the CPU's.
  for (Cpu& cpu : cpus_) {
    if (cpu.irr_pending_at != SimTime::infinite()) fire_needless_irq(*this, cpu);
  }
}

void Simulation::set_trace_sink(TraceSink* sink) {
  trace_ = sink;
  next_counter_sample_ = now();
}

void Simulation::sample_trace_counters(bool force) {
  if (!force && now() < next_counter_sample_) return;
  trace_vm_counters(*this, *trace_);
  next_counter_sample_ = now() + trace_->counter_interval();
}

size_t Simulation::nr_live_tasks() const {
  size_t n = 0;
  for (const auto& t : tasks_) n += t->state() != TaskState::kDead && !t->kthread ? 1 : 0;
  return n;
}

CpuCounters Simulation::cpu_totals() const {
  CpuCounters s;
  for (const Cpu& c : cpus_) s += c.counters;
  return s;
}

}  // namespace mmreplay::kernelsim

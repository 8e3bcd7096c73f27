// From measured figures to CostProfile fields. A figure that covers several modelled steps is
// split in the ratios of the default profile: the machine tells the total, not the parts.

#include <fmt/format.h>
#include <cmath>
#include <optional>

#include "kernelsim/constants.h"
#include "tools/calibrate/calibrate.h"
#include "tools/calibrate/model_fit.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::CostProfile;
using kernelsim::SimTime;

constexpr std::string_view kDefaultSource =
    "default profile (kernelsim/costs/cost_profile.cpp gives its source or \"(unverified)\")";

const Figure* measured(const std::vector<Figure>& figures, std::string_view key) {
  for (const Figure& f : figures) {
    if (f.key == key && f.measured) return &f;
  }
  return nullptr;
}

class Fitter {
 public:
  Fitter(replay::CostProfileFile* p, std::string stamp, std::vector<std::string>* notes)
      : p_(p), stamp_(std::move(stamp)), notes_(notes) {}

  SimTime& field(std::string_view name) {
    return p_->costs.*kernelsim::find_cost_field(name)->member;
  }
  double ns(std::string_view name) { return static_cast<double>(field(name).count_ns()); }

  // Sets `name` to `value` ns from figure `f`; keeps the default (with a note) when the value
  // is not positive, which noise can make of a difference of two figures.
  void set(std::string_view name, double value, const Figure& f, const std::string& how) {
    const int64_t v = std::llround(value);
    if (v <= 0) {
      notes_->push_back(fmt::format("{}: kept the default {} ns ({} gave {:.0f} ns)", name,
                                    field(name).count_ns(), f.key, value));
      return;
    }
    field(name) = SimTime::ns(v);
    p_->sources[std::string(name)] =
        fmt::format("{} median of {}, spread p10..p90 {:.0f}..{:.0f} ns per {}: {} {}{}", stamp_,
                    f.ns.samples, f.ns.p10, f.ns.p90, f.unit, f.key,
                    fmt::format("{:.0f} ns", f.ns.median), how.empty() ? "" : "; " + how);
  }

  // Sets `name` to 0 for a reason figure `f` gives (set() keeps the default for 0).
  void set_zero(std::string_view name, const Figure& f, const std::string& how) {
    field(name) = SimTime::zero();
    p_->sources[std::string(name)] = fmt::format("{} {}: {}", stamp_, f.key, how);
  }

  // Splits `total` over `names` in the default profile's ratios.
  // `of`: what `total` is, when not the figure itself.
  void split(const std::vector<std::string_view>& names, double total, const Figure& f,
             const std::string& of = "") {
    double sum = 0;
    for (std::string_view n : names) sum += ns(n);
    std::string parts;
    for (std::string_view n : names) parts += (parts.empty() ? "" : " + ") + std::string(n);
    const std::string how =
        (of.empty() ? "" : of + ", ") + "split " + parts + " in the default profile's ratios";
    std::vector<double> shares;
    for (std::string_view n : names) shares.push_back(total * ns(n) / sum);
    for (size_t i = 0; i < names.size(); ++i) set(names[i], shares[i], f, how);
  }

 private:
  replay::CostProfileFile* p_;
  std::string stamp_;
  std::vector<std::string>* notes_;
};

// zram's swap costs (probes_zram.cpp), when zram is this machine's swap: its reads and writes are
// the CPU's, so the device's fields are set together, as the zram profile has them. The model's
// swap-in on zram charges swap_read_submit and swap_in_page where a zero-filled fault charges
// clear_page; a page pushed out charges shrink_page and swap_out_page.
void fit_zram(Fitter& fit, const std::vector<Figure>& figures) {
  if (const Figure* read = measured(figures, "zram_read")) {
    fit.set("swap_read_submit",
            static_cast<double>(kernelsim::cost_profile_zram().swap_read_submit.count_ns()), *read,
            "zram's own (unverified): not told apart from the decompression here");
    fit.set("swap_in_page", read->ns.median + fit.ns("clear_page") - fit.ns("swap_read_submit"),
            *read, "plus the clear_page of a zero-filled fault, less swap_read_submit");
    fit.set("swap_in_readahead_page", fit.ns("swap_in_page"), *read,
            "each page is decompressed alike");
    fit.set_zero("swap_io_page", *read, "no device queue: the CPU's compression is the I/O");
  }
  if (const Figure* write = measured(figures, "zram_write")) {
    fit.set("swap_out_page", write->ns.median - fit.ns("shrink_page"), *write,
            "less shrink_page, reclaim's own work on the page");
  }
}

// pcp_hot_window from the reuse figures (probe_anon_fault_reuse()): the largest region whose
// pages, and every smaller one's, cost nearer the hot fault (anon_fault's few pages) than the
// largest region's. Kept at 0 (no bound) where the two do not differ by a fifth: then hot and
// cold are one price here and the window changes nothing.
void fit_hot_window(const std::vector<Figure>& figures, const std::string& stamp,
                    replay::CostProfileFile* p, std::vector<std::string>* notes) {
  const Figure* hot = measured(figures, "anon_fault");
  const Figure* cold = measured(figures, reuse_figure_key(std::end(kReuseRegionPages)[-1]));
  if (hot == nullptr || cold == nullptr) return;
  constexpr double kMinContrast = 1.2;
  if (cold->ns.median < hot->ns.median * kMinContrast) {
    notes->push_back(fmt::format(
        "pcp_hot_window: not fitted (a page of the largest region, {:.0f} ns, costs less than "
        "{:.1f}x the hot fault's {:.0f} ns)",
        cold->ns.median, kMinContrast, hot->ns.median));
    return;
  }
  const double midpoint = (hot->ns.median + cold->ns.median) / 2;
  uint64_t window = 0;
  std::string first_cold = "none";
  for (const size_t pages : kReuseRegionPages) {
    const Figure* f = measured(figures, reuse_figure_key(pages));
    if (f == nullptr) break;
    if (f->ns.median > midpoint) {
      first_cold = fmt::format("{} pages at {:.0f} ns", pages, f->ns.median);
      break;
    }
    window = pages;
  }
  // Even the smallest region came back cold: the caches keep fewer pages than it has, and at
  // least the hot probe's; half the smallest region is the estimate.
  if (window == 0) window = kReuseRegionPages[0] / 2;
  p->costs.pcp_hot_window = window;
  p->sources["pcp_hot_window"] = fmt::format(
      "{} anon_fault_reuse_*: the largest region nearer the hot fault ({:.0f} ns) than the "
      "largest region's {:.0f} ns (midpoint {:.0f}); the first beyond it: {}",
      stamp, hot->ns.median, cold->ns.median, midpoint, first_cold);
}

// The VMA syscalls and the cached read, solved through the model's own paths (model_fit.h): each
// field takes the value for which the model's operation lasts what the probe measured, given
// the fields fitted before it. Called after the syscall, fault and TLB fields are fitted.
void fit_through_model(Fitter& fit, CostProfile& costs, const std::vector<Figure>& figures,
                       std::vector<std::string>* notes) {
  auto solve_one = [&](std::string_view name, const std::vector<ModelTerm>& terms,
                       double measured_ns, const Figure& f, const std::string& how) {
    const std::optional<double> v =
        solve_field(costs, kernelsim::find_cost_field(name)->member, terms, measured_ns);
    if (!v) {
      notes->push_back(fmt::format("{}: the model's path does not charge it; not fitted", name));
      return;
    }
    fit.set(name, *v, f, how);
  };
  const std::string through = "solved through the model's path for the probe's call";
  if (const Figure* f = measured(figures, "mmap_anon")) {
    // get_unmapped_area + vma_alloc in the default profile's ratios, scaled together.
    const CostProfile def = kernelsim::cost_profile_default();
    auto scale = [&def](CostProfile& c, double x) {
      c.get_unmapped_area = SimTime::ns(std::llround(x * def.get_unmapped_area.count_ns()));
      c.vma_alloc = SimTime::ns(std::llround(x * def.vma_alloc.count_ns()));
    };
    if (const std::optional<double> x =
            solve_linear(costs, scale, {{mmap_anon_scenario(), 1}}, f->ns.median)) {
      const std::string how = "split get_unmapped_area + vma_alloc in the default profile's " +
                              std::string("ratios, ") + through;
      fit.set("get_unmapped_area", *x * def.get_unmapped_area.count_ns(), *f, how);
      fit.set("vma_alloc", *x * def.vma_alloc.count_ns(), *f, how);
    }
  }
  if (const Figure* f = measured(figures, "munmap_empty"))
    solve_one("vma_remove", {{munmap_empty_scenario(), 1}}, f->ns.median, *f, through);
  if (const Figure* f = measured(figures, "mremap_expand"))
    solve_one("vma_expand", {{mremap_expand_scenario(), 1}}, f->ns.median, *f, through);
  const Figure* few = measured(figures, "mremap_move_few");
  const Figure* many = measured(figures, "mremap_move_many");
  if (few != nullptr && many != nullptr) {
    // The slope per page moved first (move_ptes() + its INVLPG), then the fixed part.
    solve_one(
        "pte_move",
        {{mremap_move_scenario(kMremapMoveMany), 1}, {mremap_move_scenario(kMremapMoveFew), -1}},
        many->ns.median - few->ns.median, *many,
        fmt::format("slope between {} and {} pages, minus the model's per-page flush",
                    kMremapMoveFew, kMremapMoveMany));
    solve_one("move_vma", {{mremap_move_scenario(kMremapMoveFew), 1}}, few->ns.median, *few,
              through);
  }
  if (const Figure* f = measured(figures, "user_copy_page"))
    fit.set("file_copy_page", f->ns.median, *f, "");
  const Figure* rfew = measured(figures, "read_cached_few");
  const Figure* rmany = measured(figures, "read_cached_many");
  if (rfew != nullptr && rmany != nullptr) {
    const double per_page =
        (rmany->ns.median - rfew->ns.median) / static_cast<double>(kReadMany - kReadFew);
    if (per_page <= fit.ns("file_copy_page")) {
      // Each page of a read cost less than the probe's user-space memcpy of a page: the kernel's
      // copy (copy_folio_to_iter(), rep movsb) is the cheaper one. The read's slope is then the
      // better figure for file_copy_page, filemap_read_page keeping the default as the rest;
      // otherwise every read would cost the difference more per page than it measured.
      fit.set("file_copy_page", per_page - fit.ns("filemap_read_page"), *rmany,
              fmt::format("slope between {} and {} pages ({:.0f} ns a page), below the memcpy "
                          "figure, less filemap_read_page",
                          kReadFew, kReadMany, per_page));
    } else {
      solve_one(
          "filemap_read_page",
          {{cached_read_scenario(kReadMany), 1}, {cached_read_scenario(kReadFew), -1}},
          rmany->ns.median - rfew->ns.median, *rmany,
          fmt::format("slope between {} and {} pages, minus file_copy_page", kReadFew, kReadMany));
    }
    solve_one("find_get_page", {{cached_read_scenario(kReadFew), 1}}, rfew->ns.median, *rfew,
              "one batch lookup: " + through);
  }
  if (const Figure* f = measured(figures, "read_cold_page")) {
    // What a cold page costs beyond a cached one (its batch lookup, folio and copy): the device's
    // time through readahead, waited for off CPU in the model (mm/readahead.h).
    const double cached = fit.ns("filemap_read_page") + fit.ns("file_copy_page");
    if (f->ns.median > cached) {
      fit.set("page_cache_miss_read", f->ns.median - cached, *f,
              fmt::format("less a cached page's read ({:.0f} ns: filemap_read_page + "
                          "file_copy_page)",
                          cached));
    }
  }
  if (const Figure* f = measured(figures, "read_cold_random")) {
    // One request a call: beyond a cached one-page read (the model's path for it, solved above)
    // and one page's device time, the request (mm/filemap.h queue_device_read()). The
    // sequential probe's per-page time holds its 1 MiB batches' requests too, under 1/256 each.
    const double cached_call = model_op_ns(costs, cached_read_scenario(kReadFew));
    const double rest = f->ns.median - cached_call - fit.ns("page_cache_miss_read");
    if (rest > 0) {
      fit.set("page_cache_read_request", rest, *f,
              fmt::format("less a cached one-page read ({:.0f} ns, the model's) and "
                          "page_cache_miss_read",
                          cached_call));
    }
  }
}

// Faults taken in the kernel (probes_kernel_fault.cpp), per page of a 16-page read: into memory
// not in the caches less into a hot buffer is copy_page_cold's extra over file_copy_page; into
// never-touched memory less into cold memory, less the model's user-mode anon fault, is
// fault_from_kernel. The model charges the two only together, on a fault taken in the kernel,
// so their sum keeps what read_into_fresh measured: where read_into_cold leaves nothing (or less
// than nothing) for fault_from_kernel, that field keeps its default and the cold copy takes the
// rest. On a shadow-paging guest read_into_cold is bimodal (p10..p90 0.5..6.3 us a page between
// two quick runs), and taken alone it moved every kernel-mode fault by 2.4 us.
// Called after file_copy_page and the fault fields are fitted.
void fit_kernel_faults(Fitter& fit, const std::vector<Figure>& figures) {
  const Figure* fresh = measured(figures, "read_into_fresh");
  const Figure* cold = measured(figures, "read_into_cold");
  const Figure* hot = measured(figures, "read_into_hot");
  if (cold == nullptr || hot == nullptr) return;
  const double copy = fit.ns("file_copy_page");
  const double cold_copy = cold->ns.median - hot->ns.median;
  const std::string cold_how = fmt::format(
      "file_copy_page {:.0f} ns + this minus read_into_hot {:.0f} ns", copy, hot->ns.median);
  if (fresh == nullptr) {
    fit.set("copy_page_cold", copy + cold_copy, *cold, cold_how);
    return;
  }
  double user_fault = 0;
  for (std::string_view n :
       {"fault_entry", "find_vma", "fault_bookkeeping", "clear_page", "pcp_alloc"}) {
    user_fault += fit.ns(n);
  }
  // What a fault taken in the kernel adds to a user-mode fault, its cold copy included.
  const double extra = fresh->ns.median - hot->ns.median - user_fault;
  if (extra > cold_copy) {
    fit.set("copy_page_cold", copy + cold_copy, *cold, cold_how);
    fit.set("fault_from_kernel", extra - cold_copy, *fresh,
            fmt::format("minus read_into_cold {:.0f} ns and a user-mode anon fault {:.0f} ns",
                        cold->ns.median, user_fault));
    return;
  }
  fit.set(
      "copy_page_cold", copy + extra - fit.ns("fault_from_kernel"), *fresh,
      fmt::format("file_copy_page {:.0f} ns + this minus read_into_hot {:.0f} ns, a user-mode "
                  "anon fault {:.0f} ns and fault_from_kernel {:.0f} ns (read_into_cold "
                  "{:.0f} ns left it nothing)",
                  copy, hot->ns.median, user_fault, fit.ns("fault_from_kernel"), cold->ns.median));
}

// The fork probe's three figures (probes_fork.cpp). A write-protect fault that reuses its page
// charges fault_entry, find_vma, fault_bookkeeping and wp_pte_update in the model; a COW copy
// also takes a page from the pcp list, copies it and flushes the old pte on this CPU (one
// tlb_flush_single within tlb_flush_overhead; the child's mm runs on no other CPU). Called after
// the fault and TLB fields are fitted.
void fit_fork(Fitter& fit, const std::vector<Figure>& figures) {
  const double entry = fit.ns("fault_entry") + fit.ns("find_vma") + fit.ns("fault_bookkeeping");
  if (const Figure* f = measured(figures, "wp_reuse_fault")) {
    fit.set("wp_pte_update", f->ns.median - entry, *f,
            fmt::format("minus fault_entry + find_vma + fault_bookkeeping {:.0f} ns", entry));
  }
  if (const Figure* f = measured(figures, "cow_fault")) {
    const double rest = entry + fit.ns("wp_pte_update") + fit.ns("pcp_alloc") +
                        fit.ns("tlb_flush_overhead") + fit.ns("tlb_flush_single");
    fit.set("copy_page", f->ns.median - rest, *f,
            fmt::format("minus the reuse fault's path, pcp_alloc and a one-page local flush "
                        "{:.0f} ns",
                        rest));
  }
  if (const Figure* f = measured(figures, "fork_pte")) {
    fit.set("fork_pte_copy", f->ns.median, *f, "includes the child's pte pages, one per 512 ptes");
  }
}

// fsync_block from a one-page pwrite() and fdatasync() per call: less the two calls' entries and
// the page's copy into the page cache, the page's write, the journal commit and the device's
// flush, which the model waits for once a call (fs/read_write.h do_fsync()). The buffer-head
// lookups left in it are tens of ns beside a device's hundreds of us. writeback_page from the
// fdatasync() of kSyncManyPages pages: less its entry and fsync_block, the other pages' writes,
// which queue one behind the other on the file's device (the flusher's and reclaim's writes
// too, mm/filemap.h); their submission's CPU time runs while the device writes. fsync_commit from
// a one-page append's pwrite() and fdatasync(): less the in-place call, the journal's commit of
// the new size. Called after syscall_entry and file_copy_page are fitted.
void fit_fsync(Fitter& fit, const std::vector<Figure>& figures) {
  const Figure* f = measured(figures, "fdatasync_block");
  if (f == nullptr) return;
  const double calls = 2 * fit.ns("syscall_entry") + fit.ns("file_copy_page");
  if (f->ns.median <= calls) return;
  fit.set("fsync_block", f->ns.median - calls, *f,
          fmt::format("less two syscall entries and a page's copy ({:.0f} ns)", calls));
  const Figure* a = measured(figures, "fdatasync_append");
  if (a != nullptr && a->ns.median > f->ns.median) {
    fit.set("fsync_commit", a->ns.median - f->ns.median, *a,
            fmt::format("less fdatasync_block {:.0f} ns (a page written in place)", f->ns.median));
  }
  const Figure* m = measured(figures, "fdatasync_many");
  if (m == nullptr) return;
  const double rest = m->ns.median - fit.ns("syscall_entry") - fit.ns("fsync_block");
  if (rest > 0) {
    fit.set("writeback_page", rest / static_cast<double>(kSyncManyPages - 1), *m,
            fmt::format("less a syscall entry and fsync_block, over the other {} pages",
                        kSyncManyPages - 1));
  }
}

// The truncation costs (mm/truncate.h do_truncate()) from ftruncate() of cached files. A dirty
// file's pages have no blocks yet: per page, less what the model charges a page besides (its LRU
// removal, its free, a 31st of the batch lookup), is truncate_page (the default kept when those
// already cost more). Clean pages' blocks are freed too: the slope between 16 and 2048 clean pages,
// less the dirty page's time, is truncate_block; the 16-page call less its pages and the entry is
// truncate_blocks_call. Called after syscall_entry, pcp_free and find_get_page are fitted.
void fit_truncate(Fitter& fit, const std::vector<Figure>& figures) {
  const Figure* dirty = measured(figures, "truncate_dirty");
  if (dirty == nullptr) return;
  const double others = fit.ns("lru_move_page") + fit.ns("pcp_free") +
                        fit.ns("find_get_page") / kernelsim::PAGEVEC_SIZE_FOLIO_BATCH;
  fit.set("truncate_page", dirty->ns.median - others, *dirty,
          fmt::format("less the page's LRU removal, free and share of a batch lookup ({:.0f} ns)",
                      others));
  const Figure* few = measured(figures, "truncate_clean_few");
  const Figure* many = measured(figures, "truncate_clean_many");
  if (few == nullptr || many == nullptr) return;
  const double slope = (many->ns.median - few->ns.median) /
                       static_cast<double>(kTruncateManyPages - kTruncateFewPages);
  fit.set("truncate_block", slope - dirty->ns.median, *many,
          fmt::format("slope from {} to {} clean pages ({:.0f} ns) less a dirty page's",
                      kTruncateFewPages, kTruncateManyPages, slope));
  const double call =
      few->ns.median - static_cast<double>(kTruncateFewPages) * slope - fit.ns("syscall_entry");
  fit.set("truncate_blocks_call", call, *few,
          fmt::format("less its {} pages at the slope and the entry", kTruncateFewPages));
}

// pipe_rw from a 1-byte write and read that do not wait, pipe_buf_page from the 64 KiB pair (16
// buffer pages, beyond the copies at file_copy_page), then wakeup_latency from the ping-pong of
// two threads on two CPUs, each solved through the model's path (model_fit.h) given the fields
// fitted before: a round trip is two wake-ups plus the reads and writes the model already
// charges; stream_page_remote from 64 KiB writes read on another CPU, beyond the model's write on
// one. Called after syscall_entry and file_copy_page are fitted.
void fit_pipes(Fitter& fit, CostProfile& costs, const std::vector<Figure>& figures,
               std::vector<std::string>* notes) {
  const std::string through = "solved through the model's path for the probe's calls";
  auto pair_of = [](uint64_t bytes) {
    return measure_of({{pipe_write_scenario(bytes), 1}, {pipe_read_scenario(bytes), 1}});
  };
  auto solve = [&](std::string_view name, const ModelMeasure& m, const Figure& f) {
    const std::optional<double> v =
        solve_field(costs, kernelsim::find_cost_field(name)->member, m, f.ns.median);
    if (!v) {
      notes->push_back(fmt::format("{}: the model's path does not charge it; not fitted", name));
      return;
    }
    fit.set(name, *v, f, through);
  };
  if (const Figure* f = measured(figures, "pipe_rw_small"))
    solve("pipe_rw", pair_of(kPipeSmallBytes), *f);
  if (const Figure* f = measured(figures, "wakeup_round_trip")) {
    solve("wakeup_latency", model_wakeup_round_trip_ns, *f);
  }
  if (const Figure* f = measured(figures, "pipe_rw_block")) {
    solve("pipe_buf_page", pair_of(kPipeBlockBytes), *f);
  }
  if (const Figure* f = measured(figures, "socket_rw_small")) {
    solve("socket_rw",
          measure_of({{socket_write_scenario(kPipeSmallBytes), 1},
                      {socket_read_scenario(kPipeSmallBytes), 1}}),
          *f);
  }
  if (const Figure* f = measured(figures, "socket_stream_remote")) {
    // Beyond the model's write of the block with both sides on one CPU, per page: what the
    // copies' lines crossing CPUs add (fs/stream_sides.h). The writer's side is measured and the
    // reader is charged the same; the reader's own time, with a writer spinning instead, came
    // 280 against the writer's 380 ns a page on the guest of December 2026, with sleeps in it.
    const double one_cpu = model_op_ns(costs, socket_write_scenario(kPipeBlockBytes));
    const double pages = static_cast<double>(kPipeBlockBytes / kernelsim::PAGE_SIZE);
    if (f->ns.median > one_cpu) {
      fit.set("stream_page_remote", (f->ns.median - one_cpu) / pages, *f,
              fmt::format("less the model's write of the block on one CPU ({:.0f} ns), a page",
                          one_cpu));
    }
  }
}

// deep_idle_exit from the ping-pong's round trip after a long idle of the woken thread's CPU
// against a short one (only one of its two wake-ups finds the CPU long idle), less what that
// wake-up's IPI cost its waker more (deep_idle_ipi_send: wake_ipi against wake_ipi_short_idle),
// and deep_idle_after from the idle where the step is. Without a step (probe_deep_idle() skips the
// bisection when the two are not told apart) both keep the default: one idle state.
void fit_deep_idle(Fitter& fit, const std::vector<Figure>& figures,
                   std::vector<std::string>* notes) {
  const Figure* shallow = measured(figures, "wakeup_short_idle");
  const Figure* deep = measured(figures, "wakeup_long_idle");
  const Figure* step = measured(figures, "deep_idle_step");
  if (shallow == nullptr || deep == nullptr) return;
  if (step == nullptr) {
    notes->push_back(fmt::format(
        "deep_idle_exit: kept the default (one idle state): a wake-up after a long idle took "
        "{:.0f} ns a round trip, after a short one {:.0f}, not told apart",
        deep->ns.median, shallow->ns.median));
    return;
  }
  // One of the long idle's wake-ups is sent to the CPU in its deep state: what that send costs
  // its waker beyond the shallow one's (a guest's host waking the vCPU's thread) is on the round
  // trip too, and not the wakee's exit.
  double deep_send = 0;
  const Figure* far = measured(figures, "wake_ipi");
  const Figure* near = measured(figures, "wake_ipi_short_idle");
  if (far != nullptr && near != nullptr && far->ns.median > near->ns.median) {
    deep_send = far->ns.median - near->ns.median;
    fit.set("deep_idle_ipi_send", deep_send, *far,
            fmt::format("less wake_ipi_short_idle {:.0f} ns", near->ns.median));
  }
  fit.set("deep_idle_exit", deep->ns.median - shallow->ns.median - deep_send, *deep,
          fmt::format("less wakeup_short_idle {:.0f} ns{}", shallow->ns.median,
                      deep_send > 0 ? fmt::format(" and deep_idle_ipi_send {:.0f} ns", deep_send)
                                    : std::string()));
  fit.set("deep_idle_after", step->ns.median, *step, step->note);
}

}  // namespace

replay::CostProfileFile fit_profile(const std::vector<Figure>& figures, const std::string& stamp,
                                    std::vector<std::string>* notes) {
  replay::CostProfileFile p;
  p.name = "calibrated";
  p.description = stamp + ": the default profile with the fields calibrate measured replaced";
  p.costs = kernelsim::cost_profile_default();
  // Every value carries a source (issue 9): the fields not measured keep the default's.
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    p.sources[std::string(f.name)] = std::string(kDefaultSource);
  }
  for (const kernelsim::CostSizeField& f : kernelsim::cost_size_fields()) {
    p.sources[std::string(f.name)] = std::string(kDefaultSource);
  }
  Fitter fit(&p, stamp, notes);
  if (const Figure* f = measured(figures, "syscall"))
    fit.set("syscall_entry", f->ns.median, *f, "");
  if (const Figure* f = measured(figures, "anon_fault")) {
    // do_anonymous_page(): entry, find_vma, pte + rmap + lru, clear_page, one pcp page. Where
    // populate_page measured the in-kernel part (no exception), it sets that part and the rest
    // is the exception's entry and exit: on a shadow-paging guest that rest is most of a fault,
    // and a zeroed page table (pcp_alloc + clear_page) no longer costs a quarter of one (2,680 of
    // 9,471 ns split in the default ratios on the PVM guest of 2026-12-01).
    const Figure* in_kernel = measured(figures, "populate_page");
    if (in_kernel != nullptr && in_kernel->ns.median > 0 && in_kernel->ns.median < f->ns.median) {
      fit.split({"fault_bookkeeping", "clear_page", "pcp_alloc"}, in_kernel->ns.median, *in_kernel);
      fit.split({"fault_entry", "find_vma"}, f->ns.median - in_kernel->ns.median, *f,
                fmt::format("minus populate_page {:.0f} ns", in_kernel->ns.median));
    } else {
      fit.split({"fault_entry", "find_vma", "fault_bookkeeping", "clear_page", "pcp_alloc"},
                f->ns.median, *f);
    }
  }
  if (const Figure* f = measured(figures, "anon_fault_fresh")) {
    // What a cold page costs beyond a hot one is its zeroing: clear_page_cold, solved through the
    // model's path for the fresh region (its refills under zone->lock and page tables included),
    // given the fault's other fields just fitted to the hot probe.
    // The unknown is the extra over clear_page (a clear_page_cold of 0 means clear_page).
    const double pages = static_cast<double>(kFreshRegionPages);
    const SimTime hot = p.costs.clear_page;
    const std::optional<double> extra = solve_linear(
        p.costs,
        [hot](CostProfile& c, double x) { c.clear_page_cold = hot + SimTime::ns(std::llround(x)); },
        {{anon_fresh_scenario(kFreshRegionPages), 1}}, f->ns.median * pages);
    if (extra && *extra > 0) {
      fit.set("clear_page_cold", fit.ns("clear_page") + *extra, *f,
              "solved through the model's path for the probe's region");
    } else {
      notes->push_back(fmt::format(
          "clear_page_cold: not fitted (the fresh region's {:.0f} ns a page needs no more than "
          "clear_page)",
          f->ns.median));
    }
  }
  fit_hot_window(figures, stamp, &p, notes);
  if (const Figure* f = measured(figures, "file_fault")) {
    const double rest = fit.ns("fault_entry") + fit.ns("find_vma") + fit.ns("fault_bookkeeping");
    fit.set("page_cache_lookup", f->ns.median - rest, *f,
            "minus fault_entry + find_vma + fault_bookkeeping; includes fault-around");
  }
  if (const Figure* f = measured(figures, "dontneed_page")) {
    // zap_pte_range() per present pte, then the page freed from the mmu_gather batch.
    fit.split({"pte_zap", "pcp_free"}, f->ns.median, *f);
  }
  if (const Figure* f = measured(figures, "munmap_split"))
    fit.set("vma_split", f->ns.median, *f, "");
  const Figure* invlpg = measured(figures, "mprotect_page_invlpg");
  const Figure* prot = measured(figures, "mprotect_page");
  if (prot != nullptr) fit.set("pte_change_prot", prot->ns.median, *prot, "");
  if (invlpg != nullptr && prot != nullptr) {
    fit.set("tlb_flush_single", invlpg->ns.median - prot->ns.median, *invlpg,
            fmt::format("minus mprotect_page {:.0f} ns", prot->ns.median));
  }
  if (const Figure* f = measured(figures, "full_flush")) {
    fit.set("tlb_flush_full", f->ns.median, *f, "");
    if (fit.field("tlb_flush_full") < fit.field("tlb_flush_single")) {
      // The model flushes everything above tlb_single_page_flush_ceiling on the premise that
      // one full flush is not cheaper than one page; keep that premise true.
      notes->push_back(
          fmt::format("tlb_flush_full: measured {} ns, below tlb_flush_single; "
                      "raised to it",
                      fit.field("tlb_flush_full").count_ns()));
      fit.set("tlb_flush_full", fit.ns("tlb_flush_single"), *f, "raised to tlb_flush_single");
    }
  }
  // The waker's side of a cross-CPU wake-up is one IPI's send (an APIC write; on a guest an exit
  // that can cost more than the rest of a shootdown); the shootdown's remainder is delivery and
  // the handler. Without it, the shootdown splits in the default profile's ratios. The send is
  // the wake-up of a CPU idle a moment: one idle past a guest's halt polling costs its waker
  // more (deep_idle_ipi_send, fit_deep_idle()), and a shootdown's target is running.
  const Figure* wake_ipi = measured(figures, "wake_ipi_short_idle");
  if (wake_ipi == nullptr) wake_ipi = measured(figures, "wake_ipi");
  if (wake_ipi != nullptr) {
    fit.set("ipi_send", wake_ipi->ns.median, *wake_ipi,
            "what waking a sleeper on an idle CPU adds to FUTEX_WAKE: try_to_wake_up()'s IPI");
  }
  if (const Figure* f = measured(figures, "shootdown")) {
    const double rest = f->ns.median - fit.ns("ipi_send");
    if (wake_ipi != nullptr && rest > 0) {
      fit.split({"ipi_delivery", "ipi_handler_entry"}, rest, *f,
                fmt::format("shootdown {:.0f} ns minus ipi_send {:.0f} ns (wake_ipi)", f->ns.median,
                            fit.ns("ipi_send")));
    } else {
      fit.split({"ipi_send", "ipi_delivery", "ipi_handler_entry"}, f->ns.median, *f);
    }
    // On a guest whose remote flushes are a hypercall (tlb=pv) the same extra time is that call.
    fit.set("pv_flush_tlb_multi", f->ns.median, *f, "the remote flush under tlb=pv");
  }
  if (const Figure* f = measured(figures, "context_switch")) {
    fit.set("context_switch", f->ns.median - 2 * fit.ns("syscall_entry"), *f,
            "minus two syscall entries (the pipe write and read)");
  }
  if (const Figure* f = measured(figures, "pte_ad_update")) {
    fit.set("pte_ad_update", f->ns.median, *f, "the write to a dirty page taken out");
  }
  if (const Figure* f = measured(figures, "switch_mm")) {
    fit.set("switch_mm", f->ns.median, *f,
            "a process switch less a thread switch: the CR3 write and what it costs after");
  }
  if (const Figure* f = measured(figures, "swap_in")) fit.set("swap_in_page", f->ns.median, *f, "");
  fit_through_model(fit, p.costs, figures, notes);
  fit_pipes(fit, p.costs, figures, notes);
  // After fit_pipes(), which fits wakeup_latency: the major fault's own wake-up and page
  // allocation are the model's charges already (Scheduler::wake_up_process(), alloc_pages()).
  if (const Figure* f = measured(figures, "swap_read_cpu")) {
    fit.set("swap_read_submit", f->ns.median - fit.ns("wakeup_latency") - fit.ns("pcp_alloc"), *f,
            "a major fault's CPU less a swap-cache hit's, less the wake-up (wakeup_latency) and "
            "the page allocation (pcp_alloc) the model charges the major fault itself");
  }
  fit_zram(fit, figures);
  fit_deep_idle(fit, figures, notes);
  fit_kernel_faults(fit, figures);
  fit_fork(fit, figures);
  fit_fsync(fit, figures);
  fit_truncate(fit, figures);
  if (measured(figures, "munmap_page") != nullptr) {
    notes->push_back(
        "munmap_page: shown, not fitted (its parts are fitted from madvise, "
        "mprotect and the split figure)");
  }
  return p;
}

}  // namespace mmreplay::tools::calibrate

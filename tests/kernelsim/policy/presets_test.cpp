// Presets: every preset expands to a valid configuration, the kernel releases expand to the knobs
// each release had, seed presets override their era, and bad specs are rejected by name.

#include "kernelsim/policy/presets.h"

#include <gtest/gtest.h>

#include <utility>

#include "kernelsim/policy/knob_table.h"

namespace mmreplay::kernelsim {
namespace {

std::string expand(std::string_view spec) {
  KernelConfig c;
  const Status s = expand_policy(spec, &c);
  EXPECT_TRUE(s) << spec << ": " << s.message();
  return format_knobs(c);
}

std::string error_of(std::string_view spec) {
  KernelConfig c;
  c.tlb = TlbFlushMethod::kBroadcast;  // a rejected spec leaves *config as it was
  const Status s = expand_policy(spec, &c);
  EXPECT_FALSE(s) << spec;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << spec;
  EXPECT_EQ(c.tlb, TlbFlushMethod::kBroadcast) << spec;
  return s.message();
}

TEST(PresetsTest, EveryPresetIsAValidConfiguration) {
  // A preset naming a knob or value the model lacks must fail here, not in a user's study.
  for (const PolicyPreset& p : policy_presets()) {
    KernelConfig c;
    const Status s = expand_policy(p.name, &c);
    EXPECT_TRUE(s) << p.name << ": " << s.message();
    if (!p.base.empty()) {
      EXPECT_NE(find_policy_preset(p.base), nullptr) << p.name;
    }
    EXPECT_FALSE(p.source.empty()) << p.name;
  }
}

// The releases written as a chain of changes must give each release's full set of knobs (these
// strings are what every result of a kernel preset records in `policy_knobs`).
TEST(PresetsTest, KernelReleasesExpandToTheirKnobs) {
  // The knobs no release sets, and the scheduler's slice and idle balancing: CFS's slice until
  // 6.6, newly idle balancing gated by the CPU's average idle until 5.13.
  auto tail_with = [](std::string_view sched, std::string_view eevdf_wakeup = "eligible") {
    const std::string idle_balance = sched == "cfs" ? "newidle-avg-idle" : "newidle";
    return ",reclaim=reactive,predict_window=8,wake_affine=sync,idle_balance=" + idle_balance +
           ",sched=" + std::string(sched) + ",eevdf_wakeup=" + std::string(eevdf_wakeup) +
           ",spinlock=queued,read_ahead_kb=128,fault_around_bytes=65536";
  };
  const std::string tail = tail_with("cfs");
  const std::string v316 =
      "madv_free=as-dontneed,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb=ipi,"
      "fault_lock=mmap_sem,lazy_tlb=leave_mm,csd_ipi=always,pcid=off,"
      "rwsem_wake=contiguous,rwsem_writer_wake=steal,rwsem_reader_steal=off,rwsem_reader_spin=off,"
      "rwsem_spin=writer,"
      "watermarks=3.x,"
      "lazyfree_lru=inactive-anon,"
      "lazyfree_pgdirty=kept,"
      "swapin_pte=read-only,sync_swapin=swapcache,swap_readahead=cluster,anon_lru=active-first,"
      "written_back_retry=off,reclaim_tlb_flush=per-page,mm_cpumask=eager,pcp_high=batch,pagevec_"
      "size=14,"
      "bh_lru_size=8,memcg=res_counter,charge_batch=32,uncharge_batch=gather,lru_lock=node,"
      "release_pages=pagevec,zap_lru_drain=on,bh_invalidate=none";
  EXPECT_EQ(expand("linux-3.16"), v316 + tail);
  EXPECT_EQ(
      expand("linux-3.17-rc2"),
      "madv_free=as-dontneed,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb="
      "ipi,fault_lock=mmap_sem,lazy_tlb=leave_mm,csd_ipi=always,pcid=off,"
      "rwsem_wake=contiguous,rwsem_writer_wake=steal,rwsem_reader_steal=off,rwsem_reader_spin=off,"
      "rwsem_spin=writer,"
      "watermarks=3.x,"
      "lazyfree_lru=inactive-anon,"
      "lazyfree_pgdirty=kept,"
      "swapin_pte=read-only,sync_swapin=swapcache,swap_readahead=cluster,anon_lru=active-first,"
      "written_back_retry=off,reclaim_tlb_flush=per-page,mm_cpumask=eager,pcp_high=batch,pagevec_"
      "size=14,"
      "bh_lru_size=8,memcg=res_counter,charge_batch=32,uncharge_batch=pagevec,lru_lock=node,"
      "release_pages=pagevec,zap_lru_drain=on,bh_invalidate=none" +
          tail);
  EXPECT_EQ(expand("linux-4.5"),
            "madv_free=free-swapped,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb="
            "ipi,fault_"
            "lock=mmap_sem,lazy_tlb=leave_mm,csd_ipi=always,pcid=off,"
            "rwsem_wake=contiguous,rwsem_writer_wake=steal,rwsem_reader_steal=off,rwsem_reader_"
            "spin=off,rwsem_spin="
            "writer,watermarks=3.x,"
            "lazyfree_lru=inactive-"
            "anon,lazyfree_pgdirty="
            "cleared,swapin_pte=read-only,sync_swapin=swapcache,swap_readahead=cluster,anon_lru="
            "active-first,"
            "written_back_retry=off,reclaim_tlb_flush=batched,mm_cpumask=eager,pcp_high=batch,"
            "pagevec_size=14,"
            "bh_lru_size=16,memcg=page_counter,charge_batch=32,uncharge_batch=gather,lru_lock=node,"
            "release_pages=cluster,zap_lru_drain=on,bh_invalidate=none" +
                tail);
  EXPECT_EQ(
      expand("linux-5.3"),
      "madv_free=free-swapped,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb="
      "ipi,fault_"
      "lock=mmap_sem,lazy_tlb=skip,csd_ipi=if-empty,pcid=on,"
      "rwsem_wake=phase-fair,rwsem_writer_wake=handoff,rwsem_reader_steal=off,rwsem_reader_spin=on,"
      "rwsem_spin=readers,"
      "watermarks=scale-"
      "factor,lazyfree_lru="
      "inactive-file,"
      "lazyfree_pgdirty=cleared,swapin_pte=read-only,sync_swapin=skip-swapcache,swap_readahead=vma,"
      "anon_lru=active-first,written_back_retry=off,reclaim_tlb_flush=batched,mm_cpumask=eager,pcp_"
      "high=batch,"
      "pagevec_size=15,bh_lru_size=16,memcg=page_counter,charge_batch=32,"
      "uncharge_batch=gather,lru_lock=node,release_pages=cluster,zap_lru_drain=on,bh_"
      "invalidate=none" +
          tail);
  EXPECT_EQ(
      expand("linux-6.6"),
      "madv_free=free-swapped,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb="
      "ipi,fault_"
      "lock=per-vma,lazy_tlb=skip,csd_ipi=if-empty,pcid=on,"
      "rwsem_wake=phase-fair,rwsem_writer_wake=handoff,rwsem_reader_steal=on,rwsem_reader_spin=off,"
      "rwsem_spin=handoff,"
      "watermarks=scale-"
      "factor,lazyfree_lru="
      "inactive-file,"
      "lazyfree_pgdirty=cleared,swapin_pte=read-only,sync_swapin=skip-swapcache,swap_readahead=vma,"
      "anon_lru=inactive-first,written_back_retry=off,reclaim_tlb_flush=batched,mm_cpumask=eager,"
      "pcp_high=wmark,"
      "pagevec_size=15,bh_lru_size=16,memcg=page_counter,charge_batch=64,"
      "uncharge_batch=gather,lru_lock=lruvec,release_pages=cluster,zap_lru_drain=on,bh_"
      "invalidate=drain" +
          tail_with("eevdf", "parity"));
  // 6.12: 6.6 with the file-backed per-VMA faults, pcp auto, folio batch 31, writable swap-ins,
  // munmap's downgrade (4.20's, which linux-6.6 leaves out) and the delayed dequeue.
  EXPECT_EQ(
      expand("linux-6.12"),
      "madv_free=free-swapped,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=downgrade,"
      "tlb=ipi,fault_lock=per-vma-all,lazy_tlb=skip,csd_ipi=if-empty,pcid=on,rwsem_wake=phase-fair,"
      "rwsem_writer_wake=handoff,rwsem_reader_steal=on,rwsem_reader_spin=off,rwsem_spin=handoff,"
      "watermarks=scale-factor,lazyfree_lru=inactive-file,lazyfree_pgdirty=cleared,"
      "swapin_pte=writable,sync_swapin=skip-swapcache,swap_readahead=vma,anon_lru=inactive-first,"
      "written_back_retry=off,reclaim_tlb_flush=batched,mm_cpumask=eager,pcp_high=auto,"
      "pagevec_size=31,bh_lru_size=16,memcg=page_counter,charge_batch=64,uncharge_batch=gather,"
      "lru_lock=lruvec,release_pages=cluster,zap_lru_drain=on,bh_invalidate=drain" +
          tail_with("eevdf"));
  EXPECT_EQ(
      expand("linux-6.18"),
      "madv_free=free-swapped,madvise=process-madvise,madvise_lock=per-vma,munmap_lock=downgrade,"
      "tlb=ipi,fault_lock=per-vma-all,lazy_tlb=skip,csd_ipi=if-empty,pcid=on,rwsem_wake=phase-fair,"
      "rwsem_writer_wake=handoff,rwsem_reader_steal=on,rwsem_reader_spin=off,rwsem_spin=handoff,"
      "watermarks=scale-factor,lazyfree_lru=inactive-file,lazyfree_pgdirty=cleared,"
      "swapin_pte=writable,sync_swapin=skip-swapcache,swap_readahead=vma,anon_lru=inactive-first,"
      "written_back_retry=on,reclaim_tlb_flush=batched,mm_cpumask=lazy,pcp_high=auto,pagevec_size="
      "31,"
      "bh_lru_size=16,"
      "memcg=page_counter,charge_batch=64,uncharge_batch=gather,lru_lock=lruvec,"
      "release_pages=cluster,zap_lru_drain=on,bh_invalidate=drain" +
          tail_with("eevdf"));
  EXPECT_EQ(expand("default"), format_knobs(KernelConfig{}));
}

TEST(PresetsTest, Linux618IsListedWithItsSourcesAndTakesInvlpgbAsAnOption) {
  const PolicyPreset* p = find_policy_preset("linux-6.18");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->base, "linux-6.12");
  const PolicyPreset* lts = find_policy_preset("linux-6.12");
  ASSERT_NE(lts, nullptr);
  EXPECT_EQ(lts->base, "linux-6.6");
  for (const char* cited : {"12214eba1992", "51a755c56dc0", "9cecde80aae0", "c18160dba5ff",
                            "dd2283f2605e", "152e11f6df29"}) {
    EXPECT_NE(lts->source.find(cited), std::string::npos) << cited;
  }
  for (const char* cited :
       {"4000e3d0a367", "4afeb0ed1753", "per_vma lock for MADV_DONTNEED", "batch tlb flushes"}) {
    EXPECT_NE(p->source.find(cited), std::string::npos) << cited;
  }
  bool in_order = false;
  const std::vector<PolicyPreset>& all = policy_presets();
  for (size_t i = 2; i < all.size(); ++i) {
    in_order |= all[i].name == "linux-6.18" && all[i - 1].name == "linux-6.12" &&
                all[i - 2].name == "linux-6.6";
  }
  EXPECT_TRUE(in_order);
  const std::string broadcast = expand("linux-6.18+tlb=broadcast");
  EXPECT_NE(broadcast.find("tlb=broadcast"), std::string::npos);
  EXPECT_NE(broadcast.find("madvise_lock=per-vma"), std::string::npos);
}

// uname -r of a machine to the release preset it behaves as: the newest one at or before its
// MAJOR.MINOR, whatever suffix a distribution adds.
TEST(PresetsTest, AKernelReleaseMapsToTheNewestPresetAtOrBeforeIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"6.18.44-fc-v1252", "linux-6.18"},  // the development guest
      {"6.18", "linux-6.18"},
      {"6.17.9", "linux-6.12"},
      {"6.12.0", "linux-6.12"},
      {"6.11.11", "linux-6.6"},
      {"6.8.0-45-generic", "linux-6.6"},
      {"6.10.3", "linux-6.6"},  // 6.10 is not 6.1: minors are numbers
      {"6.6.0", "linux-6.6"},
      {"5.15.0-91-generic", "linux-5.3"},
      {"4.12.14-lp151.28.91-default", "linux-4.12"},
      {"4.4.0-210-generic", "linux-3.18"},
      {"3.17.8", "linux-3.16"},  // not linux-3.17-rc2: a release candidate names no release
      {"7.2.1", "linux-6.18"},   // newer than every preset: the newest
      {"3.10.0-1160.el7.x86_64", "linux-3.16"},  // older than every one: the oldest
      {"2.6.32", "linux-3.16"},
      {"", ""},  // no MAJOR.MINOR: none
      {"6", ""},
      {"6.", ""},
      {".18", ""},
      {"v6.18", ""},
      {"six.eighteen", ""},
  };
  for (const auto& [release, preset] : cases)
    EXPECT_EQ(kernel_release_preset(release), preset) << "'" << release << "'";
}

TEST(PresetsTest, SeedPresetsOverrideTheirEra) {
  // Issue 9: a seed's policies are changes to the kernel the thread measured. `free` is 4.5 with
  // lazy free as the thread measured it: 4.5's knobs (3.x watermarks, contiguous rwsem wake-up)
  // are in, lazy free wins; 4.5 itself had seed 000's fix, as `free-swapped` does. The MADV_FREE
  // arms keep the February 2015 series' LRU placement and PG_dirty (4.5 moves and clears).
  // Its kernel (February 2015) flushed each page reclaim unmapped; batching is 4.3's.
  const std::string series =
      "+lazyfree_lru=in-place+lazyfree_pgdirty=kept+reclaim_tlb_flush=per-page";
  EXPECT_EQ(expand("free"), expand("linux-4.5+madv_free=lazy" + series));
  EXPECT_EQ(expand("free-swapped"), expand("linux-4.5" + series));
  EXPECT_NE(expand("linux-4.5").find("lazyfree_pgdirty=cleared"), std::string::npos);
  const std::string dontneed = expand("dontneed");
  EXPECT_NE(dontneed.find("madv_free=as-dontneed"), std::string::npos);
  EXPECT_NE(dontneed.find("watermarks=3.x"), std::string::npos);
  EXPECT_NE(dontneed.find("reclaim_tlb_flush=per-page"), std::string::npos);
  // A user override still wins over both layers.
  const std::string free = expand("free+watermarks=scale-factor");
  EXPECT_NE(free.find("watermarks=scale-factor"), std::string::npos);
  EXPECT_EQ(free.find("watermarks=3.x"), std::string::npos);
  EXPECT_NE(expand("linux-4.5+madvise=vector").find("madvise=vector"), std::string::npos);
  EXPECT_NE(expand("linux-3.18").find("bh_lru_size=16"), std::string::npos);
}

TEST(PresetsTest, BareKnobsOverrideTheDefaults) {
  KernelConfig want;
  want.tlb = TlbFlushMethod::kBroadcast;
  want.madvise = MadviseVectorMode::kVector;
  EXPECT_EQ(expand("tlb=broadcast+madvise=vector"), format_knobs(want));
}

TEST(PresetsTest, BadSpecsAreRejectedByName) {
  EXPECT_NE(error_of("linux-9.9").find("no preset 'linux-9.9'"), std::string::npos);
  EXPECT_NE(error_of("free+madvise").find("'madvise' is not knob=value"), std::string::npos);
  EXPECT_NE(error_of("free+madvise=vectr").find("'vectr'"), std::string::npos);
  EXPECT_NE(error_of("free+zap_lru=off").find("'zap_lru'"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  error_of("free+");
  error_of("+free");
  EXPECT_NE(error_of("free+tlb=ipi+tlb=broadcast").find("twice"), std::string::npos);
}

}  // namespace
}  // namespace mmreplay::kernelsim

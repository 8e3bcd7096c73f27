// Cost profiles as JSON: every field round-trips, and bad files give one-line errors that name
// the file and the field.

#include <gtest/gtest.h>

#include <string>

#include "replay/cost_profile_json.h"

namespace mmreplay::replay {
namespace {

using kernelsim::cost_fields;
using kernelsim::CostField;
using kernelsim::SimTime;

CostProfileFile distinct_profile() {
  // Every field a different value, so a field read into the wrong member shows.
  CostProfileFile p;
  p.name = "test";
  p.description = "round trip";
  int64_t v = 7;
  for (const CostField& f : cost_fields()) {
    p.costs.*f.member = SimTime::ns(v);
    v += 13;
    if (v % 2 == 0) p.sources[std::string(f.name)] = "source of " + std::string(f.name);
  }
  p.costs.pcp_hot_window = 2048;
  p.sources["pcp_hot_window"] = "source of pcp_hot_window";
  return p;
}

TEST(CostProfileJson, RoundTripsEveryFieldAndSource) {
  const CostProfileFile in = distinct_profile();
  CostProfileFile out;
  ASSERT_TRUE(parse_cost_profile_json(cost_profile_to_json(in), "p.json", &out));
  for (const CostField& f : cost_fields()) {
    EXPECT_EQ(out.costs.*f.member, in.costs.*f.member) << f.name;
  }
  for (const kernelsim::CostSizeField& f : kernelsim::cost_size_fields()) {
    EXPECT_EQ(out.costs.*f.member, in.costs.*f.member) << f.name;
  }
  EXPECT_EQ(out.sources, in.sources);
  EXPECT_EQ(out.name, "test");
  EXPECT_EQ(out.description, "round trip");
}

TEST(CostProfileJson, BareNumbersAreAccepted) {
  std::string text = R"({"format": "mmreplay-cost-profile-1", "costs": {)";
  for (const CostField& f : cost_fields()) text += "\"" + std::string(f.name) + "\": 5,";
  text.back() = '}';
  text += "}";
  CostProfileFile out;
  ASSERT_TRUE(parse_cost_profile_json(text, "bare.json", &out));
  EXPECT_EQ(out.costs.tlb_flush_full, SimTime::ns(5));
  EXPECT_TRUE(out.sources.empty());
  // A profile from before "sizes": no bound on the hot pages, as the built-in profiles.
  EXPECT_EQ(out.costs.pcp_hot_window, 0u);
}

TEST(CostProfileJson, AProfileFromBeforePipeAndSocketCostsTakesTheDefaultOnes) {
  // calibrate output of a build before issue 19's file kinds: no pipe_rw, no socket_rw.
  std::string text = R"({"format": "mmreplay-cost-profile-1", "costs": {)";
  for (const CostField& f : cost_fields()) {
    if (!f.added_later) text += "\"" + std::string(f.name) + "\": 5,";
  }
  text.back() = '}';
  text += "}";
  CostProfileFile out;
  ASSERT_TRUE(parse_cost_profile_json(text, "old.json", &out));
  EXPECT_EQ(out.costs.pipe_rw, kernelsim::cost_profile_default().pipe_rw);
  EXPECT_EQ(out.costs.socket_rw, kernelsim::cost_profile_default().socket_rw);
  EXPECT_EQ(out.costs.tlb_flush_full, SimTime::ns(5));
}

// The text of distinct_profile() with `from` replaced by `to` (first occurrence).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = cost_profile_to_json(distinct_profile());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  CostProfileFile out;
  const Status s = parse_cost_profile_json(text, "bad.json", &out);
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  return s.message();
}

TEST(CostProfileJson, UnknownFieldNamesFileAndField) {
  EXPECT_EQ(error_of(edited("\"syscall_entry\"", "\"syscall_entyr\"")),
            "bad.json: costs.syscall_entyr: unknown cost field");
}

TEST(CostProfileJson, MissingFieldNamesFileAndField) {
  std::string text = edited("\"tlb_flush_full\"", "\"x_tlb_flush_full\"");
  // Drop the renamed entry so that only the missing one is wrong.
  const size_t at = text.find("\"x_tlb_flush_full\"");
  const size_t end = text.find('}', at);
  text.erase(at, end + 2 - at);
  EXPECT_EQ(error_of(text), "bad.json: costs.tlb_flush_full: missing");
}

TEST(CostProfileJson, BadValuesNameTheField) {
  EXPECT_EQ(error_of(edited("\"ns\": 7", "\"ns\": -7")),
            "bad.json: costs.syscall_entry: negative value");
  EXPECT_EQ(error_of(edited("\"ns\": 7", "\"ns\": 7.5")),
            "bad.json: costs.syscall_entry: not a whole number of nanoseconds");
  EXPECT_EQ(error_of(edited("\"ns\": 7", "\"nanos\": 7")),
            "bad.json: costs.syscall_entry: unknown key 'nanos'");
  // Issue 15: 2^63-1 was accepted and latencies wrapped; every cost is bounded by 1 s.
  EXPECT_EQ(error_of(edited("\"ns\": 7", "\"ns\": 9223372036854775807")),
            "bad.json: costs.syscall_entry: 9223372036854775807 ns is outside 0..1000000000 (1 "
            "s): no modelled step costs more, and sums of such would wrap");
  CostProfileFile at_bound;
  EXPECT_TRUE(
      parse_cost_profile_json(edited("\"ns\": 7", "\"ns\": 1000000000"), "ok.json", &at_bound));
}

TEST(CostProfileJson, BadSizesNameTheField) {
  const std::string window = "\"pcp_hot_window\": {\n      \"pages\": 2048";
  ASSERT_NE(edited(window, window).find(window), std::string::npos);
  EXPECT_EQ(error_of(edited(window, "\"pcp_hot_window\": {\n      \"pages\": -1")),
            "bad.json: sizes.pcp_hot_window: not a whole number of pages");
  EXPECT_EQ(error_of(edited(window, "\"pcp_hot_window\": {\n      \"ns\": 2048")),
            "bad.json: sizes.pcp_hot_window: unknown key 'ns'");
  EXPECT_EQ(error_of(edited("\"pcp_hot_window\"", "\"hot_window\"")),
            "bad.json: sizes.hot_window: unknown size field");
}

TEST(CostProfileJson, BadDocuments) {
  EXPECT_EQ(error_of("{"), "bad.json: not valid JSON");
  EXPECT_EQ(error_of(R"({"format": "other", "costs": {}})"),
            "bad.json: \"format\" is not \"mmreplay-cost-profile-1\"");
  EXPECT_EQ(error_of(R"({"format": "mmreplay-cost-profile-1"})"), "bad.json: no \"costs\" object");
}

TEST(CostProfileJson, ResolveNamesAndPaths) {
  kernelsim::CostProfile c;
  ASSERT_TRUE(resolve_cost_profile("xeon-2014", &c));
  EXPECT_EQ(c.swap_in_page, kernelsim::cost_profile_xeon_2014().swap_in_page);
  const Status unknown = resolve_cost_profile("xeon-2015", &c);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.message().rfind("--profile xeon-2015: no such cost profile", 0), 0u);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  const Status missing = resolve_cost_profile("/nonexistent/p.json", &c);
  EXPECT_EQ(missing.message(), "--profile /nonexistent/p.json: cannot open");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mmreplay::replay

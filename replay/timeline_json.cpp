#include "replay/timeline_json.h"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <ostream>

namespace mmreplay::replay {
namespace {

using kernelsim::SimTime;
using kernelsim::TraceCat;
using kernelsim::Track;

// Thread ids of the three kinds of track (see the header).
constexpr int64_t kIrqTidBase = 10000;
constexpr int64_t kTaskTidBase = 100000;
// Events a task track holds back while a slice is open; past it the open slices are split so
// that memory stays bounded even for a kswapd run of seconds.
constexpr size_t kMaxHeldPerTrack = size_t{1} << 16;
// Room kept for the closing bracket and the truncation label when the size guard is near.
constexpr uint64_t kTailReserve = 512;

uint64_t track_key(Track t) {
  return (uint64_t{static_cast<uint8_t>(t.kind)} << 32) | t.id;
}

int64_t tid_of(Track t) {
  switch (t.kind) {
    case Track::Kind::kCpu:
      return 1 + int64_t{t.id};
    case Track::Kind::kIrq:
      return kIrqTidBase + t.id;
    case Track::Kind::kTask:
      return kTaskTidBase + t.id;
  }
  return 0;
}

std::string_view cat_name(TraceCat c) {
  switch (c) {
    case TraceCat::kSched:
      return "sched";
    case TraceCat::kLockWait:
      return "lock_wait";
    case TraceCat::kLockHold:
      return "lock";
    case TraceCat::kTlb:
      return "tlb";
    case TraceCat::kIpi:
      return "ipi";
    case TraceCat::kReclaim:
      return "vmscan";
  }
  return "other";
}

void append_int(std::string& s, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

// Nanoseconds as microseconds with three decimals ("12.345"), exactly.
void append_us(std::string& s, int64_t ns) {
  if (ns < 0) {
    s += '-';
    ns = -ns;
  }
  append_int(s, ns / 1000);
  const int64_t frac = ns % 1000;
  s += '.';
  s += static_cast<char>('0' + frac / 100);
  s += static_cast<char>('0' + frac / 10 % 10);
  s += static_cast<char>('0' + frac % 10);
}

void append_string(std::string& s, std::string_view v) {
  s += '"';
  for (const char c : v) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      constexpr char kHex[] = "0123456789abcdef";
      s += "\\u00";
      s += kHex[(c >> 4) & 0xf];
      s += kHex[c & 0xf];
    } else {
      s += c;
    }
  }
  s += '"';
}

void append_metadata(std::string& s, uint32_t pid, int64_t tid, std::string_view what,
                     std::string_view key, std::string_view text, int64_t number) {
  s += "{\"ph\":\"M\",\"pid\":";
  append_int(s, pid);
  if (tid >= 0) {
    s += ",\"tid\":";
    append_int(s, tid);
  }
  s += ",\"name\":";
  append_string(s, what);
  s += ",\"args\":{";
  append_string(s, key);
  s += ':';
  if (text.empty()) {
    append_int(s, number);
  } else {
    append_string(s, text);
  }
  s += "}}";
}

}  // namespace

TimelineJsonWriter::TimelineJsonWriter(std::ostream& out, uint32_t nr_cpus, TimelineOptions options)
    : out_(out), nr_cpus_(nr_cpus), options_(std::move(options)) {
  out_ << "[\n";
  stats_.bytes = 2;
  line_.clear();
  append_metadata(line_, options_.pid, -1, "process_name", "name", options_.process_name, 0);
  emit(line_, true);
}

TimelineJsonWriter::~TimelineJsonWriter() {
  finish(SimTime::ns(last_time_));
}

void TimelineJsonWriter::set_task_label(uint32_t task_id, std::string label) {
  tasks_[task_id].label = std::move(label);
}

void TimelineJsonWriter::name_task(uint32_t task_id, uint32_t cpu, uint32_t mm_id, bool kthread) {
  TaskInfo& info = tasks_[task_id];
  info.cpu = cpu;
  if (!info.label.empty()) return;
  info.label =
      kthread ? "kswapd0" : "task " + std::to_string(task_id) + " mm " + std::to_string(mm_id);
}

TimelineJsonWriter::Event TimelineJsonWriter::make_event(char ph, std::string_view name,
                                                         TraceCat cat, int64_t ts, int64_t dur) {
  Event e;
  e.ph = ph;
  e.name = name;
  e.cat = cat;
  e.ts = ts;
  e.dur = dur;
  return e;
}

TimelineJsonWriter::TrackState& TimelineJsonWriter::state(Track track) {
  return tracks_[track_key(track)];
}

void TimelineJsonWriter::run_slice(uint32_t cpu, uint32_t task_id, SimTime start, SimTime dur) {
  TaskInfo& info = tasks_[task_id];
  if (info.label.empty()) info.label = "task " + std::to_string(task_id);
  add(Track::cpu(cpu),
      make_event('X', info.label, TraceCat::kSched, start.count_ns(), dur.count_ns()));
}

void TimelineJsonWriter::begin(Track track, std::string_view name, TraceCat cat, SimTime at) {
  state(track).open.push_back(OpenSlice{name, cat, at.count_ns(), false});
  last_time_ = std::max(last_time_, at.count_ns());
}

void TimelineJsonWriter::end(Track track, std::string_view name, TraceCat cat, SimTime at) {
  TrackState& st = state(track);
  const int64_t now = at.count_ns();
  last_time_ = std::max(last_time_, now);
  size_t i = st.open.size();
  while (i > 0 && !(st.open[i - 1].name == name && st.open[i - 1].cat == cat)) --i;
  if (i == 0) {
    ++stats_.unmatched_ends;
    return;
  }
  --i;
  // Slices opened after this one and still open end here too, and go on as continuations.
  std::vector<OpenSlice> above(st.open.begin() + static_cast<std::ptrdiff_t>(i) + 1, st.open.end());
  for (size_t j = st.open.size(); j-- > i;) {
    const OpenSlice& o = st.open[j];
    Event e = make_event('X', o.name, o.cat, o.start, now - o.start);
    if (o.split) e.args[e.nr_args++] = {"split", 1};
    st.held.push_back(e);
  }
  st.open.resize(i);
  for (OpenSlice& o : above) {
    o.start = now;
    o.split = true;
    st.open.push_back(o);
    ++stats_.slices_split;
  }
  if (st.open.empty()) flush(track, st);
}

void TimelineJsonWriter::complete(Track track, std::string_view name, TraceCat cat, SimTime start,
                                  SimTime dur, kernelsim::TraceArgs args) {
  Event e = make_event('X', name, cat, start.count_ns(), dur.count_ns());
  for (const kernelsim::TraceArg& a : args) {
    if (e.nr_args < kMaxArgs) e.args[e.nr_args++] = a;
  }
  add(track, e);
}

void TimelineJsonWriter::instant(Track track, std::string_view name, TraceCat cat, SimTime at,
                                 kernelsim::TraceArgs args) {
  Event e = make_event('i', name, cat, at.count_ns(), 0);
  for (const kernelsim::TraceArg& a : args) {
    if (e.nr_args < kMaxArgs) e.args[e.nr_args++] = a;
  }
  add(track, e);
}

void TimelineJsonWriter::add(Track track, const Event& e) {
  last_time_ = std::max(last_time_, e.ts + e.dur);
  TrackState& st = state(track);
  if (st.open.empty()) {
    write_event(track, st, e);
  } else {
    st.held.push_back(e);
    if (st.held.size() >= kMaxHeldPerTrack) split_open(track, st);
  }
}

void TimelineJsonWriter::split_open(Track track, TrackState& st) {
  int64_t at = 0;
  for (const Event& e : st.held) at = std::max(at, e.ts + e.dur);
  for (OpenSlice& o : st.open) {
    at = std::max(at, o.start);
    Event e = make_event('X', o.name, o.cat, o.start, 0);
    if (o.split) e.args[e.nr_args++] = {"split", 1};
    st.held.push_back(e);
  }
  // Every piece ends at `at`, after everything held: they stay the parents of what they hold.
  for (size_t i = st.held.size() - st.open.size(); i < st.held.size(); ++i) {
    st.held[i].dur = at - st.held[i].ts;
  }
  for (OpenSlice& o : st.open) {
    o.start = at;
    o.split = true;
    ++stats_.slices_split;
  }
  flush(track, st);
}

void TimelineJsonWriter::flush(Track track, TrackState& st) {
  // Parents first: earlier start, then the longer of two slices that start together.
  std::stable_sort(st.held.begin(), st.held.end(), [](const Event& a, const Event& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
  });
  for (const Event& e : st.held) write_event(track, st, e);
  st.held.clear();
}

void TimelineJsonWriter::write_event(Track track, TrackState& st, Event e) {
  const int64_t w0 = options_.window_start.count_ns();
  const int64_t w1 = options_.window_end.count_ns();
  const int64_t end = e.ts + e.dur;
  if (end < w0 || e.ts > w1) {
    ++stats_.events_outside_window;
    return;
  }
  // Clipping both ends to the window keeps nesting and order.
  e.ts = std::max(e.ts, w0);
  e.dur = std::min(end, w1) - e.ts;
  if (truncated_at_ >= 0) {
    ++stats_.events_dropped_by_size;
    return;
  }
  if (!st.announced) announce(track, st);
  line_.clear();
  line_ += "{\"ph\":\"";
  line_ += e.ph;
  line_ += "\",\"pid\":";
  append_int(line_, options_.pid);
  line_ += ",\"tid\":";
  append_int(line_, tid_of(track));
  line_ += ",\"ts\":";
  append_us(line_, e.ts);
  if (e.ph == 'X') {
    line_ += ",\"dur\":";
    append_us(line_, e.dur);
  } else {
    line_ += ",\"s\":\"t\"";
  }
  line_ += ",\"name\":";
  if (e.cat == TraceCat::kLockWait) {
    append_string(line_, std::string("wait ") + std::string(e.name));
  } else {
    append_string(line_, e.name);
  }
  line_ += ",\"cat\":";
  append_string(line_, cat_name(e.cat));
  if (e.nr_args > 0) {
    line_ += ",\"args\":{";
    for (uint32_t i = 0; i < e.nr_args; ++i) {
      if (i > 0) line_ += ',';
      append_string(line_, e.args[i].key);
      line_ += ':';
      append_int(line_, e.args[i].value);
    }
    line_ += '}';
  }
  line_ += '}';
  if (emit(line_, false)) {
    ++stats_.events_written;
  } else {
    warn_size(e.ts);
  }
}

void TimelineJsonWriter::announce(Track track, TrackState& st) {
  st.announced = true;
  std::string label;
  int64_t sort = 0;
  switch (track.kind) {
    case Track::Kind::kCpu:
      label = "CPU " + std::to_string(track.id);
      sort = 3 * int64_t{track.id};
      break;
    case Track::Kind::kIrq:
      label = "CPU " + std::to_string(track.id) + " IRQ";
      sort = 3 * int64_t{track.id} + 1;
      break;
    case Track::Kind::kTask: {
      const TaskInfo& info = tasks_[track.id];
      label = (info.label.empty() ? "task " + std::to_string(track.id) : info.label) + " (CPU " +
              std::to_string(info.cpu) + ")";
      sort = 3 * int64_t{info.cpu} + 2;
      break;
    }
  }
  line_.clear();
  append_metadata(line_, options_.pid, tid_of(track), "thread_name", "name", label, 0);
  emit(line_, true);
  line_.clear();
  append_metadata(line_, options_.pid, tid_of(track), "thread_sort_index", "sort_index", "", sort);
  emit(line_, true);
}

void TimelineJsonWriter::counter(std::string_view name, SimTime at, kernelsim::TraceArgs series) {
  auto it = counters_.find(name);
  if (it == counters_.end()) {
    it = counters_.emplace(std::string(name), CounterState{}).first;
    for (const kernelsim::TraceArg& a : series) it->second.keys.push_back(a.key);
  }
  CounterState& c = it->second;
  std::vector<int64_t> values;
  values.reserve(series.size());
  for (const kernelsim::TraceArg& a : series) values.push_back(a.value);
  const int64_t ts = at.count_ns();
  last_time_ = std::max(last_time_, ts);
  if (ts < options_.window_start.count_ns()) {
    c.before = std::move(values);
    c.has_before = true;
    ++stats_.events_outside_window;
    return;
  }
  if (ts > options_.window_end.count_ns()) {
    ++stats_.events_outside_window;
    return;
  }
  if (c.has_before) {  // the value the counter had when the window opened
    c.has_before = false;
    if (ts > options_.window_start.count_ns())
      write_counter(name, options_.window_start.count_ns(), c, c.before);
  }
  if (values == c.last) {
    ++stats_.counters_unchanged;
    return;
  }
  write_counter(name, ts, c, values);
}

void TimelineJsonWriter::write_counter(std::string_view name, int64_t at, const CounterState& c,
                                       const std::vector<int64_t>& values) {
  if (truncated_at_ >= 0) {
    ++stats_.events_dropped_by_size;
    return;
  }
  line_.clear();
  line_ += "{\"ph\":\"C\",\"pid\":";
  append_int(line_, options_.pid);
  line_ += ",\"ts\":";
  append_us(line_, at);
  line_ += ",\"name\":";
  append_string(line_, name);
  line_ += ",\"args\":{";
  for (size_t i = 0; i < values.size() && i < c.keys.size(); ++i) {
    if (i > 0) line_ += ',';
    append_string(line_, c.keys[i]);
    line_ += ':';
    append_int(line_, values[i]);
  }
  line_ += "}}";
  if (!emit(line_, false)) {
    warn_size(at);
    return;
  }
  ++stats_.events_written;
  counters_.find(name)->second.last = values;
}

bool TimelineJsonWriter::emit(const std::string& line, bool metadata) {
  const uint64_t size = line.size() + (first_ ? 0 : 2);
  if (!metadata && stats_.bytes + size + kTailReserve > options_.max_bytes) return false;
  if (metadata && truncated_at_ >= 0) return false;
  if (!first_) out_ << ",\n";
  out_ << line;
  first_ = false;
  stats_.bytes += size;
  return true;
}

void TimelineJsonWriter::warn_size(int64_t at) {
  ++stats_.events_dropped_by_size;
  if (truncated_at_ >= 0) return;
  truncated_at_ = at;
  stats_.size_guard_hit = true;
  std::ostream& w = options_.warnings != nullptr ? *options_.warnings : std::cerr;
  std::string when;
  append_us(when, at);
  w << "trace-replay: timeline would pass " << options_.max_bytes << " bytes at " << when
    << " us of virtual time; later events are dropped (use --timeline-window START:END for a "
       "later part)\n";
}

void TimelineJsonWriter::finish(SimTime end) {
  if (finished_) return;
  const int64_t at = std::max(end.count_ns(), last_time_);
  for (auto& [key, st] : tracks_) {
    const Track track{static_cast<Track::Kind>(key >> 32), static_cast<uint32_t>(key)};
    while (!st.open.empty()) {
      const OpenSlice top = st.open.back();
      this->end(track, top.name, top.cat, SimTime::ns(at));
    }
  }
  finished_ = true;
  if (truncated_at_ >= 0) {
    std::string label = "timeline truncated at ";
    append_us(label, truncated_at_);
    label += " us by the size guard";
    line_.clear();
    append_metadata(line_, options_.pid, -1, "process_labels", "labels", label, 0);
    out_ << ",\n" << line_;
    stats_.bytes += line_.size() + 2;
  }
  out_ << "\n]\n";
  stats_.bytes += 3;
  out_.flush();
}

bool parse_timeline_window(std::string_view text, SimTime* start, SimTime* end,
                           std::string* error) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    *error = "--timeline-window " + std::string(text) + ": expected START:END (e.g. 10ms:20ms)";
    return false;
  }
  auto side = [&](std::string_view s, SimTime open, SimTime* out) {
    if (s.empty()) {
      *out = open;
      return true;
    }
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    const std::string_view unit(r.ptr, static_cast<size_t>(s.data() + s.size() - r.ptr));
    double scale = 0;
    if (unit.empty() || unit == "ns") scale = 1;
    if (unit == "us") scale = 1e3;
    if (unit == "ms") scale = 1e6;
    if (unit == "s") scale = 1e9;
    if (r.ec != std::errc() || scale == 0 || v < 0) {
      *error = "--timeline-window: '" + std::string(s) +
               "' is not a time (a number with ns, us, ms or s)";
      return false;
    }
    *out = SimTime::ns(static_cast<int64_t>(v * scale + 0.5));
    return true;
  };
  if (!side(text.substr(0, colon), SimTime::zero(), start)) return false;
  if (!side(text.substr(colon + 1), SimTime::infinite(), end)) return false;
  if (*end <= *start) {
    *error = "--timeline-window " + std::string(text) + ": END must be after START";
    return false;
  }
  return true;
}

}  // namespace mmreplay::replay

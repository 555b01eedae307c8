// The end-of-run report of a Flow program (text and JSON) and its progress line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "flow/format.hpp"
#include "flow/mng/config.hpp"
#include "flow/program/flags.hpp"
#include "flow/program/report.hpp"

namespace flow {

void estimate::phase(unsigned id, std::string_view label, double read_bytes, double write_bytes) {
  for (auto& p : phases_) {
    if (p.id == id) {
      p.read_bytes += read_bytes;
      p.write_bytes += write_bytes;
      return;
    }
  }
  phases_.push_back({id, std::string(label), read_bytes, write_bytes, 1});
}

void estimate::rounds(unsigned id, std::string_view label, double rounds, bool counted_once) {
  for (auto& p : phases_) {
    if (p.id == id) {
      p.rounds = rounds;
      p.counted_once = counted_once;
      return;
    }
  }
  phases_.push_back({id, std::string(label), 0, 0, rounds, counted_once});
}

void estimate::node(node_estimate n, std::string_view label) {
  phase(n.phase, label, n.read_bytes, n.write_bytes);
  nodes_.push_back(std::move(n));
}

const estimate::phase_estimate* estimate::find(unsigned id) const noexcept {
  for (const auto& p : phases_)
    if (p.id == id) return &p;
  return nullptr;
}

double estimate::read_bytes() const noexcept {
  double s = 0;
  for (const auto& p : phases_) s += p.read_bytes * p.rounds;
  return s;
}

double estimate::write_bytes() const noexcept {
  double s = 0;
  for (const auto& p : phases_) s += p.write_bytes * p.rounds;
  return s;
}

namespace {

std::string seconds_json(double s) {
  if (!std::isfinite(s)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", std::max(0.0, s));
  return buf;
}

std::string bytes_json(double b) {
  if (!std::isfinite(b) || b < 0) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(b));
  return buf;
}

// The phases in id order, estimated or measured.
struct merged_phase {
  const phase_record* measured = nullptr;
  const estimate::phase_estimate* estimated = nullptr;
  const estimate::phase_estimate* calibrated = nullptr; // a calibrated program's
  unsigned id = 0;
  const std::string* label = nullptr;
};

std::vector<merged_phase> merge_phases(const run_report& r) {
  std::map<unsigned, merged_phase> m;
  for (const auto& e : r.estimate.phases()) {
    auto& x = m[e.id];
    x.id = e.id;
    x.estimated = &e;
    x.label = &e.label;
  }
  if (r.calibrated)
    for (const auto& e : r.calibrated->phases()) {
      auto& x = m[e.id];
      x.id = e.id;
      x.calibrated = &e;
      if (!x.label) x.label = &e.label;
    }
  for (const auto& p : r.phases) {
    auto& x = m[p.id];
    x.id = p.id;
    x.measured = &p;
    if (!p.label.empty() || !x.label) x.label = &p.label;
  }
  std::vector<merged_phase> v;
  for (auto& [id, x] : m) v.push_back(x);
  return v;
}

/// How many times a phase's per-round estimate counts: the rounds it ran, or the rounds
/// planned when it did not run or when a loop around it has no `~` (counted once).
double rounds_of(const merged_phase& p) {
  if (p.estimated && p.estimated->counted_once) return p.estimated->rounds;
  if (p.measured && p.measured->runs > 0) return p.measured->runs;
  return p.estimated ? p.estimated->rounds : 1;
}

std::string size_text(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "?";
  return flow::format_bytes(bytes);
}

std::string secs_text(double s) {
  char buf[32];
  if (s < 10) std::snprintf(buf, sizeof buf, "%.3f s", s);
  else std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  const auto t = static_cast<unsigned long long>(s);
  char buf[32];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", t / 3600, t / 60 % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%llu:%02llu", t / 60, t % 60);
  return buf;
}

std::string count_text(std::uint64_t n) {
  char buf[32];
  const double d = static_cast<double>(n);
  if (n < 10000) std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  else if (d < 1e6) std::snprintf(buf, sizeof buf, "%.1f k", d / 1e3);
  else if (d < 1e9) std::snprintf(buf, sizeof buf, "%.2f M", d / 1e6);
  else if (d < 1e12) std::snprintf(buf, sizeof buf, "%.2f G", d / 1e9);
  else std::snprintf(buf, sizeof buf, "%.2f T", d / 1e12);
  return buf;
}

std::string pad(std::string s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

} // namespace

std::string to_json(const run_report& r) {
  std::ostringstream o;
  o << "{\"program\":" << json_string(r.program) << ",\"status\":" << (r.ok ? "\"ok\"" : "\"error\"");
  if (!r.ok) o << ",\"error\":" << json_string(r.error);
  o << ",\"wall_seconds\":" << seconds_json(r.wall_seconds) << ",\"cpu_seconds\":" << seconds_json(r.cpu_seconds)
    << ",\"read_bytes\":" << r.read_bytes
    << ",\"write_bytes\":" << r.write_bytes << ",\"io_wait_seconds\":" << seconds_json(r.io_wait_seconds)
    << ",\"io_busy_seconds\":" << seconds_json(r.io_busy_seconds)
    << ",\"memory_bytes\":" << r.memory_bytes << ",\"memory_default_bytes\":" << r.memory_default_bytes
    << ",\"block_bytes\":";
  if (r.block_bytes) o << r.block_bytes;
  else o << "null";
  o << ",\"buffer_peak_bytes\":" << r.buffer_peak_bytes << ",\"rss_bytes\":" << r.rss_bytes
    << ",\"rss_peak_bytes\":" << r.rss_peak_bytes << ",\"threads\":" << r.threads << ",\"ranks\":" << r.ranks
    << ",\"network_bytes\":" << r.network_bytes
    << ",\"seed\":" << r.seed << ",\"params\":{";
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    if (i) o << ",";
    o << json_string(r.params[i].first) << ":" << r.params[i].second;
  }
  o << "},\"disks\":[";
  for (std::size_t i = 0; i < r.disks.size(); ++i) {
    if (i) o << ",";
    o << "{\"path\":" << json_string(r.disks[i].path) << ",\"read_bytes\":" << r.disks[i].read_bytes
      << ",\"write_bytes\":" << r.disks[i].write_bytes << "}";
  }
  o << "],\"estimate\":{\"read_bytes\":" << bytes_json(r.estimate.read_bytes())
    << ",\"write_bytes\":" << bytes_json(r.estimate.write_bytes()) << "}";
  if (r.calibrated)
    o << ",\"calibrated\":{\"read_bytes\":" << bytes_json(r.calibrated->read_bytes())
      << ",\"write_bytes\":" << bytes_json(r.calibrated->write_bytes()) << ",\"by\":" << json_string(r.calibrated_by)
      << "}";
  o << ",\"phases\":[";
  bool first = true;
  for (const auto& p : merge_phases(r)) {
    if (!first) o << ",";
    first = false;
    const phase_record none{};
    const phase_record& m = p.measured ? *p.measured : none;
    o << "{\"id\":" << p.id << ",\"label\":" << json_string(*p.label) << ",\"runs\":" << m.runs
      << ",\"elements\":" << m.elements << ",\"wall_seconds\":" << seconds_json(m.wall_seconds)
      << ",\"cpu_seconds\":" << seconds_json(m.cpu_seconds)
      << ",\"read_bytes\":" << m.read_bytes << ",\"write_bytes\":" << m.write_bytes
      << ",\"io_wait_seconds\":" << seconds_json(m.io_wait_seconds) << ",\"estimate\":";
    if (p.estimated) {
      // for the rounds it ran (the planned rounds if it did not run)
      const double n = rounds_of(p);
      o << "{\"read_bytes\":" << bytes_json(p.estimated->read_bytes * n)
        << ",\"write_bytes\":" << bytes_json(p.estimated->write_bytes * n)
        << ",\"rounds_planned\":" << p.estimated->rounds
        << (p.estimated->counted_once ? ",\"counted_once\":true" : "") << "}";
    } else {
      o << "null";
    }
    if (r.calibrated) {
      const double n = rounds_of(p);
      o << ",\"calibrated\":";
      if (p.calibrated)
        o << "{\"read_bytes\":" << bytes_json(p.calibrated->read_bytes * n)
          << ",\"write_bytes\":" << bytes_json(p.calibrated->write_bytes * n) << "}";
      else
        o << "null";
    }
    o << "}";
  }
  o << "],\"nodes\":[";
  first = true;
  for (const node_count& n : r.nodes) {
    o << (first ? "" : ",") << "{\"id\":" << n.id << ",\"name\":" << json_string(n.name)
      << ",\"elements\":" << n.elements << "}";
    first = false;
  }
  o << "],\"queues\":[";
  first = true;
  for (const node_count& n : r.nodes) {
    if (!n.queue) continue;
    o << (first ? "" : ",") << "{\"id\":" << n.id << ",\"name\":" << json_string(n.name)
      << ",\"pushes\":" << n.elements << ",\"peak\":" << n.peak << "}";
    first = false;
  }
  o << "]}";
  return o.str();
}

std::string to_text(const run_report& r) {
  std::ostringstream o;
  o << r.program << ": stats" << (r.ok ? "" : " (stopped by an error)") << "\n";
  o << "  memory " << flow::format_bytes(r.memory_bytes);
  if (r.memory_default_bytes && r.memory_default_bytes != r.memory_bytes)
    o << " (planned for " << flow::format_bytes(r.memory_default_bytes) << ")";
  if (r.block_bytes) o << ", block " << flow::format_bytes(r.block_bytes);
  o << ", threads " << r.threads << ", seed " << r.seed << ", buffer peak "
    << flow::format_bytes(r.buffer_peak_bytes);
  if (r.rss_peak_bytes)
    o << ", resident " << flow::format_bytes(r.rss_bytes) << " (peak " << flow::format_bytes(r.rss_peak_bytes) << ")";
  o << "\n";
  if (r.ranks > 1)
    o << "  ranks " << r.ranks << ": sent " << flow::format_bytes(r.network_bytes)
      << " between them in all; the rest of this report is the first rank's\n";
  if (!r.params.empty()) {
    o << "  params";
    for (const auto& [name, value] : r.params) o << " " << name << "=" << value;
    o << "\n";
  }

  // Table: phase | wall | read (est.) | written (est.) | I/O wait | elements | label. The
  // label comes last, whole: it names the phase's nodes as flowc explain, the progress bar
  // and --trace do, and is as long as they are.
  struct row {
    std::string phase, wall, cpu, read, write, wait, elements, label;
  };
  std::vector<row> rows;
  // In a calibrated program (flowc build --calibrate) the calibrated estimate follows the
  // static one in the brackets.
  const bool calibrated = r.calibrated.has_value();
  rows.push_back({"phase", "wall", "CPU", calibrated ? "read (estimate, calibrated)" : "read (estimate)",
                  calibrated ? "written (estimate, calibrated)" : "written (estimate)", "I/O wait", "elements", ""});
  const auto io_text = [&](std::uint64_t measured, const double* est, const double* cal) {
    std::string t = size_text(static_cast<double>(measured)) + " (" + (est ? size_text(*est) : "-");
    if (calibrated) t += std::string(", ") + (cal ? size_text(*cal) : "-");
    return t + ")";
  };
  // the estimates for the rounds each phase ran
  double total_read = 0, total_write = 0, cal_total_read = 0, cal_total_write = 0;
  for (const auto& p : merge_phases(r)) {
    const double n = rounds_of(p);
    const double est_read = p.estimated ? p.estimated->read_bytes * n : 0;
    const double est_write = p.estimated ? p.estimated->write_bytes * n : 0;
    const double cal_read = p.calibrated ? p.calibrated->read_bytes * n : 0;
    const double cal_write = p.calibrated ? p.calibrated->write_bytes * n : 0;
    total_read += est_read;
    total_write += est_write;
    cal_total_read += cal_read;
    cal_total_write += cal_write;
    const double* er = p.estimated ? &est_read : nullptr;
    const double* ew = p.estimated ? &est_write : nullptr;
    const double* cr = p.calibrated ? &cal_read : nullptr;
    const double* cw = p.calibrated ? &cal_write : nullptr;
    if (p.measured) {
      const auto& m = *p.measured;
      rows.push_back({std::to_string(p.id) + (m.runs > 1 ? " (x" + std::to_string(m.runs) + ")" : ""),
                      secs_text(m.wall_seconds), secs_text(m.cpu_seconds), io_text(m.read_bytes, er, cr), io_text(m.write_bytes, ew, cw),
                      secs_text(m.io_wait_seconds), std::to_string(m.elements), *p.label});
    } else {
      rows.push_back({std::to_string(p.id) + " (not timed)", "-", "-", io_text(0, er, cr), io_text(0, ew, cw), "-", "-",
                      *p.label});
    }
  }
  const bool estimated = !r.estimate.phases().empty();
  rows.push_back({"total", secs_text(r.wall_seconds), secs_text(r.cpu_seconds),
                  io_text(r.read_bytes, estimated ? &total_read : nullptr, calibrated ? &cal_total_read : nullptr),
                  io_text(r.write_bytes, estimated ? &total_write : nullptr, calibrated ? &cal_total_write : nullptr),
                  secs_text(r.io_wait_seconds), "", ""});
  std::size_t w[7] = {};
  for (const auto& x : rows) {
    const std::string* f[7] = {&x.phase, &x.wall, &x.cpu, &x.read, &x.write, &x.wait, &x.elements};
    for (int i = 0; i < 7; ++i) w[i] = std::max(w[i], f[i]->size());
  }
  for (const auto& x : rows) {
    std::string line = "  " + pad(x.phase, w[0]) + "  " + pad(x.wall, w[1], true) + "  " + pad(x.cpu, w[2], true) +
                       "  " + pad(x.read, w[3], true) + "  " + pad(x.write, w[4], true) + "  " +
                       pad(x.wait, w[5], true) + "  " + pad(x.elements, w[6], true) + "  " + x.label;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    o << line << "\n";
  }
  if (r.wall_seconds > 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "  I/O wait %.1f%% of the wall time, disks busy %.1f%%\n",
                  100.0 * r.io_wait_seconds / r.wall_seconds, 100.0 * r.io_busy_seconds / r.wall_seconds);
    o << buf;
  }
  if (calibrated) o << "  calibrated by " << r.calibrated_by << "\n";
  // Phases whose estimate is not for the rounds they ran: their loop has no `~ ROUNDS`.
  std::string once;
  for (const auto& p : merge_phases(r))
    if (p.estimated && p.estimated->counted_once && p.measured && p.measured->runs != p.estimated->rounds)
      once += (once.empty() ? "" : ", ") + ("phase " + std::to_string(p.id) + " ran " + std::to_string(p.measured->runs) + " rounds");
  if (!once.empty())
    o << "  estimates count a while loop without ~ ROUNDS once, as flowc explain says: " << once << "\n";
  // A queue's I/O depends on the most items it held at once, which the static estimate
  // takes to be all its pushes (flowc explain --calibrate uses the measured peak).
  for (const node_count& q : r.nodes)
    if (q.queue)
      o << "  " << q.name << ": " << flow::format_count(static_cast<double>(q.elements)) << " pushes, at most "
        << flow::format_count(static_cast<double>(q.peak)) << " at once\n";
  for (const auto& d : r.disks) {
    o << "  disk " << d.path << ": read " << flow::format_bytes(d.read_bytes) << ", written "
      << flow::format_bytes(d.write_bytes) << "\n";
  }
  return o.str();
}

namespace {
// Characters of UTF-8 text, as a terminal shows them (labels hold "→").
std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The first `n` characters of UTF-8 text (never half of one).
std::string first_columns(std::string_view s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == n) break;
  return std::string(s.substr(0, i));
}
} // namespace

std::string progress_line(const progress_state& s, unsigned width) {
  // A finished phase shows its time to the millisecond when it was short.
  const std::string time_text = s.finished && s.seconds < 60 ? secs_text(s.seconds) : duration_text(s.seconds);
  const std::string head = "[" + std::to_string(s.id) + (s.phases ? "/" + std::to_string(s.phases) : "") + "] ";
  const bool merging = s.merge_total > 0 && s.merged < s.merge_total && s.done == 0 && !s.finished;
  const std::uint64_t work_done = s.merged + s.done;
  const std::uint64_t work_total = s.expected > 0 || merging ? s.merge_total + s.expected : 0;
  std::string bar, counts;
  double frac = 0;
  if (work_total > 0) {
    frac = std::min(1.0, static_cast<double>(work_done) / static_cast<double>(work_total));
    if (s.finished) frac = 1.0;
    const int cells = 20;
    const int full = static_cast<int>(frac * cells);
    bar = "[";
    for (int i = 0; i < cells; ++i) bar += i < full ? '=' : (i == full && !s.finished ? '>' : ' ');
    bar += "] ";
    char buf[16];
    std::snprintf(buf, sizeof buf, "%3d%%", static_cast<int>(frac * 100));
    bar += buf;
  }
  if (merging) counts = "merging runs " + count_text(s.merged) + "/" + count_text(s.merge_total);
  else if (s.expected > 0) counts = count_text(s.done) + "/" + count_text(s.expected);
  else counts = count_text(s.done);
  std::string element_rate, byte_rate;
  if (s.seconds > 0) {
    element_rate = count_text(static_cast<std::uint64_t>(static_cast<double>(work_done) / s.seconds)) + "/s";
    byte_rate = flow::format_bytes(static_cast<double>(s.io_bytes) / s.seconds) + "/s";
  }
  std::string when = time_text;
  if (work_total > 0 && !s.finished && frac > 0.01 && frac < 1.0)
    when += " ETA " + duration_text(s.seconds * (1 - frac) / frac);
  if (s.finished) when += " done";
  // The label gets what is left of the width, at least 8 columns; the rates go first.
  for (int rates = 2; rates >= 0; --rates) {
    std::string tail = "  " + counts;
    if (rates >= 1 && !element_rate.empty()) tail += "  " + element_rate;
    if (rates >= 2 && !byte_rate.empty()) tail += "  " + byte_rate;
    tail += "  " + when;
    const std::size_t fixed = head.size() + (bar.empty() ? 0 : 2 + bar.size()) + tail.size();
    if (rates > 0 && fixed + std::min<std::size_t>(columns(s.label), 20) > width) continue;
    const std::size_t room = width > fixed + 8 ? width - fixed : 8;
    std::string l(s.label);
    if (columns(l) > room) l = first_columns(l, room - 3) + "...";
    std::string line = head + l + (bar.empty() ? "" : "  " + bar) + tail;
    if (columns(line) > width && width > 0) line = first_columns(line, width);
    return line;
  }
  return head; // not reached: rates 0 always returns
}

} // namespace flow

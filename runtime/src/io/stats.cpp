// The process-wide I/O statistics and their report formats.
#include "flow/io/stats.hpp"
#include "flow/escape.hpp"
#include "flow/format.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>

namespace flow::io {
namespace {

double seconds_of(std::uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

void disk_json(std::ostream& o, const disk_snapshot& d) {
  o << "{\"name\":" << json_string(d.name) << ",\"reads\":" << d.reads
    << ",\"writes\":" << d.writes << ",\"read_bytes\":" << d.read_bytes
    << ",\"write_bytes\":" << d.write_bytes << ",\"read_seconds\":" << d.read_seconds
    << ",\"write_seconds\":" << d.write_seconds << "}";
}

} // namespace

disk_snapshot& disk_snapshot::operator+=(const disk_snapshot& o) {
  reads += o.reads;
  writes += o.writes;
  read_bytes += o.read_bytes;
  write_bytes += o.write_bytes;
  read_seconds += o.read_seconds;
  write_seconds += o.write_seconds;
  return *this;
}

disk_snapshot& disk_snapshot::operator-=(const disk_snapshot& o) {
  reads -= o.reads;
  writes -= o.writes;
  read_bytes -= o.read_bytes;
  write_bytes -= o.write_bytes;
  read_seconds -= o.read_seconds;
  write_seconds -= o.write_seconds;
  return *this;
}

disk_snapshot stats_snapshot::total() const {
  disk_snapshot t;
  t.name = "total";
  for (const auto& d : disks) t += d;
  return t;
}

stats_snapshot stats_snapshot::operator-(const stats_snapshot& earlier) const {
  stats_snapshot r = *this;
  // Disks registered after `earlier` was taken simply count from zero.
  for (std::size_t i = 0; i < earlier.disks.size() && i < r.disks.size(); ++i) {
    r.disks[i] -= earlier.disks[i];
  }
  r.busy_seconds -= earlier.busy_seconds;
  r.read_wait_seconds -= earlier.read_wait_seconds;
  r.write_wait_seconds -= earlier.write_wait_seconds;
  r.elapsed_seconds -= earlier.elapsed_seconds;
  return r;
}

void stats_snapshot::print(std::ostream& out, const std::string& title) const {
  const disk_snapshot t = total();
  char line[256];
  out << title << ": read " << flow::format_bytes(t.read_bytes) << " in " << t.reads << " requests, wrote "
      << flow::format_bytes(t.write_bytes) << " in " << t.writes << " requests\n";
  const double wait_share = elapsed_seconds > 0 ? 100.0 * wait_seconds() / elapsed_seconds : 0.0;
  std::snprintf(line, sizeof line,
                "  elapsed %.3f s, disks busy %.3f s, I/O wait %.3f s (%.1f%%: read %.3f s, "
                "write %.3f s)\n",
                elapsed_seconds, busy_seconds, wait_seconds(), wait_share, read_wait_seconds,
                write_wait_seconds);
  out << line;
  for (const auto& d : disks) {
    if (d.reads == 0 && d.writes == 0) continue;
    out << "  " << d.name << ": read " << flow::format_bytes(d.read_bytes) << " (" << d.reads
        << " req, ";
    std::snprintf(line, sizeof line, "%.3f s", d.read_seconds);
    out << line << "), wrote " << flow::format_bytes(d.write_bytes) << " (" << d.writes << " req, ";
    std::snprintf(line, sizeof line, "%.3f s", d.write_seconds);
    out << line << ")\n";
  }
}

std::string stats_snapshot::to_json() const {
  std::ostringstream o;
  o << "{\"elapsed_seconds\":" << elapsed_seconds << ",\"busy_seconds\":" << busy_seconds
    << ",\"read_wait_seconds\":" << read_wait_seconds
    << ",\"write_wait_seconds\":" << write_wait_seconds << ",\"total\":";
  disk_json(o, total());
  o << ",\"disks\":[";
  bool first = true;
  for (const auto& d : disks) {
    if (d.reads == 0 && d.writes == 0) continue;
    if (!first) o << ",";
    first = false;
    disk_json(o, d);
  }
  o << "]}";
  return o.str();
}

stats::stats() : start_(clock::now()) {}

stats& stats::instance() {
  // Never destroyed: disk threads of static objects may still report while the program
  // exits, and a leaked singleton cannot be used after its destruction.
  static stats* the_stats = new stats();
  return *the_stats;
}

std::shared_ptr<disk_counters> stats::register_disk(std::string name) {
  auto c = std::make_shared<disk_counters>(std::move(name));
  std::lock_guard lock(mutex_);
  disks_.push_back(c);
  return c;
}

stats_snapshot stats::snapshot() const {
  stats_snapshot s;
  const auto now = clock::now();
  {
    std::lock_guard lock(mutex_);
    s.disks.reserve(disks_.size());
    for (const auto& c : disks_) {
      disk_snapshot d;
      d.name = c->name;
      d.reads = c->reads.load(std::memory_order_relaxed);
      d.writes = c->writes.load(std::memory_order_relaxed);
      d.read_bytes = c->read_bytes.load(std::memory_order_relaxed);
      d.write_bytes = c->write_bytes.load(std::memory_order_relaxed);
      d.read_seconds = seconds_of(c->read_ns.load(std::memory_order_relaxed));
      d.write_seconds = seconds_of(c->write_ns.load(std::memory_order_relaxed));
      s.disks.push_back(std::move(d));
    }
    std::uint64_t busy = busy_ns_;
    if (active_ > 0) {
      busy += std::chrono::duration_cast<std::chrono::nanoseconds>(now - busy_since_).count();
    }
    s.busy_seconds = seconds_of(busy);
  }
  s.read_wait_seconds = seconds_of(read_wait_ns_.load(std::memory_order_relaxed));
  s.write_wait_seconds = seconds_of(write_wait_ns_.load(std::memory_order_relaxed));
  s.elapsed_seconds = std::chrono::duration<double>(now - start_).count();
  return s;
}

void stats::io_started() {
  std::lock_guard lock(mutex_);
  if (active_++ == 0) busy_since_ = clock::now();
}

void stats::io_finished() {
  std::lock_guard lock(mutex_);
  if (--active_ == 0) {
    busy_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - busy_since_)
                    .count();
  }
}

} // namespace flow::io

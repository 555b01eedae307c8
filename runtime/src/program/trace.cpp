// The --trace timeline of a Flow program (flow/program/trace.hpp).
#include "flow/program/trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "flow/program/report.hpp"

namespace flow {

namespace {
// Microseconds with a fraction of a microsecond (the viewers read them as numbers).
std::string micros(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", std::isfinite(us) ? std::max(0.0, us) : 0.0);
  return buf;
}
} // namespace

void trace_recorder::span(std::string_view category, std::string_view name, double start_us, double duration_us,
                          std::vector<std::pair<std::string, std::string>> args) {
  std::string a = "{";
  for (const auto& [key, value] : args) a += (a.size() > 1 ? "," : "") + json_string(key) + ":" + value;
  events_.push_back({'X', std::string(category), std::string(name), start_us, std::max(0.0, duration_us), a + "}"});
}

void trace_recorder::counters(double at_us, std::uint64_t read_bytes, std::uint64_t write_bytes,
                              double io_wait_seconds) {
  if (at_us < last_sample_us_) return;
  last_sample_us_ = at_us;
  last_read_ = std::max(last_read_, read_bytes);
  last_write_ = std::max(last_write_, write_bytes);
  last_wait_ = std::max(last_wait_, io_wait_seconds);
  events_.push_back({'C', "io", "bytes", at_us, 0,
                     "{\"read\":" + std::to_string(last_read_) + ",\"written\":" + std::to_string(last_write_) + "}"});
  char wait[48];
  std::snprintf(wait, sizeof wait, "{\"seconds\":%.6f}", last_wait_);
  events_.push_back({'C', "io", "I/O wait", at_us, 0, wait});
}

std::string trace_recorder::json() const {
  std::string o = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  o += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":" + json_string(program_) + "}},\n";
  o += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"phases\"}}";
  for (const event& e : events_) {
    o += ",\n{\"name\":" + json_string(e.name) + ",\"cat\":" + json_string(e.category) + ",\"ph\":\"" + e.phase +
         "\",\"ts\":" + micros(e.ts);
    if (e.phase == 'X') o += ",\"dur\":" + micros(e.dur);
    o += ",\"pid\":1,\"tid\":1,\"args\":" + e.args + "}";
  }
  return o + "\n]}\n";
}

} // namespace flow

#pragma once
// A run's timeline for --trace PATH, in the Chrome trace-event JSON format that
// chrome://tracing and https://ui.perfetto.dev open: the run and each phase as complete
// spans ("ph":"X", nested in time: a phase inside the run, a sort's intermediate merge
// passes inside their phase), and the bytes read and written and the I/O wait so far as
// counters ("ph":"C", cumulative, so they only grow), sampled at every phase boundary
// and about every 100 ms while a phase runs. flow::program records it; the recorder only
// collects events and formats them, so tests can check it on fixed numbers.
//
//   flow::trace_recorder t("mis");
//   t.span("phase", "sort by src_dst: runs", 0, 1500, {{"phase", "1"}});
//   t.counters(1500, 0, 4096, 0.002);
//   std::string json = t.json();
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flow {

class trace_recorder {
public:
  /// `program` names the process in the viewer.
  explicit trace_recorder(std::string program) : program_(std::move(program)) {}

  /// A complete span from `start_us` lasting `duration_us` (microseconds since the run
  /// started). `args` are (name, JSON value) pairs the viewer shows when it is selected.
  void span(std::string_view category, std::string_view name, double start_us, double duration_us,
            std::vector<std::pair<std::string, std::string>> args = {});
  /// The I/O so far at `at_us`: one "bytes" counter (read, written) and one "I/O wait"
  /// counter (seconds). A sample earlier than the last one is dropped, and the values
  /// never go below the last ones, so each counter is monotonic in time.
  void counters(double at_us, std::uint64_t read_bytes, std::uint64_t write_bytes, double io_wait_seconds);

  /// The trace as one JSON object {"traceEvents": [...], "displayTimeUnit": "ms"}, events
  /// in the order recorded after the metadata (process and thread names).
  std::string json() const;

private:
  struct event {
    char phase;         // 'X' span, 'C' counter
    std::string category, name;
    double ts = 0, dur = 0;
    std::string args;   // a JSON object
  };
  std::string program_;
  std::vector<event> events_;
  double last_sample_us_ = -1;
  std::uint64_t last_read_ = 0, last_write_ = 0;
  double last_wait_ = 0;
};

} // namespace flow

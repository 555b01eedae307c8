#pragma once
// I/O statistics: per disk (one disk = one request queue) the bytes, requests and service
// time of reads and writes; globally the wall time during which any request was being
// served ("busy", STXXL's parallel I/O time) and the time computing threads spent
// blocked waiting for requests (STXXL's I/O wait). A snapshot is a plain value; the
// difference of two snapshots is what happened in between, which is how a phase is
// measured (see scoped_stats).
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace flow::io {

/// Live counters of one disk, updated by its worker thread (relaxed atomics: each counter
/// is exact, a snapshot taken while I/O runs may mix counters of neighbouring requests).
struct disk_counters {
  explicit disk_counters(std::string disk_name) : name(std::move(disk_name)) {}
  const std::string name;
  std::atomic<std::uint64_t> reads{0}, writes{0};
  std::atomic<std::uint64_t> read_bytes{0}, write_bytes{0};
  std::atomic<std::uint64_t> read_ns{0}, write_ns{0}; // service time of the requests
};

/// Counters of one disk (or the sum of all) at one moment, or between two moments.
struct disk_snapshot {
  std::string name;
  std::uint64_t reads = 0, writes = 0;
  std::uint64_t read_bytes = 0, write_bytes = 0;
  double read_seconds = 0, write_seconds = 0;

  disk_snapshot& operator+=(const disk_snapshot& other);
  disk_snapshot& operator-=(const disk_snapshot& other);
};


struct stats_snapshot {
  std::vector<disk_snapshot> disks; // every disk ever registered, in registration order
  double busy_seconds = 0;          // wall time with at least one request in service
  double read_wait_seconds = 0;     // time threads blocked in wait()/wait_any()/wait_all()
  double write_wait_seconds = 0;    //   for reads, resp. writes
  double elapsed_seconds = 0;       // wall time since the process's first snapshot

  disk_snapshot total() const; // sum over disks, named "total"
  double wait_seconds() const { return read_wait_seconds + write_wait_seconds; }

  /// What happened between `earlier` and this snapshot.
  stats_snapshot operator-(const stats_snapshot& earlier) const;

  /// Human-readable report: totals, I/O wait as a share of the elapsed time, and one line
  /// per disk that did any I/O.
  void print(std::ostream& out, const std::string& title = "I/O") const;
  /// The same numbers as one JSON object (for --stats=json).
  std::string to_json() const;
};

/// The process-wide statistics. Thread-safe.
class stats {
public:
  static stats& instance();

  /// Counters for a new disk; kept for the life of the process so that snapshots taken
  /// after the disk was closed still account for its I/O.
  std::shared_ptr<disk_counters> register_disk(std::string name);

  stats_snapshot snapshot() const;

  /// Called by request waits: `ns` nanoseconds a thread was blocked on a read/write.
  void add_wait(bool write, std::uint64_t ns) {
    (write ? write_wait_ns_ : read_wait_ns_).fetch_add(ns, std::memory_order_relaxed);
  }
  /// Called by disk workers around each request (busy time is the union of intervals).
  void io_started();
  void io_finished();

private:
  stats();
  using clock = std::chrono::steady_clock;

  mutable std::mutex mutex_; // guards disks_ and the busy interval
  std::vector<std::shared_ptr<disk_counters>> disks_;
  unsigned active_ = 0;
  clock::time_point busy_since_{};
  std::uint64_t busy_ns_ = 0;
  std::atomic<std::uint64_t> read_wait_ns_{0}, write_wait_ns_{0};
  const clock::time_point start_;
};

/// The I/O of a file read or written with plain system calls instead of a disk's request
/// queue (text files, standard input and output): counted as a disk named after the file,
/// so that --stats and the phases' read and write columns include its bytes.
class stream_counters {
public:
  explicit stream_counters(std::string name) : counters_(stats::instance().register_disk(std::move(name))) {}

  /// Runs `call` (a read or write system call returning the bytes it moved, or < 0 on an
  /// error) as one request: its bytes, its service time and the disks' busy time.
  template <class Call> auto timed(bool write, Call&& call) {
    stats& s = stats::instance();
    s.io_started();
    const auto started = std::chrono::steady_clock::now();
    const auto moved = call();
    const int call_errno = errno; // the caller reports the call's errno, not the clock's or lock's
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count());
    s.io_finished();
    if (moved > 0) add(write, static_cast<std::uint64_t>(moved), ns);
    errno = call_errno;
    return moved;
  }
  /// Counts `bytes` moved in one request of `ns` nanoseconds (0 when not measured).
  void add(bool write, std::uint64_t bytes, std::uint64_t ns = 0) {
    disk_counters& c = *counters_;
    (write ? c.writes : c.reads).fetch_add(1, std::memory_order_relaxed);
    (write ? c.write_bytes : c.read_bytes).fetch_add(bytes, std::memory_order_relaxed);
    (write ? c.write_ns : c.read_ns).fetch_add(ns, std::memory_order_relaxed);
  }

private:
  std::shared_ptr<disk_counters> counters_;
};

/// Measures one phase: construct it at the start, call elapsed() at the end.
///
///   flow::io::scoped_stats phase;
///   run_formation();
///   phase.elapsed().print(std::cerr, "run formation");
class scoped_stats {
public:
  scoped_stats() : start_(stats::instance().snapshot()) {}
  stats_snapshot elapsed() const { return stats::instance().snapshot() - start_; }
  void restart() { start_ = stats::instance().snapshot(); }

private:
  stats_snapshot start_;
};

} // namespace flow::io

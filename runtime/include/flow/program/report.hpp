#pragma once
// What a Flow program measures and what the planner expected: per phase the wall time,
// the bytes read and written and the I/O wait, beside the compile-time estimate of the
// phase's I/O (evaluated for the params actually used). program::run fills these in; the
// formatting functions are separate so that tests can check them on fixed numbers.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flow/escape.hpp" // json_string, which the report's JSON and its callers use
#include "flow/program/node_counts.hpp"

namespace flow {

/// The planner's I/O estimate: one entry per phase, filled by the callback a program
/// gives to program::estimate (called after the flags are parsed).
class estimate {
public:
  struct phase_estimate {
    unsigned id = 0;
    std::string label;
    double read_bytes = 0;  ///< per round
    double write_bytes = 0; ///< per round
    double rounds = 1;      ///< the rounds planned (a phase in a while loop runs once per round)
    /// A while loop around it has no `~ ROUNDS`: the estimate counts `rounds` however many
    /// run, as flowc explain says ("counted once"), since a round's share of the data is
    /// unknown (a drain loop's rounds each pop a few elements, not the planned whole).
    bool counted_once = false;
  };

  /// The estimate of phase `id`, for one round. A second call with the same id adds to the
  /// first (a generator may emit one call per node).
  void phase(unsigned id, std::string_view label, double read_bytes, double write_bytes);
  /// The rounds phase `id` is planned to run (the `~ N` of the while loops around it);
  /// `counted_once`: one of those loops has no `~` (phase_estimate::counted_once).
  void rounds(unsigned id, std::string_view label, double rounds, bool counted_once = false);

  /// A node of the plan as this run sizes it: what a program's --plan prints, node by
  /// node as `flowc explain` does.
  struct node_estimate {
    unsigned id = 0;
    std::string name;
    unsigned phase = 0;                  ///< where its I/O counts
    std::vector<unsigned> memory_phases; ///< where its memory counts (a queue, array or cache: every phase it lives in)
    std::uint64_t memory_bytes = 0;
    double read_bytes = 0, write_bytes = 0; ///< per round
    /// A queue's configuration (flow::containers::describe). Initialized so that generated
    /// code may leave it out of the braces without a -Wmissing-field-initializers warning.
    std::string queue = {};
  };
  /// Node `n`; its I/O adds to phase n.phase (`label`), as phase() does.
  void node(node_estimate n, std::string_view label);
  /// A node as a generated program lists it before it prices it: which node of its plan,
  /// what the node's estimate calls it and shows it in, and its phase's label. The
  /// program prices each with flow::plan::memory_planner::cost and passes it to node().
  struct listed_node {
    unsigned id = 0;                     ///< the node's index in the program's memory plan
    std::string_view name;
    unsigned phase = 0;                  ///< where its I/O counts
    std::vector<unsigned> memory_phases; ///< where its memory counts
    std::string_view phase_label;
  };
  const std::vector<node_estimate>& nodes() const noexcept { return nodes_; }
  /// Rewrites every phase label and node name (flow::program: the paths given at run time).
  template <class Fn> void relabel(const Fn& fn) {
    for (auto& p : phases_) p.label = fn(p.label);
    for (auto& n : nodes_) n.name = fn(n.name);
  }

  const std::vector<phase_estimate>& phases() const noexcept { return phases_; }
  const phase_estimate* find(unsigned id) const noexcept;
  double read_bytes() const noexcept;  ///< sum over phases, each times its rounds
  double write_bytes() const noexcept; ///< sum over phases, each times its rounds
  void clear() noexcept {
    phases_.clear();
    nodes_.clear();
  }

private:
  std::vector<phase_estimate> phases_;
  std::vector<node_estimate> nodes_;
};

/// The measurement of one phase: the sum over every time it ran (a phase inside a loop
/// runs several times).
struct phase_record {
  unsigned id = 0;
  std::string label;
  unsigned runs = 0;              ///< begin_phase calls with this id
  std::uint64_t elements = 0;     ///< advance() count
  std::uint64_t expected = 0;     ///< expected elements given to begin_phase (last run)
  double wall_seconds = 0;
  /// CPU time of all the process's threads (user + system) while it ran: cpu / wall is
  /// how many cores the phase kept busy.
  double cpu_seconds = 0;
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  double io_wait_seconds = 0;
};

/// Everything the end-of-run report shows.
struct run_report {
  std::string program;
  bool ok = true;
  std::string error;              ///< the error message when !ok
  double wall_seconds = 0;
  double cpu_seconds = 0; ///< of all the process's threads over the body
  std::uint64_t read_bytes = 0, write_bytes = 0;
  double io_wait_seconds = 0;
  double io_busy_seconds = 0;
  std::uint64_t memory_bytes = 0, memory_default_bytes = 0;
  std::uint64_t block_bytes = 0;  ///< 0: not known
  std::uint64_t buffer_peak_bytes = 0;
  std::uint64_t rss_bytes = 0;      ///< resident memory at the end (VmRSS; 0 if unknown)
  std::uint64_t rss_peak_bytes = 0; ///< its peak over the run (VmHWM)
  unsigned threads = 0;
  std::uint64_t seed = 0;
  /// An MPI run (flow/ranks.hpp): its ranks, and the bytes they sent each other in all.
  /// The rest of the report is the first rank's.
  unsigned ranks = 1;
  std::uint64_t network_bytes = 0;
  struct disk {
    std::string path;
    std::uint64_t read_bytes = 0, write_bytes = 0;
  };
  std::vector<disk> disks;        ///< disks (and files) that did I/O
  /// (name, value as JSON: a number, true or false).
  std::vector<std::pair<std::string, std::string>> params;
  std::vector<phase_record> phases;
  flow::estimate estimate;
  /// The estimate with a calibration run's fractions (flowc build --calibrate), if the
  /// program has one, and which run measured them.
  std::optional<flow::estimate> calibrated;
  std::string calibrated_by;
  /// The counted nodes of the plan (flow::node_counts), in id order.
  std::vector<node_count> nodes;
};

/// The report as one JSON object (no newline at the end): program, status ("ok" or
/// "error"), error (only on error), wall_seconds, cpu_seconds, read_bytes, write_bytes,
/// io_wait_seconds, io_busy_seconds, memory_bytes, memory_default_bytes, block_bytes
/// (null if unknown), buffer_peak_bytes, threads, seed, params {name: value},
/// disks [{path, read_bytes, write_bytes}], estimate {read_bytes, write_bytes},
/// calibrated {read_bytes, write_bytes, by} (only in a program built with --calibrate),
/// phases [{id, label, runs, elements, wall_seconds, cpu_seconds, read_bytes, write_bytes,
/// io_wait_seconds, estimate {read_bytes, write_bytes} or null, calibrated (only in a
/// calibrated program) {read_bytes, write_bytes} or null}], nodes [{id, name,
/// elements}] (the counted nodes of the plan; a queue's elements are its pushes),
/// queues [{id, name, pushes, peak}]. Phases are ordered by id; a phase that was
/// estimated but never ran appears with runs 0. Estimated bytes are rounded to whole
/// numbers.
std::string to_json(const run_report& r);

/// The report as an aligned text table (ends with a newline).
std::string to_text(const run_report& r);

/// What one progress line shows: the phase, its elements, the intermediate merge passes
/// of its sorts (work before the first element comes out) and its I/O so far.
struct progress_state {
  unsigned id = 0;
  unsigned phases = 0;            ///< phases in the plan (0: unknown)
  std::string_view label;
  std::uint64_t done = 0;         ///< elements the phase's loops put through (advance)
  std::uint64_t expected = 0;     ///< elements they will put through (0: unknown)
  std::uint64_t merged = 0;       ///< elements of intermediate merge passes done ...
  std::uint64_t merge_total = 0;  ///< ... of those planned (0: none)
  double seconds = 0;             ///< since the phase began
  std::uint64_t io_bytes = 0;     ///< read and written since the phase began
  bool finished = false;
};

/// One progress line (no '\r', no newline) that fits `width` columns (counted in UTF-8
/// characters): "[1/3] label  [=====>    ]  45%  1.20 M/2.62 M  1.10 M/s  17.2 MiB/s
/// 0:12 ETA 0:15". The work is the intermediate merge passes plus the elements, one unit
/// per element merged or put through; the bar, percentage and ETA show when the expected
/// work is known (`expected` > 0, or merge passes still running, shown as "merging runs
/// DONE/TOTAL"). The rates (elements and I/O bytes per second, over the phase so far)
/// are left out first when the line does not fit, then the label is shortened.
std::string progress_line(const progress_state& state, unsigned width);

} // namespace flow

#pragma once
// The program runtime: what the main() of every executable that flowc generates uses.
// It parses the command line (the program's params and the options every Flow program
// takes), checks the input files, opens the disks, seeds rand(), runs the script's body,
// reports errors as one line, draws progress and prints the --stats report.
//
//   #include "flow/program.hpp"
//   static std::uint64_t edges = 1 << 20;     // params: defaults from the script
//   static std::uint64_t nodes = edges / 4;
//
//   int main(int argc, char** argv) {
//     flow::program p("mis", "maximal independent set of a random graph");
//     p.param("edges", edges, "u64", "1 << 20", "number of edges");
//     p.param("nodes", nodes, "u64", "edges / 4", "number of nodes",
//             [] { return edges / 4; });            // a default that depends on params
//     p.memory_default(256ull << 20);               // the script's `memory`
//     p.block_default(1 << 20);                     // the script's `block`, if any
//     p.input_file("edges.bin", 16, "Edge");        // checked before any work
//     p.estimate([&](flow::estimate& e) {           // after the flags: sees real params
//       e.phase(1, "generate at 9:5", 0, 16.0 * edges);
//     });
//     return p.run(argc, argv, [&] {
//       p.begin_phase(1, "generate at 9:5", edges); // expected elements, for progress
//                                                   // (or p.expect(n) once n is known)
//       for (std::uint64_t i = 0; i < edges; ++i) { ...; p.advance(); }
//       p.end_phase();
//       p.print("independent set: ", n, " nodes");  // stdout
//     });
//   }
//
// Exit status of run(): 0 done (or --help); 1 an error in the body or its setup (an
// input file missing, an output whose directory is missing, a disk that cannot be
// created, an io_error, any std::exception), printed as "NAME: error: <what>"; 2 a bad
// flag or value (a --memory no process can address, a --disk locked by another program
// or too small for what the plan is sure to need), printed as "NAME: error: --flag:
// <what>". A fatal signal (SIGINT, SIGTERM, ...) kills the process as usual; temporary
// disk files and unfinished outputs have no name, so even SIGKILL leaves nothing.
//
// The flags (`NAME --help` lists them with the params):
//   --NAME=VALUE, --NAME VALUE   a param (also --NA-ME for NA_ME); a bool param alone
//                                (--flag) means true
//   --memory SIZE                memory budget, overrides the script's (256MiB, 1GiB, ...)
//   --block SIZE                 block size, a power of two >= 4 KiB
//   --disk PATH[:SIZE][:keep]    a disk; repeatable (default: a temporary file in
//                                $TMPDIR or /var/tmp, unlinked as soon as it is open)
//   --direct on|off              O_DIRECT for disk files (default on)
//   --threads N                  threads the program may use (flow::threads())
//   --seed N                     seed of rand() (default 1; see flow/program/rand.hpp)
//   --stats[=text|json][:PATH]   the report at the end, to stderr or to PATH
//   --progress[=off]             a progress bar per phase on stderr if it is a terminal (default on)
//   --trace PATH                 the run's timeline as Chrome trace-event JSON (phases,
//                                I/O counters; flow/program/trace.hpp), written at the end
//   --help, -h                   the flags and params, exit 0
//
// Threads: a program and its flags are used from the thread that calls run();
// advance() and print() are not synchronized.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flow/defaults.hpp"
#include "flow/io/error.hpp"
#include "flow/io/stats.hpp"
#include "flow/program/flags.hpp"
#include "flow/program/rand.hpp"
#include "flow/program/report.hpp"
#include "flow/program/trace.hpp"

namespace flow {

namespace plan {
struct memory_node;
struct memory_shortfall;
class memory_planner;
} // namespace plan

namespace detail {
class report_output;

/// Appends a print() argument: integers in decimal (also i8/u8), bool as true/false,
/// floats in their shortest round-trip form, strings as they are, else operator<<.
void append_text(std::string& out, std::string_view s);
void append_text(std::string& out, const char* s);
void append_text(std::string& out, const std::string& s);
void append_text(std::string& out, char c);
void append_text(std::string& out, bool b);
void append_signed(std::string& out, long long v);
void append_unsigned(std::string& out, unsigned long long v);
void append_float(std::string& out, double v, unsigned bits);
template <class T> void append_value(std::string& out, const T& v);
} // namespace detail

class program {
public:
  /// Memory budget when the program never calls memory_default (the planner's default).
  static constexpr std::uint64_t fallback_memory = std::uint64_t{1} << 30;

  /// `name` starts every message ("mis: error: ..."); `description` heads --help.
  explicit program(std::string name, std::string description = {});
  ~program();
  program(const program&) = delete;
  program& operator=(const program&) = delete;

  // ---- declarations: before run() --------------------------------------------------

  /// A param `--NAME=VALUE` written into `variable` (bool, any integer of 8 to 64 bits,
  /// float, double), whose current value is its default. `type` is the script's type
  /// name and must match T (bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64);
  /// `default_text` is the default as the script writes it (for --help). Throws
  /// std::logic_error on a duplicate name, a name an option uses, or a type mismatch.
  template <class T>
  void param(std::string_view name, T& variable, std::string_view type,
             std::string_view default_text, std::string_view description);
  /// The same for a default that depends on earlier params: if the flag is not given,
  /// `variable = default_value()` after all flags are parsed, in declaration order.
  template <class T, class F>
  void param(std::string_view name, T& variable, std::string_view type,
             std::string_view default_text, std::string_view description, F default_value);

  /// A param of type `path`: a file name `--NAME=FILE` written into `variable`, whose
  /// current value is its default (`-` means standard input or output). `type` must be
  /// "path"; an empty value is a bad flag.
  void param(std::string_view name, std::string& variable, std::string_view type,
             std::string_view default_text, std::string_view description);

  /// What --version prints before the runtime's version: where the program comes from
  /// ("built by flowc 0.1.0 from mis.flow, script 1f2e…").
  void origin(std::string text) { origin_ = std::move(text); }

  /// The script's memory budget in bytes (--memory overrides it).
  void memory_default(std::uint64_t bytes);
  /// The script's block size (its `block`; a multiple of 4096). Without it the block
  /// size follows the budget (see block()).
  void block_default(std::uint64_t bytes);
  /// A file the script reads as elements of `element_bytes` bytes: run() checks, before
  /// any work, that it exists, is readable and that its size is a multiple of
  /// `element_bytes` (`type_name`, e.g. "Edge", makes the message clearer); else it prints
  /// the error and returns 1. A text file (`type_name` text_input) may have any size: its
  /// lines are estimated from the newlines of its first MiB (exact for a smaller file).
  /// The file `-` (standard input), a pipe or a device is not checked and has no size
  /// known up front (input_size_known is false). Nor is a file that the script also
  /// writes (output_file): the script may create it before reading it.
  void input_file(std::string path, std::size_t element_bytes, std::string type_name = {});
  /// The type_name of a text file's input_file.
  static constexpr const char* text_input = "text";
  /// The same for a path that a param gives: `path()` is called after the flags are
  /// parsed (e.g. [&] { return input; }).
  void input_file(std::function<std::string()> path, std::size_t element_bytes, std::string type_name = {});
  /// A file the script writes (its path now, or from a param after the flags): an
  /// input_file that names the same file (the same name, or the same file on disk) is
  /// not checked at start, since the script may write it before reading it.
  /// run() also checks, before any work, that each output can be written: its directory
  /// exists and is writable (the output is written to a temporary there and renamed
  /// over the target), and the target is not a directory; else it prints the error and
  /// returns 1. `-` (standard output) is not checked.
  void output_file(std::function<std::string()> path);
  void output_file(std::string path);
  /// The planner's estimate, called by run() after the flags are parsed and the input
  /// files checked (so it may use params and input_elements()). Generated programs make
  /// their memory plan here too; a usage_error it throws (memory_too_small) ends run()
  /// with exit status 2 before any work.
  void estimate(std::function<void(flow::estimate&)> fill);
  /// A second estimate, with the fractions a calibration run measured (`flowc build
  /// --calibrate`) in place of the planner's assumptions, for the memory split estimate()
  /// made: called after it, shown by --stats beside it. `by` says which run measured them
  /// ("a run at edges=1048576").
  void calibrated_estimate(std::string by, std::function<void(flow::estimate&)> fill);
  /// From the estimate: phase `phase` (`label`) is sure to need at least `bytes` of
  /// temporary disk at once (a sort's runs, whose count is exact: input files of known
  /// size, generate and range counts, a read's `~ N`). If every --disk has a SIZE and
  /// together they hold less than the largest such need, run() stops before any work
  /// with exit status 2 and a message naming the phase and both sizes.
  void disk_need(unsigned phase, std::string_view label, std::uint64_t bytes);
  /// The per-node counters the generated code increments (flow/program/node_counts.hpp):
  /// the report (--stats) lists the counted ones. They must outlive run().
  void count_nodes(node_counts counts) { node_counts_ = counts; }

  // ---- running -----------------------------------------------------------------------

  /// Parses the flags, then (unless --help) checks the input files, opens the disks and
  /// installs them as the global block manager, sets threads() and the seed of rand(),
  /// evaluates the estimate, runs `body` and reports. Returns the exit status (see top).
  int run(int argc, char** argv, const std::function<void()>& body);

  /// Parses the flags without running anything (run() uses it): writes params into their
  /// variables, evaluates dependent defaults, and returns the options. Throws
  /// usage_error on a bad flag or value. Exposed for tests.
  const program_options& parse(int argc, const char* const* argv);
  /// The --help text.
  std::string help() const;

  // ---- queries (valid after parse) -------------------------------------------------

  const program_options& flags() const noexcept { return options_; }
  const std::string& name() const noexcept { return name_; }
  /// The budget: --memory, else memory_default, else fallback_memory.
  std::uint64_t memory() const noexcept;
  /// The script's budget (memory_default(bytes)), else fallback_memory.
  std::uint64_t memory_default() const noexcept {
    return memory_default_ ? memory_default_ : fallback_memory;
  }
  /// Called by the generated memory plan when a phase cannot hold the minimums of its
  /// nodes within memory() (`shortfall`): throws usage_error naming --memory, the phase,
  /// what it needs, the in-memory arrays (name, bytes) that live in it, and the least
  /// budget whose plan of `nodes` fits (plan::least_budget, with the blocks each budget
  /// gets): that budget runs, and one a little below it names the same.
  [[noreturn]] void memory_too_small(const plan::memory_shortfall& shortfall,
                                     const std::vector<plan::memory_node>& nodes,
                                     const std::vector<std::pair<std::string, std::uint64_t>>& arrays = {}) const;
  /// Called by the generated estimate with every node it lists: a hash join whose right
  /// input does not fit its table at this run's budget (a program built for more, or an
  /// input larger than its `~ N`) reads its left input once per pass, so a warning at
  /// start says how many passes and what helps.
  void warn_hash_join_passes(const plan::memory_planner& planner, const std::vector<plan::memory_node>& nodes,
                             std::span<const estimate::listed_node> listed) const;
  /// The block size: --block, else block_default, else block_for_memory(memory()) —
  /// flow::block_size, the rule flowc's planner follows, so the program's plan is the
  /// one `flowc explain --memory ... --block ...` shows.
  std::uint64_t block() const noexcept;
  unsigned threads() const noexcept;
  std::uint64_t seed() const noexcept { return options_.seed; }
  /// Elements in a registered input file (its size / element_bytes); after the check.
  /// 0 when the size is not known (see input_size_known).
  std::uint64_t input_elements(std::string_view path) const;
  /// Whether the size of a registered input file was known at start: false for `-`,
  /// pipes and devices, and files the script also writes.
  bool input_size_known(std::string_view path) const;
  /// The bytes a line of a registered text input is planned at for this run: its size
  /// over its lines (plan::text_line_bytes), or `planned` when not known at start.
  std::uint64_t input_line_bytes(std::string_view path, std::uint64_t planned) const;
  /// Whether param `name` was given on the command line.
  bool given(std::string_view name) const;

  /// The program's generator (the same as flow::rand()).
  std::uint64_t rand() noexcept { return flow::rand(); }
  std::uint64_t rand(std::uint64_t n) noexcept { return flow::rand(n); }

  // ---- phases, progress, output (inside the body) ----------------------------------

  /// Starts measuring phase `id` (ends an open one first). `expected_elements` (0 if
  /// unknown) is what advance() counts towards, for the progress bar: the run's own
  /// counts (params as given, input file sizes, a sort's element count for its merge).
  /// A sort's intermediate merge passes in the phase add their elements to its work
  /// (flow/progress.hpp), so the bar moves while they run.
  void begin_phase(unsigned id, std::string_view label, std::uint64_t expected_elements = 0);
  /// One (or n) elements done in the current phase: an add and a compare. With a
  /// progress bar or a --trace, the clock is read every 25-100 ms (the call interval
  /// adapts), the bar redrawn and the trace's counters sampled at most 10 times a
  /// second; without them, nothing else ever happens.
  void advance(std::uint64_t n = 1) noexcept {
    count_ += n;
    if (count_ >= next_tick_) tick();
  }
  /// Adds `elements` to what the open phase is expected to put through (no-op if none):
  /// for counts known only once its nodes exist (a merge's, a file reader's) or its loop
  /// starts (a generate's). Generated code calls it right after begin_phase.
  void expect(std::uint64_t elements) noexcept {
    if (!phase_open_) return;
    phase_expected_ += elements;
    if (progress_) redraw_progress(); // the bar drawn at begin_phase had no total yet
  }
  /// Ends the open phase (no-op if none).
  void end_phase();

  /// Prints the arguments and a newline on stdout (see detail::append_text for the
  /// formats). Clears a progress line first, so the two do not mix on a terminal.
  /// stdout keeps its usual buffering; run() flushes it (and std::cout) before it
  /// prints an error or the --stats report, so stdout text always comes first.
  template <class... A> void print(const A&... args) {
    std::string line;
    (detail::append_value(line, args), ...);
    line += '\n';
    write_stdout(line);
  }

  // ---- results (after run; for tests) ----------------------------------------------

  /// The report of the last run (or of what ran so far).
  const run_report& report() const noexcept { return report_; }

private:
  /// `label` (a phase's or node's, as the compiler wrote it: `read input="in.bin"`) with
  /// each path param's default replaced by the path this run was given (`input="mine.bin"`).
  std::string with_given_paths(std::string_view label) const;
  struct param_info {
    std::string name;
    std::string type;
    std::string default_text;
    std::string description;
    bool is_bool = false;
    std::function<void(std::string_view)> set; // throws std::invalid_argument
    std::function<std::string()> text;         // current value, as in --help
    std::function<std::string()> json;         // current value as a JSON value
    std::function<void()> apply_default;       // empty: the variable's value is the default
    bool given = false;
  };
  struct input_info {
    std::string path;
    std::size_t element_bytes = 0;
    std::string type_name;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;              // its size, when known
    std::function<std::string()> path_fn; // a path param's value, read after the flags
    bool known = false;                   // the size was checked at start
  };

  template <class T> static constexpr std::string_view type_name_of();
  template <class T> void add_param(std::string_view name, T& variable, std::string_view type,
                                    std::string_view default_text, std::string_view description,
                                    std::function<void()> apply_default);
  void add_param_info(param_info info);
  void tick() noexcept;
  static void on_intermediate_merge(void* self, std::uint64_t done, std::uint64_t total) noexcept;
  void sample_trace(std::chrono::steady_clock::time_point now);
  /// CPU time of all the process's threads so far, user and system (CLOCK_PROCESS_CPUTIME_ID).
  static double cpu_seconds() noexcept;
  void write_stdout(const std::string& text);
  void clear_progress_line() noexcept;
  void draw_progress(bool finished);
  void redraw_progress() noexcept;
  int run_checked(const std::function<void()>& body);
  int fail(int status, const std::string& message);
  // The steps of run_checked (src/program/run.cpp, file_checks.cpp). A step that returns
  // a status has printed why the run stops; run() returns that status.
  std::vector<std::string> output_paths() const;
  std::optional<int> check_input_files(const std::vector<std::string>& outputs);
  std::optional<int> check_output_files(const std::vector<std::string>& outputs);
  void apply_settings();
  std::optional<int> estimate_run();
  int print_plan();
  std::optional<int> check_disk_space(const mng::disk_config& disks);
  /// Runs `body` with the phases' progress and (if `trace`) the trace; the error that
  /// stopped it, if any.
  std::optional<std::string> run_body(const std::function<void()>& body, bool trace);
  void collect_report(const std::optional<std::string>& error);
  std::optional<int> write_reports(detail::report_output* stats_file, detail::report_output* trace_file);

  std::string name_;
  std::string description_;
  std::string origin_; // --version
  std::vector<param_info> params_;
  std::vector<input_info> inputs_;
  std::vector<std::function<std::string()>> outputs_;
  struct disk_need_record {
    unsigned phase = 0;
    std::string label;
    std::uint64_t bytes = 0;
  } disk_need_; // the largest disk_need() of this run
  std::function<void(flow::estimate&)> estimate_fn_;
  std::function<void(flow::estimate&)> calibrated_fn_;
  std::string calibrated_by_;
  node_counts node_counts_;
  std::uint64_t memory_default_ = 0;
  std::uint64_t block_default_ = 0; // 0: the script sets none
  program_options options_;
  run_report report_;

  // the open phase and the progress bar
  std::uint64_t count_ = 0;
  std::uint64_t next_tick_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t tick_interval_ = 1024;
  bool phase_open_ = false;
  bool progress_ = false;      // stderr is a terminal, and not --progress=off
  bool line_shown_ = false;    // a progress line is on the terminal
  bool stdout_tty_ = false;
  unsigned phase_id_ = 0;
  std::string phase_label_;
  std::uint64_t phase_expected_ = 0;
  std::chrono::steady_clock::time_point phase_start_{}, last_tick_{}, last_draw_{};
  io::stats_snapshot phase_io_start_;
  double phase_cpu_start_ = 0;
  // intermediate merge passes in the open phase: those of earlier merges, and the current one's
  std::uint64_t merged_earlier_ = 0, merged_ = 0, merge_total_ = 0;
  std::chrono::steady_clock::time_point merge_start_{};
  bool merge_open_ = false; // its passes have begun and not yet ended (one trace span)

  // --trace: the timeline, with times since the run started
  std::unique_ptr<trace_recorder> trace_;
  std::chrono::steady_clock::time_point run_start_{}, last_sample_{};
  io::stats_snapshot run_io_start_;
  double run_cpu_start_ = 0;
};

// ---- templates ------------------------------------------------------------------------

template <class T> constexpr std::string_view program::type_name_of() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1) return "i8";
    else if constexpr (sizeof(T) == 2) return "i16";
    else if constexpr (sizeof(T) == 4) return "i32";
    else return "i64";
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) == 1) return "u8";
    else if constexpr (sizeof(T) == 2) return "u16";
    else if constexpr (sizeof(T) == 4) return "u32";
    else return "u64";
  } else if constexpr (std::is_same_v<T, float>) return "f32";
  else return "f64";
}

template <class T>
void program::add_param(std::string_view name, T& variable, std::string_view type,
                        std::string_view default_text, std::string_view description,
                        std::function<void()> apply_default) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, long double> &&
                    !std::is_same_v<T, char> && sizeof(T) <= 8,
                "a param is a bool, an integer of 8 to 64 bits, a float or a double");
  constexpr std::string_view own_type = type_name_of<T>();
  if (!type.empty() && type != own_type) {
    throw std::logic_error("flow::program::param: '" + std::string(name) + "' is declared " +
                           std::string(type) + " but its variable is a " +
                           std::string(own_type));
  }
  param_info info;
  info.name = std::string(name);
  info.type = std::string(own_type);
  info.default_text = std::string(default_text);
  info.description = std::string(description);
  info.is_bool = std::is_same_v<T, bool>;
  T* v = &variable;
  info.set = [v](std::string_view text) {
    if constexpr (std::is_same_v<T, bool>) *v = flags::parse_bool(text);
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      *v = static_cast<T>(flags::parse_signed(text, sizeof(T) * 8, type_name_of<T>()));
    else if constexpr (std::is_integral_v<T>)
      *v = static_cast<T>(flags::parse_unsigned(text, sizeof(T) * 8, type_name_of<T>()));
    else *v = static_cast<T>(flags::parse_float(text, sizeof(T) * 8, type_name_of<T>()));
  };
  info.text = [v] {
    std::string s;
    detail::append_value(s, *v);
    return s;
  };
  info.json = [v]() -> std::string {
    if constexpr (std::is_floating_point_v<T>) {
      if (!(*v == *v) || *v > std::numeric_limits<T>::max() || *v < -std::numeric_limits<T>::max())
        return "null";
    }
    std::string s;
    detail::append_value(s, *v);
    return s;
  };
  info.apply_default = std::move(apply_default);
  add_param_info(std::move(info));
}

// The param types a script has are compiled once, in libflow_runtime (src/program/declarations.cpp):
// programs call them instead of instantiating add_param (and its three std::functions).
#define FLOW_PARAM_TYPES(X)                                                                                     \
  X(bool) X(std::int8_t) X(std::int16_t) X(std::int32_t) X(std::int64_t) X(std::uint8_t) X(std::uint16_t)      \
  X(std::uint32_t) X(std::uint64_t) X(float) X(double)
#define FLOW_DECLARE_ADD_PARAM(T)                                                                               \
  extern template void program::add_param<T>(std::string_view, T&, std::string_view, std::string_view,         \
                                             std::string_view, std::function<void()>);
FLOW_PARAM_TYPES(FLOW_DECLARE_ADD_PARAM)
#undef FLOW_DECLARE_ADD_PARAM

template <class T>
void program::param(std::string_view name, T& variable, std::string_view type,
                    std::string_view default_text, std::string_view description) {
  add_param(name, variable, type, default_text, description, {});
}

template <class T, class F>
void program::param(std::string_view name, T& variable, std::string_view type,
                    std::string_view default_text, std::string_view description,
                    F default_value) {
  T* v = &variable;
  add_param(name, variable, type, default_text, description,
            [v, f = std::move(default_value)]() mutable { *v = static_cast<T>(f()); });
}

namespace detail {
template <class T> void append_value(std::string& out, const T& v) {
  using U = std::decay_t<T>;
  if constexpr (std::is_same_v<U, bool> || std::is_same_v<U, char>) append_text(out, v);
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    append_signed(out, static_cast<long long>(v));
  else if constexpr (std::is_integral_v<U>) append_unsigned(out, static_cast<unsigned long long>(v));
  else if constexpr (std::is_floating_point_v<U>)
    append_float(out, static_cast<double>(v), sizeof(U) == 4 ? 32 : 64);
  else if constexpr (std::is_convertible_v<const U&, std::string_view>)
    append_text(out, std::string_view(v));
  else {
    std::ostringstream o; // anything with operator<< (imported C++ types)
    o << v;
    out += o.str();
  }
}
} // namespace detail

} // namespace flow

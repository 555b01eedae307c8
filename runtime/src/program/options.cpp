// The options every Flow program takes, one table row each: how the value is read and
// what --help says (options.hpp).
#include "options.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "flow/defaults.hpp"
#include "flow/excerpt.hpp"
#include "flow/format.hpp"
#include "flow/mng/config.hpp"
#include "flow/program/rand.hpp"
#include "flow/ranks.hpp"

namespace flow::detail {

std::string_view flag_argument::take_value(const std::string& what) {
  if (inline_value_) return *inline_value_;
  if (index_ + 1 >= args_.size() || args_[index_ + 1].substr(0, 2) == "--") {
    throw error(flag + " needs a value (" + what + ")");
  }
  return args_[++index_];
}

std::optional<std::string_view> flag_argument::take_bool_value() {
  if (index_ + 1 < args_.size() && flags::is_bool(args_[index_ + 1])) return args_[++index_];
  return std::nullopt;
}

void flag_argument::no_value() const {
  if (inline_value_) throw error(flag + " takes no value");
}

namespace {

// The largest --memory a process could ever hold: the user address space of a 64-bit
// Linux process (2^47 bytes, 128 TiB, on x86-64 with 4-level page tables), or less under
// `ulimit -v` (RLIMIT_AS).
std::uint64_t addressable_memory() {
  std::uint64_t limit = sizeof(void*) >= 8 ? std::uint64_t{1} << 47 : std::uint64_t{3} << 30;
  struct rlimit rl;
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = std::min<std::uint64_t>(limit, static_cast<std::uint64_t>(rl.rlim_cur));
  return limit;
}

void read_memory(flag_argument& arg, program_options& options) {
  const std::string_view text = arg.take_value("a size, e.g. 256MiB, or a share of physical memory, e.g. 50%");
  const bool share = !text.empty() && text.back() == '%';
  const std::optional<std::uint64_t> of_physical = share ? flow::memory_share(text) : std::nullopt;
  if (share && !of_physical)
    throw arg.error("--memory: '" + std::string(text) + "' is not a share of physical memory; write a percentage "
                    "above 0 and at most 100, e.g. 50%");
  const std::uint64_t m = share ? *of_physical : mng::parse_size(text);
  if (m < flow::min_memory_bytes) // the rule of a script's `memory` too
    throw arg.error("--memory: a budget below 4 KiB leaves no room for even one block; " + std::to_string(m) +
                    " bytes given");
  const std::uint64_t limit = addressable_memory();
  if (m > limit) {
    // Not a budget the planner can divide (its products would overflow) nor one a
    // process can hold: a typo, not a wish to swap. Budgets above physical memory
    // but within this limit are taken (with a warning when the run starts).
    throw arg.error("--memory: " + std::string(text) + " is more than a process can address here (" +
                    flow::format_bytes(limit) + "); give a budget such as 4GiB");
  }
  options.memory = m;
}

std::string describe_memory(const help_defaults& d) {
  return "memory budget of the whole program, e.g. 256MiB, 4GiB or 50% (of physical memory) (default " +
         flow::format_bytes(d.memory) +
         (d.script_memory ? ", the script's" : "") + "); every sort and queue gets its planned share of it";
}

void read_block(flag_argument& arg, program_options& options) {
  const std::string_view v = arg.take_value("a size, e.g. 1MiB");
  const std::uint64_t b = mng::parse_size(v);
  if (b < 4096 || (b & (b - 1)) != 0)
    throw arg.error("--block: '" + excerpt(v) + "' is not a power of two of at least 4 KiB (e.g. 64KiB, 1MiB)");
  options.block = b;
}

std::string describe_block(const help_defaults& d) {
  return "block size of external memory, a power of two of at least 4KiB (default " +
         (d.script_block ? flow::format_bytes(d.script_block) + ", the script's"
                         : "the size for the budget: " + flow::format_bytes(block_for_memory(d.memory)) + " for " +
                               flow::format_bytes(d.memory) + ", 64KiB to 4MiB as --memory goes") +
         ")";
}

void read_disk(flag_argument& arg, program_options& options) {
  // `%r` is the rank (flow/ranks.hpp): each rank of an MPI run gets a disk of its own.
  std::string value(arg.take_value("PATH[:SIZE]"));
  for (std::size_t at; (at = value.find("%r")) != std::string::npos;)
    value.replace(at, 2, std::to_string(ranks::rank()));
  options.disks.push_back(mng::disk_spec::parse(value));
}

std::string describe_disk(const help_defaults&) {
  return "disk for external memory, repeatable: a directory (a temporary file inside, "
         "unlinked at once so nothing is left), a file or device (used as is and locked; "
         ":keep keeps a file the program creates), or :memory:; SIZE caps what is used on it; "
         "%r in PATH is the rank of an MPI run "
         "(default: a temporary file in " +
         mng::disk_config::default_directory() + ")";
}

void read_direct(flag_argument& arg, program_options& options) {
  const std::string_view v = arg.take_value("on or off");
  if (!flags::is_bool(v)) throw arg.error("--direct: '" + excerpt(v) + "' is not on or off");
  options.direct = flags::parse_bool(v);
}

std::string describe_direct(const help_defaults&) {
  return "O_DIRECT for disk files, bypassing the page cache (default on)";
}

void read_threads(flag_argument& arg, program_options& options) {
  const std::uint64_t t = flags::parse_unsigned(arg.take_value("a number of threads"), 64, "a thread count");
  if (t < 1 || t > 4096) throw arg.error("--threads: " + std::to_string(t) + " is not between 1 and 4096");
  options.threads = static_cast<unsigned>(t);
}

std::string describe_threads(const help_defaults&) {
  return "threads the program may use: sorts, merges, queues, hash tables, maps in batches (default $FLOW_THREADS if set, else the CPUs available: " +
         std::to_string(hardware_threads()) + ")";
}

void read_seed(flag_argument& arg, program_options& options) {
  options.seed = flags::parse_unsigned(arg.take_value("a number from 0 to 2^64-1"), 64, "u64");
}

std::string describe_seed(const help_defaults&) {
  return "seed of rand() (default " + std::to_string(default_seed) + ")";
}

// --stats[=text|json][:PATH]: its value only after '=', so a script's next flag is never
// taken for it.
void read_stats(flag_argument& arg, program_options& options) {
  options.stats = stats_format::text; // the last --stats wins, with its path
  options.stats_path.clear();
  if (!arg.inline_value()) return;
  const std::string_view value = *arg.inline_value();
  const std::size_t colon = value.find(':');
  const std::string_view format = value.substr(0, colon);
  if (format == "text") options.stats = stats_format::text;
  else if (format == "json") options.stats = stats_format::json;
  else throw arg.error("--stats: '" + excerpt(value) + "' is not text, json, text:PATH or json:PATH");
  if (colon != std::string_view::npos) {
    options.stats_path = std::string(value.substr(colon + 1));
    if (options.stats_path.empty()) throw arg.error("--stats: '" + excerpt(value) + "' has no path after ':'");
  }
}

std::string describe_stats(const help_defaults&) {
  return "at the end, time, I/O and I/O wait per phase beside the estimate: FORMAT text "
         "(default) or json, to stderr, or text:PATH / json:PATH to a file";
}

void read_progress(flag_argument& arg, program_options& options) {
  const std::optional<std::string_view> value = arg.inline_value();
  if (!value || *value == "on") options.progress = true;
  else if (*value == "off") options.progress = false;
  else throw arg.error("--progress: '" + excerpt(*value) + "' is not on or off");
}

std::string describe_progress(const help_defaults&) {
  return "a progress bar per phase on stderr, with percent and ETA where the phase's count is known; "
         "on by default when stderr is a terminal (--progress=off: never)";
}

void read_trace(flag_argument& arg, program_options& options) {
  options.trace_path = std::string(arg.take_value("a file for the timeline, e.g. run.trace.json"));
  if (options.trace_path.empty()) throw arg.error("--trace: the path is empty");
}

std::string describe_trace(const help_defaults&) {
  return "the run's timeline (phases, bytes read and written, I/O wait) as Chrome "
         "trace-event JSON, for chrome://tracing or ui.perfetto.dev";
}

void read_plan(flag_argument& arg, program_options& options) {
  options.plan = stats_format::text;
  if (!arg.inline_value()) return;
  const std::string_view value = *arg.inline_value();
  if (value == "json") options.plan = stats_format::json;
  else if (value != "text") throw arg.error("--plan: '" + excerpt(value) + "' is not text or json");
}

std::string describe_plan(const help_defaults&) {
  return "print the plan this run would use and exit without running: the block size, each phase's "
         "and node's memory and estimated I/O, the queues' configuration; FORMAT text (default) or json "
         "(the fields of flowc explain --format json)";
}

std::string describe_help(const help_defaults&) { return "this help"; }

std::string describe_version(const help_defaults&) {
  return "where the program comes from (flowc, script) and the runtime's version";
}

constexpr option_row options_table[] = {
    {"memory", "--memory SIZE", read_memory, describe_memory},
    {"block", "--block SIZE", read_block, describe_block},
    {"disk", "--disk PATH[:SIZE]", read_disk, describe_disk},
    {"direct", "--direct on|off", read_direct, describe_direct},
    {"threads", "--threads N", read_threads, describe_threads},
    {"seed", "--seed N", read_seed, describe_seed},
    {"stats", "--stats[=FORMAT]", read_stats, describe_stats},
    {"progress", "--progress[=off]", read_progress, describe_progress},
    {"trace", "--trace PATH", read_trace, describe_trace},
    {"plan", "--plan[=FORMAT]", read_plan, describe_plan},
    {"help", "--help, -h", nullptr, describe_help},
    {"version", "--version", nullptr, describe_version},
};

} // namespace

std::span<const option_row> builtin_options() { return options_table; }

void read_threads_from_environment(program_options& options) {
  const char* value = std::getenv("FLOW_THREADS");
  if (options.threads || !value) return;
  const std::optional<unsigned> t = environment_threads();
  if (!t)
    throw usage_error("FLOW_THREADS",
                      "FLOW_THREADS: '" + excerpt(value) + "' is not a thread count between 1 and 4096");
  options.threads = *t;
}

bool is_builtin_option(std::string_view name) {
  for (const auto& o : options_table)
    if (name == o.name) return true;
  return name == "h";
}

std::string normalize_flag_name(std::string_view name) {
  std::string n(name);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

} // namespace flow::detail

// flow::program: the command line, setup, phases, progress and report of a Flow
// executable. See flow/program.hpp.
#include "flow/format.hpp"
#include "flow/excerpt.hpp"
#include "flow/program.hpp"
#include "flow/version.hpp"

#include "flow/io/atomic_output.hpp"
#include "flow/io/standard_streams.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <iostream>
#include <new>
#include <thread>

#include "flow/io/buffer.hpp"
#include "flow/io/error.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/progress.hpp"
#include "flow/program/run_plan.hpp"

namespace flow {

// ---- globals ---------------------------------------------------------------------------

namespace {
std::atomic<unsigned> g_threads{0};
} // namespace

unsigned threads() noexcept {
  const unsigned t = g_threads.load(std::memory_order_relaxed);
  return t ? t : hardware_threads();
}

void set_threads(unsigned n) noexcept { g_threads.store(n, std::memory_order_relaxed); }

namespace detail {
void append_text(std::string& out, std::string_view s) { out += s; }
void append_text(std::string& out, const char* s) { out += s ? s : "(null)"; }
void append_text(std::string& out, const std::string& s) { out += s; }
void append_text(std::string& out, char c) { out += c; }
void append_text(std::string& out, bool b) { out += b ? "true" : "false"; }
void append_signed(std::string& out, long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void append_unsigned(std::string& out, unsigned long long v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
void append_float(std::string& out, double v, unsigned bits) { out += flags::format_float(v, bits); }
} // namespace detail

// ---- helpers ---------------------------------------------------------------------------

namespace {

// The runtime's messages start with "flow: "; ours put the program's name first.
std::string clean_message(std::string_view what) {
  std::string s(what);
  if (s.rfind("flow: ", 0) == 0) s.erase(0, 6);
  for (auto& c : s)
    if (c == '\n') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string normalize(std::string_view name) {
  std::string n(name);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

struct option_doc {
  const char* name;   // without "--"
  const char* syntax; // as shown in --help
  bool takes_value;   // a separate or '=' value (stats: only '=')
};

constexpr option_doc builtin_options[] = {
    {"memory", "--memory SIZE", true},
    {"block", "--block SIZE", true},
    {"disk", "--disk PATH[:SIZE]", true},
    {"direct", "--direct on|off", true},
    {"threads", "--threads N", true},
    {"seed", "--seed N", true},
    {"stats", "--stats[=FORMAT]", false},
    {"progress", "--progress", false},
    {"trace", "--trace PATH", true},
    {"plan", "--plan[=FORMAT]", false},
    {"help", "--help, -h", false},
    {"version", "--version", false},
};

bool is_builtin(std::string_view name) {
  for (const auto& o : builtin_options)
    if (name == o.name) return true;
  return name == "h";
}

std::string errno_text(int e) { return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")"; }

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

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

// Why `path` cannot be written as an output ("" if it can): the checks atomic_output's
// temporary and rename will need, made before the work.
std::string output_problem(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory; give a file name";
    if (!S_ISREG(st.st_mode)) { // a device or FIFO, written in place
      return ::access(path.c_str(), W_OK) == 0 ? "" : errno_text(errno);
    }
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) {
    const int e = errno;
    return "its directory '" + dir + "' " +
           (e == ENOENT ? std::string("does not exist; create it first (mkdir -p '" + dir + "') or give another path")
                        : "cannot be used: " + errno_text(e));
  }
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "its directory '" + dir + "' is not writable (" + errno_text(errno) +
           "); the output is written next to it first and renamed over it at the end";
  }
  return "";
}

// A file the program writes at the end (--stats=FORMAT:PATH, --trace PATH): opened
// before any work, so that a bad path fails now rather than after it, and written like the
// script's outputs (io::atomic_output): a file from an earlier run stays until this run's
// is complete.
class report_output {
public:
  /// Throws usage_error naming `flag` when `path` cannot be written.
  report_output(std::string flag, std::string path) : flag_(std::move(flag)), path_(std::move(path)) {
    try {
      output_ = std::make_unique<io::atomic_output>(path_);
    } catch (const io_error& e) {
      throw usage_error(flag_, flag_ + ": cannot write '" + path_ + "': " + errno_text(e.error_number()));
    }
    file_ = std::fopen(output_->path().c_str(), "w");
    if (!file_) throw usage_error(flag_, flag_ + ": cannot write '" + path_ + "': " + errno_text(errno));
  }
  ~report_output() {
    if (file_) std::fclose(file_);
  }
  report_output(const report_output&) = delete;
  report_output& operator=(const report_output&) = delete;

  /// Writes `text` as the whole file and puts it in place; returns the error, or "".
  std::string write(const std::string& text, const std::string& what) {
    std::fwrite(text.data(), 1, text.size(), file_);
    const bool bad = std::fflush(file_) != 0 || std::ferror(file_);
    const int e = errno;
    std::fclose(file_);
    file_ = nullptr;
    if (bad) return "cannot write " + what + " to '" + path_ + "': " + errno_text(e);
    try {
      output_->commit();
    } catch (const io_error& err) {
      return err.what();
    }
    return "";
  }

private:
  std::string flag_, path_;
  std::unique_ptr<io::atomic_output> output_; // declared first: the file closes first
  std::FILE* file_ = nullptr;
};

unsigned terminal_width() {
  struct winsize ws;
  if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

// Word-wraps `text` to `width` columns, continuation lines indented by `indent`.
std::string wrap(const std::string& text, std::size_t first_col, std::size_t indent, std::size_t width) {
  std::string out;
  std::size_t col = first_col;
  std::size_t i = 0;
  bool first_word = true;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    const std::string word = text.substr(i, j - i);
    if (!first_word && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!first_word) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first_word = false;
    i = j + 1;
  }
  return out;
}

} // namespace

// ---- declarations ----------------------------------------------------------------------

program::program(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {
  report_.program = name_;
}

program::~program() = default;

void program::add_param_info(param_info info) {
  const std::string n = normalize(info.name);
  if (info.name.empty() || is_builtin(info.name) || is_builtin(n)) {
    throw std::logic_error("flow::program::param: '" + info.name +
                           "' cannot be a param name: the option --" + info.name +
                           " of every program has it");
  }
  for (const auto& p : params_) {
    if (normalize(p.name) == n) {
      throw std::logic_error("flow::program::param: '" + info.name + "' is declared twice");
    }
  }
  params_.push_back(std::move(info));
}

void program::memory_default(std::uint64_t bytes) {
  if (bytes == 0) throw std::logic_error("flow::program::memory_default: a budget of 0 bytes");
  memory_default_ = bytes;
}

void program::block_default(std::uint64_t bytes) {
  if (bytes == 0 || bytes % 4096 != 0) {
    throw std::logic_error("flow::program::block_default: " + std::to_string(bytes) +
                           " bytes is not a positive multiple of 4096");
  }
  block_default_ = bytes;
}

void program::input_file(std::string path, std::size_t element_bytes, std::string type_name) {
  if (element_bytes == 0) throw std::logic_error("flow::program::input_file: element size 0");
  inputs_.push_back({std::move(path), element_bytes, std::move(type_name), 0, {}, false});
}

void program::input_file(std::function<std::string()> path, std::size_t element_bytes, std::string type_name) {
  if (element_bytes == 0) throw std::logic_error("flow::program::input_file: element size 0");
  inputs_.push_back({{}, element_bytes, std::move(type_name), 0, std::move(path), false});
}

void program::output_file(std::function<std::string()> path) { outputs_.push_back(std::move(path)); }

void program::output_file(std::string path) {
  outputs_.push_back([p = std::move(path)] { return p; });
}

void program::param(std::string_view name, std::string& variable, std::string_view type,
                    std::string_view default_text, std::string_view description) {
  if (type != "path") {
    throw std::logic_error("flow::program::param: '" + std::string(name) + "' is declared " + std::string(type) +
                           " but its variable is a path (std::string)");
  }
  param_info info;
  info.name = std::string(name);
  info.type = "path";
  info.default_text = std::string(default_text);
  info.description = std::string(description);
  std::string* v = &variable;
  info.set = [v](std::string_view text) {
    if (text.empty()) throw std::invalid_argument("a path cannot be empty (- is standard input or output)");
    *v = std::string(text);
  };
  auto quoted = [v] { return json_string(*v); };
  info.text = quoted;
  info.json = quoted;
  add_param_info(std::move(info));
}

void program::estimate(std::function<void(flow::estimate&)> fill) { estimate_fn_ = std::move(fill); }

void program::calibrated_estimate(std::string by, std::function<void(flow::estimate&)> fill) {
  calibrated_by_ = std::move(by);
  calibrated_fn_ = std::move(fill);
}

void program::disk_need(unsigned phase, std::string_view label, std::uint64_t bytes) {
  if (bytes > disk_need_.bytes) disk_need_ = {phase, std::string(label), bytes};
}

// ---- queries ---------------------------------------------------------------------------

std::uint64_t program::memory() const noexcept {
  return options_.memory.value_or(memory_default_ ? memory_default_ : fallback_memory);
}

void program::memory_too_small(const plan::memory_shortfall& shortfall, const std::vector<plan::memory_node>& nodes,
                               const std::vector<std::pair<std::string, std::uint64_t>>& arrays) const {
  std::string held;
  for (const auto& [name, bytes] : arrays)
    held += (held.empty() ? "" : ", ") + name + " (" + flow::format_bytes(bytes, true) + ")";
  const std::optional<std::uint64_t> fixed_block =
      options_.block ? options_.block : block_default_ ? std::optional<std::uint64_t>(block_default_) : std::nullopt;
  const std::uint64_t least = plan::least_budget(nodes, memory(), fixed_block, threads());
  // The least budget exactly: rounded up it could reach the next block size, which may
  // not hold the plan.
  const std::string advice =
      least ? "; the least budget that holds this run's plan is " + flow::format_bytes(least, true) +
                  (fixed_block ? "" : " (blocks of " + flow::format_bytes(block_for_memory(least)) + ")") +
                  ": give --memory " + std::to_string(least) + ", or a smaller --block"
            : "; no budget holds this run's plan: give smaller params or a smaller --block";
  throw usage_error("--memory", "--memory: phase " + std::to_string(shortfall.phase) + " needs " +
                                    flow::format_bytes(shortfall.needed, true) + " with blocks of " +
                                    flow::format_bytes(block()) + (held.empty() ? "" : ", holding " + held) +
                                    ", but the budget is " + flow::format_bytes(memory()) + advice);
}

std::uint64_t program::block() const noexcept {
  return block_size(options_.block, block_default_ ? std::optional<std::uint64_t>(block_default_) : std::nullopt,
                    memory());
}

unsigned program::threads() const noexcept {
  return options_.threads ? *options_.threads : hardware_threads();
}

std::uint64_t program::input_elements(std::string_view path) const {
  for (const auto& in : inputs_)
    if (in.path == path) return in.elements;
  throw std::logic_error("flow::program::input_elements: '" + std::string(path) +
                         "' is not a declared input file");
}

bool program::input_size_known(std::string_view path) const {
  for (const auto& in : inputs_)
    if (in.path == path) return in.known;
  throw std::logic_error("flow::program::input_size_known: '" + std::string(path) +
                         "' is not a declared input file");
}

bool program::given(std::string_view name) const {
  for (const auto& p : params_)
    if (p.name == name) return p.given;
  throw std::logic_error("flow::program::given: no param '" + std::string(name) + "'");
}

// ---- parsing ---------------------------------------------------------------------------

const program_options& program::parse(int argc, const char* const* argv) {
  options_ = program_options{};
  for (auto& p : params_) p.given = false;
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);

  const auto apply_defaults = [&] {
    for (auto& p : params_)
      if (!p.given && p.apply_default) p.apply_default();
  };

  for (auto a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      options_.help = true;
      apply_defaults();
      return options_;
    }
    if (a == "--version") {
      options_.version = true;
      return options_;
    }
  }

  const auto usage = [](std::string flag, const std::string& message) {
    return usage_error(std::move(flag), message);
  };

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--") {
      if (i + 1 < args.size()) {
        throw usage(std::string(args[i + 1]), "unexpected argument '" + excerpt(args[i + 1]) +
                                                  "': the program takes only flags (see --help)");
      }
      break;
    }
    if (a.size() < 3 || a.substr(0, 2) != "--") {
      if (a.size() > 1 && a[0] == '-') {
        throw usage(std::string(a), "unknown flag '" + excerpt(a) +
                                        "': flags start with -- (see --help)");
      }
      throw usage(std::string(a), "unexpected argument '" + excerpt(a) +
                                      "': the program takes only flags, e.g. --NAME=VALUE (see --help)");
    }
    const std::size_t eq = a.find('=');
    const std::string name(a.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2));
    const std::string flag = "--" + name;
    const bool inline_value = eq != std::string_view::npos;
    std::string_view value = inline_value ? a.substr(eq + 1) : std::string_view{};

    // The value of a flag that needs one: after '=' or the next argument.
    const auto take_value = [&](const std::string& what) -> std::string_view {
      if (inline_value) return value;
      if (i + 1 >= args.size() || args[i + 1].substr(0, 2) == "--") {
        throw usage(flag, flag + " needs a value (" + what + ")");
      }
      return args[++i];
    };
    const auto no_value = [&] {
      if (inline_value) throw usage(flag, flag + " takes no value");
    };

    try {
      if (name == "memory") {
        const std::string_view text = take_value("a size, e.g. 256MiB");
        const std::uint64_t m = mng::parse_size(text);
        if (m < flow::min_memory_bytes) // the rule of a script's `memory` too
          throw usage(flag, "--memory: a budget below 4 KiB leaves no room for even one block; " + std::to_string(m) +
                                " bytes given");
        const std::uint64_t limit = addressable_memory();
        if (m > limit) {
          // Not a budget the planner can divide (its products would overflow) nor one a
          // process can hold: a typo, not a wish to swap. Budgets above physical memory
          // but within this limit are taken (with a warning when the run starts).
          throw usage(flag, "--memory: " + std::string(text) +
                                " is more than a process can address here (" + flow::format_bytes(limit) +
                                "); give a budget such as 4GiB");
        }
        options_.memory = m;
      } else if (name == "block") {
        const std::string_view v = take_value("a size, e.g. 1MiB");
        const std::uint64_t b = mng::parse_size(v);
        if (b < 4096 || (b & (b - 1)) != 0) {
          throw usage(flag, "--block: '" + excerpt(v) +
                                "' is not a power of two of at least 4 KiB (e.g. 64KiB, 1MiB)");
        }
        options_.block = b;
      } else if (name == "disk") {
        options_.disks.push_back(mng::disk_spec::parse(take_value("PATH[:SIZE]")));
      } else if (name == "direct") {
        const std::string_view v = take_value("on or off");
        if (!flags::is_bool(v)) throw usage(flag, "--direct: '" + excerpt(v) + "' is not on or off");
        options_.direct = flags::parse_bool(v);
      } else if (name == "threads") {
        const std::uint64_t t = flags::parse_unsigned(take_value("a number of threads"), 64, "a thread count");
        if (t < 1 || t > 4096) {
          throw usage(flag, "--threads: " + std::to_string(t) + " is not between 1 and 4096");
        }
        options_.threads = static_cast<unsigned>(t);
      } else if (name == "seed") {
        options_.seed = flags::parse_unsigned(take_value("a number from 0 to 2^64-1"), 64, "u64");
      } else if (name == "stats") {
        options_.stats = stats_format::text; // the last --stats wins, with its path
        options_.stats_path.clear();
        if (inline_value) {
          const std::size_t colon = value.find(':');
          const std::string_view format = value.substr(0, colon);
          if (format == "text") options_.stats = stats_format::text;
          else if (format == "json") options_.stats = stats_format::json;
          else {
            throw usage(flag, "--stats: '" + excerpt(value) +
                                  "' is not text, json, text:PATH or json:PATH");
          }
          if (colon != std::string_view::npos) {
            options_.stats_path = std::string(value.substr(colon + 1));
            if (options_.stats_path.empty()) {
              throw usage(flag, "--stats: '" + excerpt(value) + "' has no path after ':'");
            }
          }
        }
      } else if (name == "progress") {
        no_value();
        options_.progress = true;
      } else if (name == "trace") {
        options_.trace_path = std::string(take_value("a file for the timeline, e.g. run.trace.json"));
        if (options_.trace_path.empty()) throw usage(flag, "--trace: the path is empty");
      } else if (name == "plan") {
        options_.plan = stats_format::text;
        if (inline_value) {
          if (value == "json") options_.plan = stats_format::json;
          else if (value != "text") throw usage(flag, "--plan: '" + excerpt(value) + "' is not text or json");
        }
      } else {
        param_info* p = nullptr;
        for (auto& q : params_)
          if (q.name == name) p = &q;
        if (!p) {
          const std::string n = normalize(name);
          for (auto& q : params_)
            if (normalize(q.name) == n) p = &q;
        }
        if (!p) {
          std::string best;
          std::size_t best_d = 3;
          const auto consider = [&](const std::string& candidate) {
            const std::size_t d = edit_distance(name, candidate);
            if (d < best_d) {
              best_d = d;
              best = candidate;
            }
          };
          for (const auto& o : builtin_options) consider(o.name);
          for (const auto& q : params_) consider(q.name);
          std::string msg = "unknown flag '" + excerpt(flag) + "'";
          if (!best.empty() && !name.empty()) msg += "; did you mean --" + best + "?";
          msg += " (see --help)";
          throw usage(flag, msg);
        }
        const std::string pflag = "--" + p->name;
        std::string_view v;
        if (p->is_bool && !inline_value) {
          if (i + 1 < args.size() && flags::is_bool(args[i + 1])) v = args[++i];
          else v = "true";
        } else {
          v = take_value("a " + p->type);
        }
        try {
          p->set(v);
        } catch (const std::invalid_argument& e) {
          throw usage(pflag, pflag + ": " + e.what());
        }
        p->given = true;
        if (std::find(options_.params_given.begin(), options_.params_given.end(), p->name) ==
            options_.params_given.end())
          options_.params_given.push_back(p->name);
      }
    } catch (const usage_error&) {
      throw;
    } catch (const std::invalid_argument& e) {
      // from parse_size, disk_spec::parse, parse_unsigned
      std::string m = clean_message(e.what());
      if (m.rfind(flag, 0) != 0) m = flag + ": " + m;
      throw usage(flag, m);
    }
  }
  apply_defaults();
  return options_;
}

std::string program::help() const {
  std::string out = name_;
  if (!description_.empty()) out += " - " + description_;
  out += "\n\nusage: " + name_ + (params_.empty() ? "" : " [--PARAM=VALUE]...") + " [OPTION]...\n";

  struct entry {
    std::string left, right;
  };
  std::vector<entry> ps, os;
  for (const auto& p : params_) {
    std::string left = "--" + p.name + (p.is_bool ? "[=bool]" : p.type == "path" ? std::string("=FILE") : "=" + p.type);
    const std::string value = p.text();
    std::string def = p.default_text.empty() ? value : p.default_text;
    if (!p.default_text.empty() && p.default_text != value) def += " = " + value;
    std::string right = p.description;
    if (!right.empty()) right += " ";
    right += "(" + p.type + ", default " + def + ")";
    ps.push_back({left, right});
  }
  const std::uint64_t md = memory_default_ ? memory_default_ : fallback_memory;
  os.push_back({"--memory SIZE", "memory budget of the whole program, e.g. 256MiB or 4GiB (default " +
                                     flow::format_bytes(md) +
                                     (memory_default_ ? ", the script's" : "") +
                                     "); every sort and queue gets its planned share of it"});
  os.push_back({"--block SIZE",
                "block size of external memory, a power of two of at least 4KiB (default " +
                    (block_default_ ? flow::format_bytes(block_default_) + ", the script's"
                                    : "the size for the budget: " + flow::format_bytes(block_for_memory(md)) +
                                          " for " + flow::format_bytes(md) + ", 64KiB to 4MiB as --memory goes") +
                    ")"});
  os.push_back({"--disk PATH[:SIZE]",
                "disk for external memory, repeatable: a directory (a temporary file inside, "
                "unlinked at once so nothing is left), a file or device (used as is and locked; "
                ":keep keeps a file the program creates), or :memory:; SIZE caps what is used on it "
                "(default: a temporary file in " +
                    mng::disk_config::default_directory() + ")"});
  os.push_back({"--direct on|off", "O_DIRECT for disk files, bypassing the page cache (default on)"});
  os.push_back({"--threads N", "threads sorting may use (default " + std::to_string(hardware_threads()) +
                                   ", the CPUs available)"});
  os.push_back({"--seed N", "seed of rand() (default " + std::to_string(default_seed) + ")"});
  os.push_back({"--stats[=FORMAT]",
                "at the end, time, I/O and I/O wait per phase beside the estimate: FORMAT text "
                "(default) or json, to stderr, or text:PATH / json:PATH to a file"});
  os.push_back({"--progress", "a progress bar per phase on stderr (only when it is a terminal)"});
  os.push_back({"--trace PATH", "the run's timeline (phases, bytes read and written, I/O wait) as Chrome "
                                "trace-event JSON, for chrome://tracing or ui.perfetto.dev"});
  os.push_back({"--plan[=FORMAT]",
                "print the plan this run would use and exit without running: the block size, each phase's "
                "and node's memory and estimated I/O, the queues' configuration; FORMAT text (default) or json "
                "(the fields of flowc explain --format json)"});
  os.push_back({"--help, -h", "this help"});
  os.push_back({"--version", "where the program comes from (flowc, script) and the runtime's version"});

  std::size_t col = 0;
  for (const auto* list : {&ps, &os})
    for (const auto& e : *list) col = std::max(col, e.left.size());
  col = std::min<std::size_t>(col, 26) + 4;
  const auto render = [&](const std::vector<entry>& list) {
    std::string s;
    for (const auto& e : list) {
      std::string line = "  " + e.left;
      if (line.size() + 2 > col) line += "\n" + std::string(col, ' ');
      else line += std::string(col - line.size(), ' ');
      s += line + wrap(e.right, col, col, 90) + "\n";
    }
    return s;
  };
  if (!ps.empty()) out += "\nparams:\n" + render(ps);
  out += "\noptions:\n" + render(os);
  out += "\nExit status: 0 done, 1 error while running, 2 bad flag or value.\n";
  return out;
}

// ---- running ---------------------------------------------------------------------------

int program::fail(int status, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", name_.c_str(), clean_message(message).c_str());
  return status;
}

int program::run(int argc, char** argv, const std::function<void()>& body) {
  try {
    parse(argc, argv);
  } catch (const usage_error& e) {
    return fail(2, e.what());
  }
  if (options_.version) {
    std::printf("%s: %s; runtime %s\n", name_.c_str(), origin_.empty() ? "a Flow program" : origin_.c_str(),
                runtime_version());
    return 0;
  }
  if (options_.help) {
    const std::string h = help();
    std::fwrite(h.data(), 1, h.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  try {
    return run_checked(body);
  } catch (const std::bad_alloc&) {
    return fail(1, "out of memory; give the program a smaller --memory or free some memory");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
}

int program::run_checked(const std::function<void()>& body) {
  using clock = std::chrono::steady_clock;

  // 1. Input files, before any work: not `-` (standard input), and not a file the script
  // also writes (by name, or the same file on disk), which it may create first.
  std::vector<std::string> outputs;
  for (const auto& out : outputs_) outputs.push_back(out());
  auto same_file = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    struct stat sa, sb;
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
  };
  for (auto& in : inputs_) {
    if (in.path_fn) in.path = in.path_fn();
    in.known = false;
    in.elements = 0;
  }
  for (auto& in : inputs_) {
    if (io::is_standard_stream(in.path)) continue;
    bool written = false;
    for (const std::string& out : outputs)
      written = written || (!io::is_standard_stream(out) && same_file(in.path, out));
    if (written) continue;
    // A stream (a FIFO, /dev/stdin on a pipe, a character device) is read sequentially
    // like `-`, its size unknown. It is not opened here: opening a FIFO waits for its
    // writer, and closing it again would leave the writer with no reader (SIGPIPE).
    struct stat path_st;
    if (::stat(in.path.c_str(), &path_st) == 0 &&
        (S_ISFIFO(path_st.st_mode) || S_ISSOCK(path_st.st_mode) || S_ISCHR(path_st.st_mode))) {
      if (::access(in.path.c_str(), R_OK) != 0)
        return fail(1, "cannot read input file '" + in.path + "': " + errno_text(errno));
      continue;
    }
    const int fd = ::open(in.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int e = errno;
      return fail(1, "cannot read input file '" + in.path + "': " + errno_text(e) +
                         (e == ENOENT ? "; check the path (relative paths start at the current directory)"
                                      : ""));
    }
    struct stat st;
    const int rc = ::fstat(fd, &st);
    const int e = errno;
    // A block device's st_size is 0: its size is where it ends.
    const off_t device_end = rc == 0 && S_ISBLK(st.st_mode) ? ::lseek(fd, 0, SEEK_END) : -1;
    ::close(fd);
    if (rc != 0) return fail(1, "cannot read input file '" + in.path + "': " + errno_text(e));
    if (S_ISDIR(st.st_mode)) return fail(1, "input file '" + in.path + "' is a directory");
    if (S_ISREG(st.st_mode) || device_end >= 0) {
      const auto size = static_cast<std::uint64_t>(S_ISREG(st.st_mode) ? st.st_size : device_end);
      if (size % in.element_bytes != 0) {
        const std::string of = in.type_name.empty() ? "one element" : "one " + in.type_name;
        return fail(1, "input file '" + in.path + "' has " + std::to_string(size) +
                           " bytes, not a multiple of " + std::to_string(in.element_bytes) +
                           " (the size of " + of + "): it is not a file of " +
                           (in.type_name.empty() ? "these elements" : in.type_name) +
                           ", or it is truncated");
      }
      in.elements = size / in.element_bytes;
      in.known = true;
    }
  }

  // 1b. Output files, before any work: an output is written to a temporary in its
  // directory and renamed over the target at the end, so a missing or read-only
  // directory, or a target that is a directory, would otherwise fail only after all the
  // work (and a sort's run formation) is done.
  for (const std::string& out : outputs) {
    if (io::is_standard_stream(out)) continue;
    if (std::string problem = output_problem(out); !problem.empty())
      return fail(1, "cannot write output file '" + out + "': " + problem);
  }

  // 2. The stats and trace files, so that a bad path fails now rather than after the work.
  std::unique_ptr<report_output> stats_file, trace_file;
  try {
    if (options_.stats != stats_format::none && !options_.stats_path.empty())
      stats_file = std::make_unique<report_output>("--stats", options_.stats_path);
    if (!options_.trace_path.empty()) trace_file = std::make_unique<report_output>("--trace", options_.trace_path);
  } catch (const usage_error& e) {
    return fail(2, e.what());
  }

  // 3. Program-wide settings.
  set_threads(options_.threads.value_or(0));
  seed_rand(options_.seed);
  if (options_.memory) {
    const std::uint64_t phys = physical_memory();
    if (phys && *options_.memory > phys) {
      std::fprintf(stderr, "%s: warning: --memory %s is more than this machine's %s of memory; the program may swap\n",
                   name_.c_str(), flow::format_bytes(*options_.memory).c_str(), flow::format_bytes(phys).c_str());
    }
  }

  // 4. The estimate and the memory plan, for the params actually used, before any disk
  // is made: a budget too small is an error now, and --plan prints the plan and stops.
  report_ = run_report{};
  report_.program = name_;
  disk_need_ = {};
  try {
    if (estimate_fn_) estimate_fn_(report_.estimate); // also sizes the nodes for this run
    if (calibrated_fn_) { // priced with the memory split just made
      calibrated_fn_(report_.calibrated.emplace());
      report_.calibrated_by = calibrated_by_;
    }
  } catch (const usage_error& e) {
    return fail(2, e.what());
  } catch (const plan::too_many_elements& e) {
    // A count past 2^63 can only come from the params (or an input file's size).
    std::string params;
    for (const param_info& p : params_)
      if (p.given) params += (params.empty() ? "" : ", ") + ("--" + p.name + "=" + p.text());
    return fail(2, std::string(e.what()) + "; " +
                       (params.empty() ? "the input files are too large" : "lower the params (" + params + ")"));
  }

  if (options_.plan != stats_format::none) {
    run_plan plan{name_, memory(), block(), threads(), {}, report_.estimate};
    for (const auto& p : params_) plan.params.emplace_back(p.name, p.json());
    write_stdout(options_.plan == stats_format::json ? plan_to_json(plan) : plan_to_text(plan));
    std::fflush(stdout);
    return 0;
  }

  // 5. Disks: the global block manager for the program's life; temporary disk files go
  // with it (and with io::temp_files on fatal signals).
  mng::disk_config cfg = options_.disks.empty() ? mng::disk_config::defaults() : mng::disk_config{};
  if (!options_.disks.empty()) cfg.disks = options_.disks;
  cfg.direct = options_.direct;
  std::unique_ptr<mng::block_manager> bm;
  try {
    bm = std::make_unique<mng::block_manager>(cfg);
  } catch (const io_error& e) {
    return fail(options_.disks.empty() ? 1 : 2, (options_.disks.empty() ? "" : "--disk: ") + clean_message(e.what()));
  }
  struct uninstall {
    ~uninstall() { mng::block_manager::set_global(nullptr); }
  } uninstaller;
  mng::block_manager::set_global(bm.get());

  // 5b. Disks too small for what the plan is sure to put on them: an error now, rather
  // than a full disk after run formation has done most of the work. Only when every disk
  // has a SIZE (else the file system is the limit, which the program cannot know).
  if (disk_need_.bytes > 0) {
    std::uint64_t capacity = 0;
    bool capped = true;
    for (const mng::disk_spec& d : cfg.disks) {
      capped = capped && d.capacity != 0;
      capacity += d.capacity;
    }
    if (capped && capacity < disk_need_.bytes) {
      return fail(2, "--disk: phase " + std::to_string(disk_need_.phase) + " (" + disk_need_.label +
                         ") needs at least " + flow::format_bytes(disk_need_.bytes, true) +
                         " of temporary disk at once (a sort's runs and merges), but " +
                         (cfg.disks.size() == 1 ? "the disk holds " : "the disks hold ") +
                         flow::format_bytes(capacity, true) + "; give a larger SIZE in --disk PATH:SIZE, or another --disk");
    }
  }

  // 6. Run.
  progress_ = options_.progress && ::isatty(2);
  trace_ = trace_file ? std::make_unique<trace_recorder>(name_) : nullptr;
  progress::listen(&program::on_intermediate_merge, this);
  struct stop_listening {
    ~stop_listening() { progress::listen(nullptr, nullptr); }
  } listening;
  stdout_tty_ = ::isatty(1);
  line_shown_ = false;
  phase_open_ = false;
  count_ = 0;
  next_tick_ = std::numeric_limits<std::uint64_t>::max();
  io::buffer_memory::reset_peak();
  const io::stats_snapshot io_start = io::stats::instance().snapshot();
  const auto start = clock::now();
  run_io_start_ = io_start;
  run_start_ = start;
  if (trace_) sample_trace(start);
  bool ok = true;
  std::string error;
  try {
    body();
  } catch (const std::bad_alloc&) {
    ok = false;
    error = "out of memory; give the program a smaller --memory or free some memory";
  } catch (const std::exception& e) {
    ok = false;
    error = clean_message(e.what());
  } catch (...) {
    ok = false;
    error = "an exception of unknown type stopped the program";
  }
  if (phase_open_) end_phase();
  clear_progress_line();
  progress_ = false;
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (ok) {
      ok = false;
      error = "cannot write to standard output: " + errno_text(errno);
    }
  }
  if (!ok) fail(1, error);

  // 7. Close the disks (their pending writes count), then report.
  mng::block_manager::set_global(nullptr);
  bm.reset();
  const io::stats_snapshot io = io::stats::instance().snapshot() - io_start;
  report_.ok = ok;
  report_.error = error;
  report_.wall_seconds = std::chrono::duration<double>(clock::now() - start).count();
  const io::disk_snapshot total = io.total();
  report_.read_bytes = total.read_bytes;
  report_.write_bytes = total.write_bytes;
  report_.io_wait_seconds = io.wait_seconds();
  report_.io_busy_seconds = io.busy_seconds;
  report_.memory_bytes = memory();
  report_.memory_default_bytes = memory_default_ ? memory_default_ : fallback_memory;
  report_.block_bytes = block();
  report_.buffer_peak_bytes = io::buffer_memory::peak();
  {
    // The process's resident memory, as the kernel counts it (/proc/self/status).
    std::ifstream status("/proc/self/status");
    std::string key;
    std::uint64_t kib = 0;
    while (status >> key) {
      if (key == "VmRSS:" && status >> kib) report_.rss_bytes = kib * 1024;
      else if (key == "VmHWM:" && status >> kib) report_.rss_peak_bytes = kib * 1024;
    }
  }
  report_.threads = threads();
  report_.seed = options_.seed;
  for (const auto& d : io.disks) {
    if (d.reads == 0 && d.writes == 0) continue;
    // A file opened again (each round of a loop, or read after it is written) is one line.
    auto same = std::find_if(report_.disks.begin(), report_.disks.end(), [&](const auto& r) { return r.path == d.name; });
    if (same == report_.disks.end()) {
      report_.disks.push_back({d.name, d.read_bytes, d.write_bytes});
    } else {
      same->read_bytes += d.read_bytes;
      same->write_bytes += d.write_bytes;
    }
  }
  for (const auto& p : params_) report_.params.emplace_back(p.name, p.json());
  for (const node_count& n : node_counts_)
    if (n.counted) report_.nodes.push_back(n);
  std::sort(report_.phases.begin(), report_.phases.end(),
            [](const phase_record& a, const phase_record& b) { return a.id < b.id; });

  if (options_.stats != stats_format::none) {
    const std::string text =
        options_.stats == stats_format::json ? to_json(report_) + "\n" : to_text(report_);
    if (!stats_file) std::fwrite(text.data(), 1, text.size(), stderr);
    else if (std::string problem = stats_file->write(text, "the stats"); !problem.empty()) return fail(1, problem);
  }
  if (trace_) {
    // The whole run as the outer span (its end: the disks closed, their last writes counted).
    const auto end = clock::now();
    sample_trace(end);
    trace_->span("run", name_, 0, std::chrono::duration<double, std::micro>(end - start).count(),
                 {{"status", ok ? "\"ok\"" : "\"error\""}, {"read_bytes", std::to_string(report_.read_bytes)},
                  {"write_bytes", std::to_string(report_.write_bytes)}});
    const std::string text = trace_->json();
    trace_.reset();
    if (std::string problem = trace_file->write(text, "the trace"); !problem.empty()) return fail(1, problem);
  }
  return ok ? 0 : 1;
}

// ---- phases and progress ---------------------------------------------------------------

void program::begin_phase(unsigned id, std::string_view label, std::uint64_t expected_elements) {
  if (phase_open_) end_phase();
  phase_open_ = true;
  phase_id_ = id;
  phase_label_ = std::string(label);
  phase_expected_ = expected_elements;
  count_ = 0;
  merged_earlier_ = merged_ = merge_total_ = 0;
  merge_open_ = false;
  phase_io_start_ = io::stats::instance().snapshot();
  phase_start_ = last_tick_ = std::chrono::steady_clock::now();
  if (trace_) sample_trace(phase_start_);
  if (progress_ || trace_) {
    tick_interval_ = 1024;
    next_tick_ = tick_interval_;
    if (progress_) draw_progress(false);
  } else {
    next_tick_ = std::numeric_limits<std::uint64_t>::max();
  }
}

void program::end_phase() {
  if (!phase_open_) return;
  const auto now = std::chrono::steady_clock::now();
  const io::stats_snapshot io = io::stats::instance().snapshot() - phase_io_start_;
  phase_record* r = nullptr;
  for (auto& p : report_.phases)
    if (p.id == phase_id_) r = &p;
  if (!r) {
    report_.phases.push_back({});
    r = &report_.phases.back();
    r->id = phase_id_;
    r->label = phase_label_;
  }
  ++r->runs;
  r->elements += count_;
  r->expected = phase_expected_;
  const double seconds = std::chrono::duration<double>(now - phase_start_).count();
  r->wall_seconds += seconds;
  const io::disk_snapshot t = io.total();
  r->read_bytes += t.read_bytes;
  r->write_bytes += t.write_bytes;
  r->io_wait_seconds += io.wait_seconds();
  if (trace_) {
    const auto since_start = [&](std::chrono::steady_clock::time_point tp) {
      return std::chrono::duration<double, std::micro>(tp - run_start_).count();
    };
    trace_->span("phase", phase_label_, since_start(phase_start_), seconds * 1e6,
                 {{"phase", std::to_string(phase_id_)}, {"nodes", json_string(phase_label_)},
                  {"elements", std::to_string(count_)}, {"expected_elements", std::to_string(phase_expected_)},
                  {"read_bytes", std::to_string(t.read_bytes)}, {"write_bytes", std::to_string(t.write_bytes)},
                  {"io_wait_seconds", std::to_string(io.wait_seconds())}});
    sample_trace(now);
  }
  if (progress_) {
    draw_progress(true);
    std::fputc('\n', stderr);
    line_shown_ = false;
  }
  phase_open_ = false;
  count_ = 0;
  next_tick_ = std::numeric_limits<std::uint64_t>::max();
}

void program::tick() noexcept {
  if (!(progress_ || trace_) || !phase_open_) {
    next_tick_ = std::numeric_limits<std::uint64_t>::max();
    return;
  }
  using namespace std::chrono_literals;
  const auto now = std::chrono::steady_clock::now();
  const auto since = now - last_tick_;
  last_tick_ = now;
  // Aim at a clock read every 25-100 ms whatever an element costs.
  if (since < 25ms) tick_interval_ = std::min<std::uint64_t>(tick_interval_ * 2, std::uint64_t{1} << 26);
  else if (since > 100ms) tick_interval_ = std::max<std::uint64_t>(tick_interval_ / 2, 1);
  next_tick_ = count_ + tick_interval_;
  try {
    if (progress_ && now - last_draw_ >= 100ms) draw_progress(false);
    if (trace_ && now - last_sample_ >= 100ms) sample_trace(now);
  } catch (...) {
  }
}

void program::on_intermediate_merge(void* self, std::uint64_t done, std::uint64_t total) noexcept {
  auto& p = *static_cast<program*>(self);
  if (!p.phase_open_) return;
  using namespace std::chrono_literals;
  const auto now = std::chrono::steady_clock::now();
  if (done == 0) { // a merge's first pass: the passes of earlier merges stay in the phase's work
    p.merged_earlier_ += p.merged_;
    p.merge_start_ = now;
    p.merge_open_ = true;
  }
  p.merged_ = done;
  p.merge_total_ = total;
  try {
    if (p.trace_ && done == total && p.merge_open_)
      p.trace_->span("merge", "intermediate merge passes",
                     std::chrono::duration<double, std::micro>(p.merge_start_ - p.run_start_).count(),
                     std::chrono::duration<double, std::micro>(now - p.merge_start_).count(),
                     {{"phase", std::to_string(p.phase_id_)}, {"elements", std::to_string(total)}});
    if (p.progress_ && now - p.last_draw_ >= 100ms) p.draw_progress(false);
    if (p.trace_ && now - p.last_sample_ >= 100ms) p.sample_trace(now);
  } catch (...) {
  }
  if (done == total) p.merge_open_ = false;
}

void program::sample_trace(std::chrono::steady_clock::time_point now) {
  last_sample_ = now;
  const io::stats_snapshot io = io::stats::instance().snapshot() - run_io_start_;
  const io::disk_snapshot t = io.total();
  trace_->counters(std::chrono::duration<double, std::micro>(now - run_start_).count(), t.read_bytes, t.write_bytes,
                   io.wait_seconds());
}

void program::redraw_progress() noexcept {
  try {
    draw_progress(false);
  } catch (...) { // a progress line that cannot be drawn is no reason to stop the work
  }
}

void program::draw_progress(bool finished) {
  const auto now = std::chrono::steady_clock::now();
  last_draw_ = now;
  const io::disk_snapshot io = (io::stats::instance().snapshot() - phase_io_start_).total();
  progress_state s;
  s.id = phase_id_;
  s.phases = static_cast<unsigned>(report_.estimate.phases().size());
  s.label = phase_label_;
  s.done = count_;
  s.expected = phase_expected_;
  s.merged = merged_earlier_ + merged_;
  s.merge_total = merged_earlier_ + merge_total_;
  s.seconds = std::chrono::duration<double>(now - phase_start_).count();
  s.io_bytes = io.read_bytes + io.write_bytes;
  s.finished = finished;
  std::string line = "\r" + progress_line(s, terminal_width() - 1) + "\x1b[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
  line_shown_ = true;
}

void program::clear_progress_line() noexcept {
  if (!line_shown_) return;
  std::fputs("\r\x1b[K", stderr);
  line_shown_ = false;
}

void program::write_stdout(const std::string& text) {
  if (line_shown_ && stdout_tty_) clear_progress_line();
  std::fwrite(text.data(), 1, text.size(), stdout);
  // --stats counts every byte the program writes: print's lines too, beside write_text's
  // and binary writes' to `-`.
  io::standard_stream_counters("standard output").add(true, text.size());
  if (progress_) std::fflush(stdout);
}

// The param types' add_param, compiled here once (program.hpp declares them extern).
#define FLOW_DEFINE_ADD_PARAM(T)                                                                                \
  template void program::add_param<T>(std::string_view, T&, std::string_view, std::string_view, std::string_view, \
                                      std::function<void()>);
FLOW_PARAM_TYPES(FLOW_DEFINE_ADD_PARAM)
#undef FLOW_DEFINE_ADD_PARAM

} // namespace flow

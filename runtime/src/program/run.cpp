// program::run: the flags, then the run's steps in order: check the files, open the
// report files, apply the settings, price and plan the run (or print the plan), open the
// disks, run the body, and report. Each step that can stop the run prints why and gives
// the exit status.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <new>

#include "flow/defaults.hpp"
#include "flow/format.hpp"
#include "flow/io/buffer.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/plan/memory_plan.hpp"
#include "flow/progress.hpp"
#include "flow/program.hpp"
#include "flow/program/run_plan.hpp"
#include "flow/ranks.hpp"
#include "flow/version.hpp"
#include "messages.hpp"
#include "report_output.hpp"

namespace flow {

using detail::clean_message;

namespace {

constexpr const char* out_of_memory = "out of memory; give the program a smaller --memory or free some memory";

// The process's resident memory now and at its peak, as the kernel counts it
// (/proc/self/status).
void read_resident_memory(run_report& report) {
  std::ifstream status("/proc/self/status");
  std::string key;
  std::uint64_t kib = 0;
  while (status >> key) {
    if (key == "VmRSS:" && status >> kib) report.rss_bytes = kib * 1024;
    else if (key == "VmHWM:" && status >> kib) report.rss_peak_bytes = kib * 1024;
  }
}

} // namespace

int program::fail(int status, const std::string& message) {
  // Flags, files and the plan are the same on every rank, and so is their error: the
  // first rank says it (an error in the body goes through fail_body).
  if (!ranks::leads()) return status;
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
    return fail(1, out_of_memory);
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
}

int program::run_checked(const std::function<void()>& body) {
  const std::vector<std::string> outputs = output_paths();
  if (auto stop = check_input_files(outputs)) return *stop;
  if (auto stop = check_output_files(outputs)) return *stop;

  // The stats and trace files, so that a bad path fails now rather than after the work.
  std::unique_ptr<detail::report_output> stats_file, trace_file;
  try {
    if (options_.stats != stats_format::none && !options_.stats_path.empty())
      stats_file = std::make_unique<detail::report_output>("--stats", options_.stats_path);
    if (!options_.trace_path.empty())
      trace_file = std::make_unique<detail::report_output>("--trace", options_.trace_path);
  } catch (const usage_error& e) {
    return fail(2, e.what());
  }

  apply_settings();
  if (auto stop = estimate_run()) return *stop;
  if (options_.plan != stats_format::none) return print_plan();

  // The global block manager for the program's life; temporary disk files go with it
  // (and with io::temp_files on fatal signals).
  mng::disk_config disks = options_.disks.empty() ? mng::disk_config::defaults() : mng::disk_config{};
  if (!options_.disks.empty()) disks.disks = options_.disks;
  disks.direct = options_.direct;
  std::unique_ptr<mng::block_manager> bm;
  try {
    bm = std::make_unique<mng::block_manager>(disks);
  } catch (const io_error& e) {
    return fail(options_.disks.empty() ? 1 : 2, (options_.disks.empty() ? "" : "--disk: ") + clean_message(e.what()));
  }
  struct uninstall {
    ~uninstall() { mng::block_manager::set_global(nullptr); }
  } uninstaller;
  mng::block_manager::set_global(bm.get());
  if (auto stop = check_disk_space(disks)) return *stop;

  const std::optional<std::string> error = run_body(body, trace_file != nullptr);
  if (error && ranks::size() > 1) {
    // One rank's error (its part of a spread stream) while the others may wait for it
    // in an exchange: it says which rank and stops them all; their temporary files and
    // unfinished outputs have no names, so nothing is left.
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error (rank %d of %d): %s\n", name_.c_str(), ranks::rank(), ranks::size(),
                 clean_message(*error).c_str());
    ranks::world().abort(1);
  }
  if (error) fail(1, *error);

  // What the ranks sent each other, added up (every rank is here: an error stopped them all).
  const std::uint64_t network = ranks::size() > 1 ? ranks::world().sum(ranks::world().sent_bytes()) : 0;
  // Close the disks (their pending writes count), then report.
  mng::block_manager::set_global(nullptr);
  bm.reset();
  collect_report(error);
  report_.ranks = static_cast<unsigned>(ranks::size());
  report_.network_bytes = network;
  if (auto stop = write_reports(stats_file.get(), trace_file.get())) return *stop;
  return error ? 1 : 0;
}

void program::apply_settings() {
  set_threads(options_.threads.value_or(0));
  seed_rand(options_.seed);
  if (options_.memory) {
    const std::uint64_t phys = flow::physical_memory_bytes();
    if (phys && *options_.memory > phys) {
      std::fprintf(stderr, "%s: warning: --memory %s is more than this machine's %s of memory; the program may swap\n",
                   name_.c_str(), flow::format_bytes(*options_.memory).c_str(), flow::format_bytes(phys).c_str());
    }
  }
}

// The estimate and the memory plan, for the params actually used, before any disk is
// made: a budget too small is an error now.
std::optional<int> program::estimate_run() {
  report_ = run_report{};
  report_.program = name_;
  disk_need_ = {};
  try {
    if (estimate_fn_) estimate_fn_(report_.estimate); // also sizes the nodes for this run
    if (calibrated_fn_) {                            // priced with the memory split just made
      calibrated_fn_(report_.calibrated.emplace());
      report_.calibrated_by = calibrated_by_;
    }
    const auto given = [this](const std::string& label) { return with_given_paths(label); };
    report_.estimate.relabel(given);
    if (report_.calibrated) report_.calibrated->relabel(given);
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
  return std::nullopt;
}

int program::print_plan() {
  run_plan plan{name_, memory(), block(), threads(), {}, report_.estimate};
  for (const auto& p : params_) plan.params.emplace_back(p.name, p.json());
  write_stdout(options_.plan == stats_format::json ? plan_to_json(plan) : plan_to_text(plan));
  std::fflush(stdout);
  return 0;
}

// Disks too small for what the plan is sure to put on them: an error now, rather than a
// full disk after run formation has done most of the work. Only when every disk has a
// SIZE (else the file system is the limit, which the program cannot know).
std::optional<int> program::check_disk_space(const mng::disk_config& disks) {
  if (disk_need_.bytes == 0) return std::nullopt;
  std::uint64_t capacity = 0;
  bool capped = true;
  for (const mng::disk_spec& d : disks.disks) {
    capped = capped && d.capacity != 0;
    capacity += d.capacity;
  }
  if (!capped || capacity >= disk_need_.bytes) return std::nullopt;
  return fail(2, "--disk: phase " + std::to_string(disk_need_.phase) + " (" + disk_need_.label + ") needs at least " +
                     flow::format_bytes(disk_need_.bytes, true) +
                     " of temporary disk at once (a sort's runs and merges), but " +
                     (disks.disks.size() == 1 ? "the disk holds " : "the disks hold ") +
                     flow::format_bytes(capacity, true) +
                     "; give a larger SIZE in --disk PATH:SIZE, or another --disk");
}

std::optional<std::string> program::run_body(const std::function<void()>& body, bool trace) {
  progress_ = options_.progress.value_or(true) && ::isatty(2); // on a terminal by default, as DuckDB's CLI
  trace_ = trace ? std::make_unique<trace_recorder>(name_) : nullptr;
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
  run_io_start_ = io::stats::instance().snapshot();
  run_cpu_start_ = cpu_seconds();
  run_start_ = std::chrono::steady_clock::now();
  if (trace_) sample_trace(run_start_);
  std::optional<std::string> error;
  try {
    body();
  } catch (const std::bad_alloc&) {
    error = out_of_memory;
  } catch (const std::exception& e) {
    error = clean_message(e.what());
  } catch (...) {
    error = "an exception of unknown type stopped the program";
  }
  if (phase_open_) end_phase();
  clear_progress_line();
  progress_ = false;
  std::cout.flush();
  if ((std::fflush(stdout) != 0 || std::ferror(stdout)) && !error)
    error = "cannot write to standard output: " + detail::errno_text(errno);
  return error;
}

void program::collect_report(const std::optional<std::string>& error) {
  const io::stats_snapshot io = io::stats::instance().snapshot() - run_io_start_;
  report_.ok = !error;
  report_.error = error.value_or("");
  report_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
  report_.cpu_seconds = cpu_seconds() - run_cpu_start_;
  const io::disk_snapshot total = io.total();
  report_.read_bytes = total.read_bytes;
  report_.write_bytes = total.write_bytes;
  report_.io_wait_seconds = io.wait_seconds();
  report_.io_busy_seconds = io.busy_seconds;
  report_.memory_bytes = memory();
  report_.memory_default_bytes = memory_default_ ? memory_default_ : fallback_memory;
  report_.block_bytes = block();
  report_.buffer_peak_bytes = io::buffer_memory::peak();
  read_resident_memory(report_);
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
    if (n.counted) {
      report_.nodes.push_back(n);
      report_.nodes.back().name = with_given_paths(n.name);
    }
  std::sort(report_.phases.begin(), report_.phases.end(),
            [](const phase_record& a, const phase_record& b) { return a.id < b.id; });
}

std::optional<int> program::write_reports(detail::report_output* stats_file, detail::report_output* trace_file) {
  if (!ranks::leads()) return std::nullopt; // the first rank's report (docs/distributed.md)
  if (options_.stats != stats_format::none) {
    const std::string text = options_.stats == stats_format::json ? to_json(report_) + "\n" : to_text(report_);
    if (!stats_file) std::fwrite(text.data(), 1, text.size(), stderr);
    else if (std::string problem = stats_file->write(text, "the stats"); !problem.empty()) return fail(1, problem);
  }
  if (trace_) {
    // The whole run as the outer span (its end: the disks closed, their last writes counted).
    const auto end = std::chrono::steady_clock::now();
    sample_trace(end);
    trace_->span("run", name_, 0, std::chrono::duration<double, std::micro>(end - run_start_).count(),
                 {{"status", report_.ok ? "\"ok\"" : "\"error\""}, {"read_bytes", std::to_string(report_.read_bytes)},
                  {"write_bytes", std::to_string(report_.write_bytes)}});
    const std::string text = trace_->json();
    trace_.reset();
    if (std::string problem = trace_file->write(text, "the trace"); !problem.empty()) return fail(1, problem);
  }
  return std::nullopt;
}

} // namespace flow

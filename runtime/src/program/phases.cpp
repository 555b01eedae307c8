// A program's phases as they run: each phase's record in the report, the element count's
// tick that paces the progress bar and the trace's samples, and the trace's phase and
// merge spans. See flow/program.hpp (begin_phase, end_phase).
#include "flow/program.hpp"

#include <ctime>

namespace flow {

void program::begin_phase(unsigned id, std::string_view label, std::uint64_t expected_elements) {
  if (phase_open_) end_phase();
  phase_open_ = true;
  phase_id_ = id;
  phase_label_ = with_given_paths(label);
  phase_expected_ = expected_elements;
  count_ = 0;
  merged_earlier_ = merged_ = merge_total_ = 0;
  merge_open_ = false;
  phase_io_start_ = io::stats::instance().snapshot();
  phase_cpu_start_ = cpu_seconds();
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
  const double cpu = cpu_seconds() - phase_cpu_start_;
  r->cpu_seconds += cpu;
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
                  {"io_wait_seconds", std::to_string(io.wait_seconds())}, {"cpu_seconds", std::to_string(cpu)}});
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

double program::cpu_seconds() noexcept {
  timespec t{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
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

} // namespace flow

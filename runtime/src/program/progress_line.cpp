// --progress: the progress line of the open phase on stderr, and stdout written around it.
#include <sys/ioctl.h>

#include <cstdio>

#include "flow/io/standard_streams.hpp"
#include "flow/program.hpp"
#include "flow/ranks.hpp"

namespace flow {

namespace {

unsigned terminal_width() {
  struct winsize ws;
  if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

} // namespace

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
  if (!ranks::leads()) return; // every rank computes the same lines: the first prints them
  if (line_shown_ && stdout_tty_) clear_progress_line();
  std::fwrite(text.data(), 1, text.size(), stdout);
  // --stats counts every byte the program writes: print's lines too, beside write_text's
  // and binary writes' to `-`.
  io::standard_stream_counters("standard output").add(true, text.size());
  if (progress_) std::fflush(stdout);
}

} // namespace flow

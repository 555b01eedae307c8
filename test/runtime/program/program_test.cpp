// flow::program: flags (every option and param type, good and bad values), --help, rand,
// memory scaling, input file checks, the --stats report (JSON parsed back), errors from
// the body, and temporary disk files removed after an exception and after SIGTERM/SIGINT
// (in a child process: this test binary re-executed with FLOW_PROGRAM_TEST_CHILD set).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "flow/defaults.hpp"

#include <gtest/gtest.h>

#include "flow/containers/vector.hpp"
#include "flow/program.hpp"
#include "test_support.hpp"

namespace {

using flow::program;
using flow::usage_error;

// ---- argv helpers ----------------------------------------------------------------------

struct argv_list {
  explicit argv_list(std::vector<std::string> a) : args(std::move(a)) {
    args.insert(args.begin(), "prog");
    for (auto& s : args) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(args.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
};

const flow::program_options& parse(program& p, std::vector<std::string> args) {
  static argv_list* keep = nullptr; // parse() keeps no pointers, but keep it simple
  delete keep;
  keep = new argv_list(std::move(args));
  return p.parse(keep->argc(), keep->argv());
}

// The usage error for `args`, or "" if they parse.
std::string parse_error(program& p, std::vector<std::string> args, std::string* flag = nullptr) {
  try {
    parse(p, std::move(args));
  } catch (const usage_error& e) {
    if (flag) *flag = e.flag();
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- a tiny JSON parser (enough to check the --stats=json report) ----------------------

struct json {
  enum kind_t { null_v, bool_v, number_v, string_v, array_v, object_v } kind = null_v;
  bool b = false;
  double number = 0;
  std::string text;
  std::vector<json> items;       // array elements, or object values
  std::vector<std::string> keys; // object keys, parallel to items

  const json& operator[](const std::string& key) const {
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return items[i];
    throw std::out_of_range("no member " + key);
  }
  bool has(const std::string& key) const {
    for (const auto& k : keys)
      if (k == key) return true;
    return false;
  }
};

class json_parser {
public:
  explicit json_parser(const std::string& s) : s_(s) {}
  json parse() {
    json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(const std::string& t) {
    if (s_.compare(i_, t.size(), t) == 0) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  std::string string_lit() {
    if (!eat("\"")) fail("expected a string");
    std::string r;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c == '\\') {
        if (i_ >= s_.size()) fail("bad escape");
        const char e = s_[i_++];
        switch (e) {
        case 'n': r += '\n'; break;
        case 't': r += '\t'; break;
        case 'r': r += '\r'; break;
        case 'b': r += '\b'; break;
        case 'f': r += '\f'; break;
        case '"': case '\\': case '/': r += e; break;
        case 'u':
          if (i_ + 4 > s_.size()) fail("bad \\u");
          r += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          break;
        default: fail("bad escape");
        }
      } else {
        r += c;
      }
    }
    if (!eat("\"")) fail("unterminated string");
    return r;
  }
  json value() {
    ws();
    json v;
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = json::object_v;
      ws();
      if (eat("}")) return v;
      for (;;) {
        ws();
        std::string k = string_lit();
        ws();
        if (!eat(":")) fail("expected ':'");
        v.keys.push_back(k);
        v.items.push_back(value());
        ws();
        if (eat("}")) return v;
        if (!eat(",")) fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++i_;
      v.kind = json::array_v;
      ws();
      if (eat("]")) return v;
      for (;;) {
        v.items.push_back(value());
        ws();
        if (eat("]")) return v;
        if (!eat(",")) fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = json::string_v;
      v.text = string_lit();
      return v;
    }
    if (eat("true")) { v.kind = json::bool_v; v.b = true; return v; }
    if (eat("false")) { v.kind = json::bool_v; return v; }
    if (eat("null")) return v;
    const std::size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    if (i_ == start) fail("unexpected character");
    v.kind = json::number_v;
    std::size_t used = 0;
    v.number = std::stod(s_.substr(start, i_ - start), &used);
    if (used != i_ - start) fail("bad number");
    return v;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

json parse_json(const std::string& s) { return json_parser(s).parse(); }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string data(bytes, '\x5a');
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// Runs `p` in this process with stdout and stderr captured.
struct captured {
  int status = -1;
  std::string out, err;
};
captured run_captured(program& p, std::vector<std::string> args, const std::function<void()>& body) {
  argv_list a(std::move(args));
  captured c;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  c.status = p.run(a.argc(), a.argv(), body);
  c.out = ::testing::internal::GetCapturedStdout();
  c.err = ::testing::internal::GetCapturedStderr();
  return c;
}

// ---- the child process -----------------------------------------------------------------

// The child: a program whose body writes through the block manager, prints the path of
// its disk file, and then, by mode: "ok" ends normally, "throw" throws, "wait" waits for
// a signal. Its arguments come in FLOW_PROGRAM_TEST_ARGS, separated by '\x1f'.
int child_main(const std::string& mode) {
  std::vector<std::string> args = {"progchild"};
  if (const char* a = std::getenv("FLOW_PROGRAM_TEST_ARGS")) {
    std::string s = a;
    std::size_t start = 0;
    while (!s.empty()) {
      const std::size_t sep = s.find('\x1f', start);
      args.push_back(s.substr(start, sep - start));
      if (sep == std::string::npos) break;
      start = sep + 1;
    }
  }
  std::vector<char*> ptrs;
  for (auto& x : args) ptrs.push_back(x.data());
  ptrs.push_back(nullptr);

  static std::uint64_t n = 20000;
  program p("progchild", "the child process of program_test");
  p.param("n", n, "u64", "20000", "elements to write");
  p.memory_default(1 << 20);
  p.estimate([](flow::estimate& e) { e.phase(1, "write", 0, 8.0 * static_cast<double>(n)); });
  return p.run(static_cast<int>(args.size()), ptrs.data(), [&] {
    p.begin_phase(1, "write", n);
    flow::containers::vector<std::uint64_t> v(16 << 10, 4096);
    for (std::uint64_t i = 0; i < n; ++i) {
      v.push_back(i);
      p.advance();
    }
    v.flush();
    p.end_phase();
    std::printf("disk %s\n", flow::mng::block_manager::global().disk_at(0).path().c_str());
    std::fflush(stdout);
    if (mode == "throw") throw std::runtime_error("the child failed on purpose");
    if (mode == "wait") {
      for (;;) ::pause();
    }
    p.print("sum of nothing: ", 0);
  });
}

[[maybe_unused]] const int child_hook = [] {
  if (const char* mode = std::getenv("FLOW_PROGRAM_TEST_CHILD")) std::exit(child_main(mode));
  return 0;
}();

struct child {
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
};

// With `pty_stderr`, the child's stderr is a pseudo-terminal whose master side is err_fd.
child start_child(const std::string& mode, const std::vector<std::string>& args, bool pty_stderr = false) {
  std::string joined;
  for (std::size_t i = 0; i < args.size(); ++i) joined += (i ? "\x1f" : "") + args[i];
  std::vector<std::string> env_strings = {"FLOW_PROGRAM_TEST_CHILD=" + mode,
                                          "FLOW_PROGRAM_TEST_ARGS=" + joined};
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (!starts_with(s, "FLOW_PROGRAM_TEST_")) env_strings.push_back(s);
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) std::abort();
  self[len] = '\0';
  char* argv[] = {self, nullptr};

  int out[2], err[2];
  if (::pipe(out) != 0) std::abort();
  char slave[256] = {};
  if (pty_stderr) {
    err[0] = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (err[0] < 0 || ::grantpt(err[0]) != 0 || ::unlockpt(err[0]) != 0 ||
        ::ptsname_r(err[0], slave, sizeof slave) != 0)
      std::abort();
    err[1] = ::open(slave, O_RDWR | O_NOCTTY);
    if (err[1] < 0) std::abort();
  } else if (::pipe(err) != 0) {
    std::abort();
  }
  child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::close(out[0]);
    ::close(out[1]);
    ::close(err[0]);
    ::close(err[1]);
    ::execve(self, argv, envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  c.out_fd = out[0];
  c.err_fd = err[0];
  return c;
}

// Reads from fd until `until` appears (or EOF).
std::string read_until(int fd, const std::string& until = "") {
  std::string text;
  char buf[4096];
  while (until.empty() || !contains(text, until)) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

struct child_result {
  int status = 0;
  std::string out, err;
};

child_result finish_child(child& c, int signal = 0) {
  child_result r;
  r.out = read_until(c.out_fd, signal ? "\n" : "");
  if (signal) ::kill(c.pid, signal);
  r.out += read_until(c.out_fd);
  r.err = read_until(c.err_fd);
  ::close(c.out_fd);
  ::close(c.err_fd);
  ::waitpid(c.pid, &r.status, 0);
  return r;
}

std::string disk_path_of(const std::string& out) {
  const std::size_t at = out.find("disk ");
  if (at == std::string::npos) return "";
  const std::size_t end = out.find('\n', at);
  return out.substr(at + 5, end - at - 5);
}

} // namespace

// ======================================================================================
// Flags
// ======================================================================================

TEST(ProgramFlags, Defaults) {
  program p("prog");
  const auto& o = parse(p, {});
  EXPECT_FALSE(o.memory);
  EXPECT_FALSE(o.block);
  EXPECT_TRUE(o.disks.empty());
  EXPECT_TRUE(o.direct);
  EXPECT_FALSE(o.threads);
  EXPECT_EQ(o.seed, flow::default_seed);
  EXPECT_EQ(o.stats, flow::stats_format::none);
  EXPECT_FALSE(o.progress.has_value()); // on when stderr is a terminal
  EXPECT_FALSE(o.help);
  EXPECT_EQ(p.memory(), program::fallback_memory);
  EXPECT_EQ(p.block(), flow::block_for_memory(program::fallback_memory));
  EXPECT_EQ(p.threads(), flow::hardware_threads());
}

TEST(ProgramFlags, Memory) {
  program p("prog");
  p.memory_default(256ull << 20);
  EXPECT_EQ(*parse(p, {"--memory", "1GiB"}).memory, 1ull << 30);
  EXPECT_EQ(*parse(p, {"--memory=512MiB"}).memory, 512ull << 20);
  EXPECT_EQ(*parse(p, {"--memory", "256 MiB"}).memory, 256ull << 20);
  EXPECT_EQ(*parse(p, {"--memory=4096"}).memory, 4096u);
  EXPECT_EQ(*parse(p, {"--memory", "2G"}).memory, 2ull << 30);
  EXPECT_EQ(p.memory(), 2ull << 30);

  std::string flag;
  std::string e = parse_error(p, {"--memory", "lots"}, &flag);
  EXPECT_EQ(flag, "--memory");
  EXPECT_TRUE(starts_with(e, "--memory: 'lots' is not a size")) << e;
  // The least budget is the script's `memory` rule too (flow::min_memory_bytes).
  EXPECT_EQ(parse_error(p, {"--memory=0"}),
            "--memory: a budget below 4 KiB leaves no room for even one block; 0 bytes given");
  EXPECT_EQ(parse_error(p, {"--memory=4095"}),
            "--memory: a budget below 4 KiB leaves no room for even one block; 4095 bytes given");
  EXPECT_EQ(*parse(p, {"--memory=256KiB"}).memory, 256ull << 10);
  EXPECT_EQ(parse_error(p, {"--memory"}), "--memory needs a value (a size, e.g. 256MiB, or a share of physical memory, e.g. 50%)");
  EXPECT_EQ(parse_error(p, {"--memory", "--stats"}), "--memory needs a value (a size, e.g. 256MiB, or a share of physical memory, e.g. 50%)");
  EXPECT_TRUE(starts_with(parse_error(p, {"--memory=-5MiB"}), "--memory: '-5MiB' is not a size"));
  EXPECT_TRUE(starts_with(parse_error(p, {"--memory=99999999999TiB"}), "--memory: "));
  // More than a process can address is a bad value, not an "out of memory" later; a
  // budget above this machine's RAM but addressable is taken (the run warns).
  EXPECT_EQ(parse_error(p, {"--memory=18446744073709551615"}),
            "--memory: 18446744073709551615 is more than a process can address here (128 TiB); give a budget "
            "such as 4GiB");
  EXPECT_TRUE(starts_with(parse_error(p, {"--memory=129TiB"}), "--memory: 129TiB is more than a process can address"));
  EXPECT_EQ(*parse(p, {"--memory=128TiB"}).memory, 128ull << 40);
  // A share of physical memory, as GNU sort -S takes it: whole KiB of it.
  const std::uint64_t physical = flow::physical_memory_bytes();
  ASSERT_GT(physical, 0u);
  EXPECT_EQ(*parse(p, {"--memory=50%"}).memory, physical / 2 / 1024 * 1024);
  EXPECT_EQ(*parse(p, {"--memory", "100%"}).memory, physical / 1024 * 1024);
  EXPECT_EQ(*parse(p, {"--memory=12.5%"}).memory, static_cast<std::uint64_t>(physical * 0.125) / 1024 * 1024);
  for (const char* bad : {"--memory=0%", "--memory=101%", "--memory=%", "--memory=5x%", "--memory=1.2.3%"})
    EXPECT_TRUE(starts_with(parse_error(p, {bad}), "--memory: '")) << bad;
}

TEST(ProgramRun, DiskTooSmallForTheSureNeedIsAnErrorBeforeAnyWork) {
  flow::test::scratch_dir dir;
  program p("prog");
  p.estimate([&](flow::estimate&) { p.disk_need(2, "write to \"x.bin\" (1/2)", 3u << 20); });
  captured c = run_captured(p, {"--disk", dir.file("a.disk") + ":1MiB", "--disk", dir.path() + ":1MiB"},
                            [] { FAIL() << "ran"; });
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "prog: error: --disk: phase 2 (write to \"x.bin\" (1/2)) needs at least 3.00 MiB of temporary disk "
                   "at once (a sort's runs and merges), but the disks hold 2.00 MiB; give a larger SIZE in --disk PATH:SIZE, or another --disk\n");
  EXPECT_TRUE(dir.entries().empty()) << "the disks opened for the check are gone";
  // Enough room, or a disk without SIZE (the file system is the limit): it runs.
  bool ran = false;
  c = run_captured(p, {"--disk", dir.path() + ":3MiB"}, [&] { ran = true; });
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(ran);
  ran = false;
  c = run_captured(p, {"--disk", dir.path() + ":1MiB", "--disk", dir.path()}, [&] { ran = true; });
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(ran);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProgramFlags, MemoryDefaultsToTheScriptsBudget) {
  program p("prog");
  p.memory_default(256ull << 20);
  parse(p, {});
  EXPECT_EQ(p.memory(), 256ull << 20);
  parse(p, {"--memory", "1GiB"});
  EXPECT_EQ(p.memory(), 1ull << 30);
  EXPECT_EQ(p.memory_default(), 256ull << 20);
  // Without memory_default the planner's default (1 GiB) is the budget.
  program q("prog");
  parse(q, {});
  EXPECT_EQ(q.memory(), 1ull << 30);
}

TEST(ProgramFlags, Block) {
  program p("prog");
  p.memory_default(256ull << 20);
  p.block_default(1 << 20);
  EXPECT_EQ(parse(p, {}).block, std::nullopt);
  EXPECT_EQ(p.block(), 1u << 20);
  parse(p, {"--block", "64KiB"});
  EXPECT_EQ(p.block(), 64u << 10);
  parse(p, {"--block=4096"});
  EXPECT_EQ(p.block(), 4096u);
  parse(p, {"--memory=1GiB"}); // a fixed block does not follow the budget
  EXPECT_EQ(p.block(), 1u << 20);
  EXPECT_EQ(parse_error(p, {"--block", "5000"}),
            "--block: '5000' is not a power of two of at least 4 KiB (e.g. 64KiB, 1MiB)");
  EXPECT_EQ(parse_error(p, {"--block=2KiB"}),
            "--block: '2KiB' is not a power of two of at least 4 KiB (e.g. 64KiB, 1MiB)");
  EXPECT_TRUE(starts_with(parse_error(p, {"--block=big"}), "--block: 'big' is not a size"));
  EXPECT_THROW(p.block_default(5000), std::logic_error);

  // Without the script's block, the block follows the budget (flow::block_size).
  program q("prog");
  q.memory_default(256ull << 20);
  parse(q, {});
  EXPECT_EQ(q.block(), 2u << 20);
  parse(q, {"--memory=16MiB"});
  EXPECT_EQ(q.block(), 128u << 10);
  parse(q, {"--memory=1MiB"});
  EXPECT_EQ(q.block(), 64u << 10);
  parse(q, {"--memory=64GiB"});
  EXPECT_EQ(q.block(), 4u << 20);
}

TEST(ProgramFlags, Disk) {
  program p("prog");
  const auto& o = parse(p, {"--disk", "/var/tmp", "--disk=/scratch/a.disk:20GiB", "--disk", ":memory:"});
  ASSERT_EQ(o.disks.size(), 3u);
  EXPECT_EQ(o.disks[0].path, "/var/tmp");
  EXPECT_EQ(o.disks[0].capacity, 0u);
  EXPECT_EQ(o.disks[1].path, "/scratch/a.disk");
  EXPECT_EQ(o.disks[1].capacity, 20ull << 30);
  EXPECT_EQ(o.disks[2].path, ":memory:");
  EXPECT_TRUE(starts_with(parse_error(p, {"--disk="}), "--disk: empty --disk value")) << parse_error(p, {"--disk="});
  EXPECT_TRUE(starts_with(parse_error(p, {"--disk", "/tmp/x:0"}), "--disk /tmp/x:0: a disk of size 0"));
  EXPECT_EQ(parse_error(p, {"--disk"}), "--disk needs a value (PATH[:SIZE])");
}

TEST(ProgramFlags, DirectThreadsSeed) {
  program p("prog");
  EXPECT_FALSE(parse(p, {"--direct", "off"}).direct);
  EXPECT_TRUE(parse(p, {"--direct=on"}).direct);
  EXPECT_FALSE(parse(p, {"--direct=false"}).direct);
  EXPECT_EQ(parse_error(p, {"--direct", "maybe"}), "--direct: 'maybe' is not on or off");

  EXPECT_EQ(*parse(p, {"--threads", "4"}).threads, 4u);
  EXPECT_EQ(p.threads(), 4u);
  EXPECT_EQ(*parse(p, {"--threads=1"}).threads, 1u);
  EXPECT_EQ(parse_error(p, {"--threads=0"}), "--threads: 0 is not between 1 and 4096");
  EXPECT_EQ(parse_error(p, {"--threads", "5000"}), "--threads: 5000 is not between 1 and 4096");
  EXPECT_TRUE(starts_with(parse_error(p, {"--threads", "many"}), "--threads: 'many' is not a whole number"));
  EXPECT_TRUE(starts_with(parse_error(p, {"--threads=-1"}), "--threads: '-1' is out of range"));

  EXPECT_EQ(parse(p, {"--seed", "42"}).seed, 42u);
  EXPECT_EQ(parse(p, {"--seed=0xffff_ffff_ffff_ffff"}).seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse(p, {"--seed=1_000"}).seed, 1000u);
  EXPECT_EQ(parse(p, {"--seed=0"}).seed, 0u);
  EXPECT_EQ(parse_error(p, {"--seed=-1"}), "--seed: '-1' is out of range for u64 (0 to 18446744073709551615)");
  EXPECT_EQ(parse_error(p, {"--seed=18446744073709551616"}),
            "--seed: '18446744073709551616' is out of range for u64 (0 to 18446744073709551615)");
}

TEST(ProgramFlags, StatsProgressHelp) {
  program p("prog");
  EXPECT_EQ(parse(p, {"--stats"}).stats, flow::stats_format::text);
  EXPECT_EQ(parse(p, {"--stats=text"}).stats, flow::stats_format::text);
  const auto& j = parse(p, {"--stats=json"});
  EXPECT_EQ(j.stats, flow::stats_format::json);
  EXPECT_EQ(j.stats_path, "");
  const auto& jp = parse(p, {"--stats=json:/tmp/out:1.json"});
  EXPECT_EQ(jp.stats, flow::stats_format::json);
  EXPECT_EQ(jp.stats_path, "/tmp/out:1.json");
  const auto& tp = parse(p, {"--stats=text:report.txt"});
  EXPECT_EQ(tp.stats, flow::stats_format::text);
  EXPECT_EQ(tp.stats_path, "report.txt");
  EXPECT_EQ(parse(p, {"--stats=json:a.json", "--stats"}).stats_path, ""); // the last one wins
  EXPECT_EQ(parse_error(p, {"--stats=xml"}), "--stats: 'xml' is not text, json, text:PATH or json:PATH");
  EXPECT_EQ(parse_error(p, {"--stats=json:"}), "--stats: 'json:' has no path after ':'");

  EXPECT_EQ(parse(p, {"--progress"}).progress, std::optional<bool>(true));
  EXPECT_EQ(parse(p, {"--progress=on"}).progress, std::optional<bool>(true));
  EXPECT_EQ(parse(p, {"--progress=off"}).progress, std::optional<bool>(false));
  EXPECT_EQ(parse_error(p, {"--progress=yes"}), "--progress: 'yes' is not on or off");

  EXPECT_TRUE(parse(p, {"--help"}).help);
  EXPECT_TRUE(parse(p, {"-h"}).help);
  EXPECT_TRUE(parse(p, {"--bogus", "--help"}).help); // --help wins over mistakes
  EXPECT_EQ(parse_error(p, {"--", "--help"}),
            "unexpected argument '--help': the program takes only flags (see --help)");
}

TEST(ProgramFlags, UnknownFlagsAndArguments) {
  program p("prog");
  static std::uint64_t edges = 10;
  p.param("edges", edges, "u64", "10", "edges");
  std::string flag;
  EXPECT_EQ(parse_error(p, {"--sed", "5"}, &flag), "unknown flag '--sed'; did you mean --seed? (see --help)");
  EXPECT_EQ(flag, "--sed");
  EXPECT_EQ(parse_error(p, {"--egdes=5"}), "unknown flag '--egdes'; did you mean --edges? (see --help)");
  EXPECT_EQ(parse_error(p, {"--zzzzzzzz"}), "unknown flag '--zzzzzzzz' (see --help)");
  EXPECT_EQ(parse_error(p, {"input.bin"}, &flag),
            "unexpected argument 'input.bin': the program takes only flags, e.g. --NAME=VALUE (see --help)");
  EXPECT_EQ(flag, "input.bin");
  EXPECT_EQ(parse_error(p, {"-x"}), "unknown flag '-x': flags start with -- (see --help)");
  EXPECT_EQ(parse_error(p, {"--", "x"}), "unexpected argument 'x': the program takes only flags (see --help)");
  EXPECT_EQ(parse_error(p, {"--"}), "");
  // Arguments are user input: quoted short and escaped (flow/excerpt.hpp), so that no
  // terminal escape or control byte reaches the terminal.
  EXPECT_EQ(parse_error(p, {"\x1b[2Jx"}),
            "unexpected argument '\\x1b[2Jx': the program takes only flags, e.g. --NAME=VALUE (see --help)");
  EXPECT_EQ(parse_error(p, {"--edges=\x07" "5"}), "--edges: '\\x075' is not a whole number (write e.g. 42, 1_000_000, 0xff or 4e9)");
  EXPECT_NE(parse_error(p, {"--memory=" + std::string(100, '9') + "x"}).find(std::string(40, '9') + "…' is not a size"),
            std::string::npos);
}

// ======================================================================================
// Params
// ======================================================================================

namespace {
struct all_params {
  bool b = false;
  std::int8_t i8 = 0;
  std::int16_t i16 = 0;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  std::uint8_t u8 = 0;
  std::uint16_t u16 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  float f32 = 0;
  double f64 = 0;
  std::uint64_t max_depth = 3;

  void declare(program& p) {
    p.param("b", b, "bool", "false", "a bool");
    p.param("i8", i8, "i8", "0", "an i8");
    p.param("i16", i16, "i16", "0", "an i16");
    p.param("i32", i32, "i32", "0", "an i32");
    p.param("i64", i64, "i64", "0", "an i64");
    p.param("u8", u8, "u8", "0", "a u8");
    p.param("u16", u16, "u16", "0", "a u16");
    p.param("u32", u32, "u32", "0", "a u32");
    p.param("u64", u64, "u64", "0", "a u64");
    p.param("f32", f32, "f32", "0", "an f32");
    p.param("f64", f64, "f64", "0", "an f64");
    p.param("max_depth", max_depth, "u64", "3", "with an underscore");
  }
};
} // namespace

TEST(ProgramParams, EveryTypeTakesItsRange) {
  program p("prog");
  all_params v;
  v.declare(p);
  parse(p, {"--i8=-128", "--i16", "32767", "--i32=-2147483648", "--i64=9223372036854775807", "--u8=255",
            "--u16=0xffff", "--u32", "4e9", "--u64=18446744073709551615", "--f32=1.5", "--f64", "-2.5e-3"});
  EXPECT_EQ(v.i8, -128);
  EXPECT_EQ(v.i16, 32767);
  EXPECT_EQ(v.i32, std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(v.i64, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(v.u8, 255);
  EXPECT_EQ(v.u16, 65535);
  EXPECT_EQ(v.u32, 4000000000u);
  EXPECT_EQ(v.u64, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(v.f32, 1.5f);
  EXPECT_EQ(v.f64, -2.5e-3);
  parse(p, {"--i64=-9223372036854775808", "--i8=127", "--u32=1_000_000", "--u64=2.5e3", "--i32=-0x10",
            "--u8=0b1010", "--u16=0o17", "--f64=1_000.25", "--f32=4"});
  EXPECT_EQ(v.i64, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(v.i8, 127);
  EXPECT_EQ(v.u32, 1000000u);
  EXPECT_EQ(v.u64, 2500u);
  EXPECT_EQ(v.i32, -16);
  EXPECT_EQ(v.u8, 10);
  EXPECT_EQ(v.u16, 15);
  EXPECT_EQ(v.f64, 1000.25);
  EXPECT_EQ(v.f32, 4.0f);
  EXPECT_EQ(p.flags().params_given.size(), 9u);
  EXPECT_TRUE(p.given("u64"));
  EXPECT_FALSE(p.given("b"));
}

TEST(ProgramParams, OutOfRangeAndMalformedValues) {
  program p("prog");
  all_params v;
  v.declare(p);
  std::string flag;
  EXPECT_EQ(parse_error(p, {"--u8=256"}, &flag), "--u8: '256' is out of range for u8 (0 to 255)");
  EXPECT_EQ(flag, "--u8");
  EXPECT_EQ(parse_error(p, {"--u8", "-1"}), "--u8: '-1' is out of range for u8 (0 to 255)");
  EXPECT_EQ(parse_error(p, {"--i8=128"}), "--i8: '128' is out of range for i8 (-128 to 127)");
  EXPECT_EQ(parse_error(p, {"--i8=-129"}), "--i8: '-129' is out of range for i8 (-128 to 127)");
  EXPECT_EQ(parse_error(p, {"--i16=40000"}), "--i16: '40000' is out of range for i16 (-32768 to 32767)");
  EXPECT_EQ(parse_error(p, {"--u16=65536"}), "--u16: '65536' is out of range for u16 (0 to 65535)");
  EXPECT_EQ(parse_error(p, {"--i32=3e9"}), "--i32: '3e9' is out of range for i32 (-2147483648 to 2147483647)");
  EXPECT_EQ(parse_error(p, {"--u32=5e9"}), "--u32: '5e9' is out of range for u32 (0 to 4294967295)");
  EXPECT_EQ(parse_error(p, {"--i64=9223372036854775808"}),
            "--i64: '9223372036854775808' is out of range for i64 (-9223372036854775808 to 9223372036854775807)");
  EXPECT_EQ(parse_error(p, {"--u64=1e20"}), "--u64: '1e20' is out of range for u64 (0 to 18446744073709551615)");
  EXPECT_EQ(parse_error(p, {"--u64=1e400"}), "--u64: '1e400' is out of range for u64 (0 to 18446744073709551615)");
  EXPECT_EQ(parse_error(p, {"--u64=1.5"}), "--u64: '1.5' is not a whole number");
  EXPECT_EQ(parse_error(p, {"--u64=1e-1"}), "--u64: '1e-1' is not a whole number");
  const std::string not_whole = " is not a whole number (write e.g. 42, 1_000_000, 0xff or 4e9)";
  EXPECT_EQ(parse_error(p, {"--u64=ten"}), "--u64: 'ten'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=1__000"}), "--u64: '1__000'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=_1"}), "--u64: '_1'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=1_"}), "--u64: '1_'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=0x"}), "--u64: '0x'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=0xfg"}), "--u64: '0xfg'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64=12MiB"}), "--u64: '12MiB'" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64="}), "--u64: ''" + not_whole);
  EXPECT_EQ(parse_error(p, {"--u64"}), "--u64 needs a value (a u64)");
  EXPECT_EQ(parse_error(p, {"--f32=1e39"}), "--f32: '1e39' is out of range for f32");
  EXPECT_EQ(parse_error(p, {"--f64=1e400"}), "--f64: '1e400' is out of range for f64");
  EXPECT_EQ(parse_error(p, {"--f64=nan"}), "--f64: 'nan' is not a number (write e.g. 0.5, 1e-3 or 42)");
  EXPECT_EQ(parse_error(p, {"--f64=inf"}), "--f64: 'inf' is not a number (write e.g. 0.5, 1e-3 or 42)");
  EXPECT_EQ(parse_error(p, {"--f64=1.5x"}), "--f64: '1.5x' is not a number (write e.g. 0.5, 1e-3 or 42)");
  EXPECT_EQ(parse_error(p, {"--b=maybe"}), "--b: 'maybe' is not a bool (write true or false)");
}

TEST(ProgramParams, BoolForms) {
  program p("prog");
  all_params v;
  v.declare(p);
  parse(p, {"--b"});
  EXPECT_TRUE(v.b);
  parse(p, {"--b=false"});
  EXPECT_FALSE(v.b);
  parse(p, {"--b", "yes"});
  EXPECT_TRUE(v.b);
  parse(p, {"--b", "off", "--u8=1"});
  EXPECT_FALSE(v.b);
  parse(p, {"--b", "--u8=1"}); // a bare bool flag does not eat the next flag
  EXPECT_TRUE(v.b);
  EXPECT_EQ(v.u8, 1);
}

TEST(ProgramParams, DashesMatchUnderscores) {
  program p("prog");
  all_params v;
  v.declare(p);
  parse(p, {"--max-depth=7"});
  EXPECT_EQ(v.max_depth, 7u);
  parse(p, {"--max_depth", "8"});
  EXPECT_EQ(v.max_depth, 8u);
  EXPECT_EQ(parse_error(p, {"--max-depth=x"}).substr(0, 14), "--max_depth: '");
}

TEST(ProgramParams, DependentDefaultsFollowTheGivenParams) {
  static std::uint64_t edges = 1 << 20;
  static std::uint64_t nodes = edges / 4;
  static std::uint32_t half = 0;
  program p("mis");
  p.param("edges", edges, "u64", "1 << 20", "number of edges");
  p.param("nodes", nodes, "u64", "edges / 4", "number of nodes", [] { return edges / 4; });
  p.param("half", half, "u32", "(nodes / 2) as u32", "half the nodes", [] { return nodes / 2; });
  parse(p, {"--edges=100"});
  EXPECT_EQ(nodes, 25u);
  EXPECT_EQ(half, 12u);
  parse(p, {"--edges=100", "--nodes=7"});
  EXPECT_EQ(nodes, 7u);
  EXPECT_EQ(half, 3u);
  parse(p, {});
  EXPECT_EQ(edges, 100u); // a variable keeps the last value given; this is one process
  EXPECT_EQ(nodes, 25u);
}

TEST(ProgramParams, DeclarationMistakesAreLogicErrors) {
  program p("prog");
  static std::uint64_t a = 0, memory = 0, seed = 0;
  static std::uint32_t c = 0;
  p.param("a", a, "u64", "0", "");
  EXPECT_THROW(p.param("a", a, "u64", "0", ""), std::logic_error);
  EXPECT_THROW(p.param("memory", memory, "u64", "0", ""), std::logic_error);
  EXPECT_THROW(p.param("seed", seed, "u64", "0", ""), std::logic_error);
  EXPECT_THROW(p.param("c", c, "u64", "0", ""), std::logic_error); // u32 variable
  EXPECT_NO_THROW(p.param("c", c, "u32", "0", ""));
  EXPECT_THROW(p.given("nope"), std::logic_error);
}

// ======================================================================================
// --help
// ======================================================================================

TEST(ProgramHelp, ListsEveryParamAndFlag) {
  static std::uint64_t edges = 1 << 20;
  static std::uint64_t nodes = edges / 4;
  static bool verbose = false;
  static double ratio = 0.5;
  program p("mis", "maximal independent set of a random graph");
  p.param("edges", edges, "u64", "1 << 20", "number of edges");
  p.param("nodes", nodes, "u64", "edges / 4", "number of nodes", [] { return edges / 4; });
  p.param("verbose", verbose, "bool", "false", "say more");
  p.param("ratio", ratio, "f64", "0.5", "a fraction");
  p.memory_default(256ull << 20);
  p.block_default(1 << 20);
  const captured c = run_captured(p, {"--edges=8", "--help"}, [] { FAIL() << "the body ran"; });
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.err, "");
  const std::string& h = c.out;
  std::string flat; // whitespace runs as one space: descriptions wrap
  for (char ch : h) {
    if (ch == ' ' || ch == '\n') {
      if (flat.empty() || flat.back() != ' ') flat += ' ';
    } else {
      flat += ch;
    }
  }
  EXPECT_TRUE(starts_with(h, "mis - maximal independent set of a random graph\n")) << h;
  EXPECT_TRUE(contains(h, "usage: mis [--PARAM=VALUE]... [OPTION]...")) << h;
  EXPECT_TRUE(contains(h, "--edges=u64")) << h;
  EXPECT_TRUE(contains(h, "number of edges (u64, default 1 << 20 = 1048576)")) << h;
  EXPECT_TRUE(contains(h, "number of nodes (u64, default edges / 4 = 262144)")) << h;
  EXPECT_TRUE(contains(h, "--verbose[=bool]")) << h;
  EXPECT_TRUE(contains(h, "say more (bool, default false)")) << h;
  EXPECT_TRUE(contains(h, "a fraction (f64, default 0.5)")) << h;
  for (const char* f : {"--memory SIZE", "--block SIZE", "--disk PATH[:SIZE]", "--direct on|off", "--threads N",
                        "--seed N", "--stats[=FORMAT]", "--progress", "--help, -h", "--version"}) {
    EXPECT_TRUE(contains(h, f)) << f << "\n" << h;
  }
  EXPECT_TRUE(contains(flat, "(default 256 MiB, the script's)")) << h;
  EXPECT_TRUE(contains(flat, "(default 1.00 MiB, the script's)")) << h;
  EXPECT_TRUE(contains(flat, "text:PATH / json:PATH to a file")) << h;
  EXPECT_TRUE(contains(flat, "(default $FLOW_THREADS if set, else the CPUs available: " +
                                std::to_string(flow::hardware_threads()) + ")"))
      << h;
  EXPECT_TRUE(contains(h, "Exit status: 0 done, 1 error while running, 2 bad flag or value.")) << h;
  for (std::size_t at = 0, nl; (nl = h.find('\n', at)) != std::string::npos; at = nl + 1) {
    EXPECT_LE(nl - at, 90u) << h.substr(at, nl - at);
  }
}

// ======================================================================================
// rand
// ======================================================================================

TEST(ProgramRand, MatchesTheDocumentedAlgorithm) {
  // Values from the Python reference in flow/program/rand.hpp (test/e2e/Inputs/flow_rand.py).
  flow::seed_rand(1);
  EXPECT_EQ(flow::rand(), 0x348c3d1af8bec8e5ULL);
  EXPECT_EQ(flow::rand(), 0xe848b57330008cfbULL);
  EXPECT_EQ(flow::rand(), 0xe9752a8ff382eb96ULL);
  flow::seed_rand(0);
  EXPECT_EQ(flow::rand(), 0x78ae5a9a6b5fd45eULL);
  EXPECT_EQ(flow::rand(), 0xb9895a2b68592df1ULL);
  flow::seed_rand(42);
  const std::uint64_t expected[] = {795, 922, 321, 974, 12};
  for (std::uint64_t e : expected) EXPECT_EQ(flow::rand(1000), e);
  flow::seed_rand(1);
}

TEST(ProgramRand, AStageDrawsByPositionWhateverTheOrder) {
  // Python: Rand(1, stage=3, run=r).at(p), two draws of rand(1000).
  flow::seed_rand(1);
  using draws = std::pair<std::uint64_t, std::uint64_t>;
  const auto two = [] { return draws{flow::rand(1000), flow::rand(1000)}; };
  flow::rand_stage first(3); // run 0
  flow::rand_stage second(3); // run 1
  EXPECT_EQ(second.at(1ull << 40, two), draws(146, 970)); // any order of positions
  EXPECT_EQ(second.at(5, two), draws(392, 261));
  EXPECT_EQ(second.at(0, two), draws(91, 457));
  EXPECT_EQ(first.at(5, two), draws(30, 895));
  EXPECT_EQ(first.next(two), draws(939, 412)); // next() counts from position 0
  // Outside a stage's function the program's sequence goes on where it was.
  EXPECT_EQ(flow::rand(), 0x348c3d1af8bec8e5ULL);
  // A function that throws gives the sequence back too.
  EXPECT_THROW(first.at(7, []() -> int { throw std::runtime_error("x"); }), std::runtime_error);
  EXPECT_EQ(flow::rand(), 0xe848b57330008cfbULL);
  // seed_rand starts every stage again from its first run.
  flow::seed_rand(1);
  flow::rand_stage again(3);
  EXPECT_EQ(again.at(5, two), draws(30, 895));
  // Other threads draw a stage's values too (each its own element).
  std::vector<draws> by_thread(4);
  std::vector<std::thread> threads;
  for (std::uint64_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { by_thread[t] = second.at(t == 0 ? 0 : 5, two); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(by_thread[0], draws(91, 457));
  EXPECT_EQ(by_thread[3], draws(392, 261));
  flow::seed_rand(1);
}

TEST(ProgramRand, SeedMakesItDeterministic) {
  program p("prog");
  const auto draw = [&](std::vector<std::string> args) {
    std::vector<std::uint64_t> v;
    const captured c = run_captured(p, args, [&] {
      for (int i = 0; i < 100; ++i) v.push_back(i % 2 ? p.rand() : flow::rand(1000));
    });
    EXPECT_EQ(c.status, 0) << c.err;
    return v;
  };
  const auto a = draw({"--disk=:memory:", "--seed=7"});
  const auto b = draw({"--disk=:memory:", "--seed=7"});
  const auto c = draw({"--disk=:memory:", "--seed=8"});
  const auto d = draw({"--disk=:memory:"});
  const auto e = draw({"--disk=:memory:", "--seed=1"});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(d, e); // the default seed is 1
}

TEST(ProgramRand, RangeAndUniformity) {
  flow::seed_rand(123);
  const auto g = [](std::uint64_t n) { return flow::rand(n); };
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 1000ull, 1ull << 32, (1ull << 63) + 1, ~0ull}) {
    for (int i = 0; i < 1000; ++i) ASSERT_LT(g(n), n);
  }
  EXPECT_EQ(g(0), 0u);
  EXPECT_EQ(g(1), 0u);
  // 100000 draws of rand(10): every count within 5 sigma of 10000.
  std::uint64_t counts[10] = {};
  for (int i = 0; i < 100000; ++i) ++counts[g(10)];
  for (auto c : counts) EXPECT_NEAR(static_cast<double>(c), 10000.0, 5 * std::sqrt(9000.0));
  // The top of a large range is reached too.
  std::uint64_t top = 0;
  for (int i = 0; i < 1000; ++i) top = std::max(top, g(1ull << 40));
  EXPECT_GT(top, (1ull << 40) / 100 * 99);
  // Neighbouring positions of one stage: uniform too (a counter-based generator's weak spot).
  flow::rand_stage stage(1);
  std::uint64_t by_position[10] = {};
  for (std::uint64_t p = 0; p < 100000; ++p) ++by_position[stage.at(p, [] { return flow::rand(10); })];
  for (auto c : by_position) EXPECT_NEAR(static_cast<double>(c), 10000.0, 5 * std::sqrt(9000.0));
  flow::seed_rand(1);
}

// ======================================================================================
// Input files
// ======================================================================================

// A text file's lines are counted in its first MiB: exactly for a smaller file (a last
// line without a newline too), else its size scaled by the newlines per byte there
// (short lines are many more than a fixed bytes-per-line guess would say).
TEST(ProgramInput, TextFilesLinesAreEstimatedFromTheirStart) {
  flow::test::scratch_dir dir;
  const auto lines_of = [&](const std::string& text) {
    const std::string path = dir.file("t.txt");
    {
      std::ofstream f(path, std::ios::binary | std::ios::trunc);
      f << text;
    }
    program p("prog");
    p.input_file(path, 25, program::text_input);
    std::uint64_t lines = 0;
    const captured c = run_captured(p, {"--disk=:memory:"}, [&] { lines = p.input_elements(path); });
    EXPECT_EQ(c.status, 0) << c.err;
    return lines;
  };
  EXPECT_EQ(lines_of(""), 0u);
  EXPECT_EQ(lines_of("a"), 1u);
  EXPECT_EQ(lines_of("a\n\nb\n"), 3u);
  EXPECT_EQ(lines_of("a\nbb"), 2u);
  std::string words; // 2 MiB of 4-byte lines: 524288 of them, not 2 MiB / 25
  for (int i = 0; i < (1 << 19); ++i) words += "abc\n";
  EXPECT_EQ(lines_of(words), 1u << 19);
  std::string one_line(3 << 20, 'x'); // no newline in the first MiB: lines of 1 MiB or more
  EXPECT_EQ(lines_of(one_line), 3u);
}

TEST(ProgramInput, MissingWrongSizeAndGoodFiles) {
  flow::test::scratch_dir dir;
  const std::string good = dir.file("edges.bin"), bad = dir.file("odd.bin"), missing = dir.file("none.bin");
  write_file(good, 160);
  write_file(bad, 100);
  {
    program p("prog");
    p.input_file(good, 16, "Edge");
    bool ran = false;
    std::uint64_t elements = 0;
    const captured c = run_captured(p, {"--disk=:memory:"}, [&] {
      ran = true;
      elements = p.input_elements(good);
    });
    EXPECT_EQ(c.status, 0) << c.err;
    EXPECT_TRUE(ran);
    EXPECT_EQ(elements, 10u);
    EXPECT_THROW(p.input_elements("other"), std::logic_error);
  }
  // What a program declaring these input files prints when it refuses to run (status 1).
  const auto refused = [](const std::function<void(program&)>& declare_inputs) {
    program p("prog");
    declare_inputs(p);
    const captured c = run_captured(p, {"--disk=:memory:"}, [] { FAIL() << "ran"; });
    EXPECT_EQ(c.status, 1);
    return c.err;
  };
  EXPECT_EQ(refused([&](program& p) {
              p.input_file(good, 16, "Edge");
              p.input_file(missing, 16, "Edge");
            }),
            "prog: error: cannot read input file '" + missing +
                "': No such file or directory (errno 2); check the path (relative paths start at "
                "the current directory)\n");
  EXPECT_EQ(refused([&](program& p) { p.input_file(bad, 16, "Edge"); }),
            "prog: error: input file '" + bad +
                "' has 100 bytes, not a multiple of 16 (the size of one Edge): it is not a file "
                "of Edge, or it is truncated\n");
  EXPECT_EQ(refused([&](program& p) { p.input_file(dir.path(), 8); }),
            "prog: error: input file '" + dir.path() + "' is a directory\n");
  {
    // The estimate sees the input's size.
    program p("prog");
    p.input_file(good, 16, "Edge");
    double est = 0;
    p.estimate([&](flow::estimate& e) {
      est = 16.0 * static_cast<double>(p.input_elements(good));
      e.phase(1, "read", est, 0);
    });
    const captured c = run_captured(p, {"--disk=:memory:"}, [] {});
    EXPECT_EQ(c.status, 0);
    EXPECT_EQ(est, 160.0);
  }
}

// ======================================================================================
// run(): errors, exit codes, stats
// ======================================================================================

TEST(ProgramRun, BadFlagsExitTwoWithOneLine) {
  program p("mis");
  static std::uint64_t edges = 1;
  p.param("edges", edges, "u64", "1", "edges");
  captured c = run_captured(p, {"--edges=-3"}, [] { FAIL() << "ran"; });
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "mis: error: --edges: '-3' is out of range for u64 (0 to 18446744073709551615)\n");
  EXPECT_EQ(c.out, "");
  c = run_captured(p, {"--memroy=1GiB"}, [] { FAIL() << "ran"; });
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "mis: error: unknown flag '--memroy'; did you mean --memory? (see --help)\n");
  c = run_captured(p, {"--stats=json:/nonexistent-dir/x.json", "--disk=:memory:"}, [] { FAIL() << "ran"; });
  EXPECT_EQ(c.status, 2);
  EXPECT_EQ(c.err, "mis: error: --stats: cannot write '/nonexistent-dir/x.json': No such file or directory (errno 2)\n");
  c = run_captured(p, {"--disk=/nonexistent-dir/x/"}, [] { FAIL() << "ran"; });
  EXPECT_EQ(c.status, 2);
  EXPECT_TRUE(starts_with(c.err, "mis: error: --disk: cannot ")) << c.err;
  EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
}

TEST(ProgramRun, ErrorsInTheBodyExitOneAndRemoveTheDisk) {
  flow::test::scratch_dir dir;
  std::string disk_path;
  program p("prog");
  captured c = run_captured(p, {"--disk", dir.path()}, [&] {
    auto& bm = flow::mng::block_manager::global();
    disk_path = bm.disk_at(0).path();
    flow::containers::vector<std::uint64_t> v(16 << 10, 4096);
    for (int i = 0; i < 10000; ++i) v.push_back(static_cast<std::uint64_t>(i));
    v.flush();
    EXPECT_FALSE(flow::test::exists(disk_path)); // unlinked as soon as it was opened
    EXPECT_TRUE(dir.entries().empty());
    throw flow::io_error("flow: cannot read from 'x' (offset 0, 4096 bytes): Input/output error (errno 5)");
  });
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "prog: error: cannot read from 'x' (offset 0, 4096 bytes): Input/output error (errno 5)\n");
  EXPECT_FALSE(disk_path.empty());
  EXPECT_FALSE(flow::test::exists(disk_path));
  EXPECT_TRUE(dir.entries().empty());

  c = run_captured(p, {"--disk", dir.path()}, [] { throw std::runtime_error("script.flow:3:5: division by zero"); });
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "prog: error: script.flow:3:5: division by zero\n");
  c = run_captured(p, {"--disk", dir.path()}, [] { throw std::bad_alloc(); });
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "prog: error: out of memory; give the program a smaller --memory or free some memory\n");
  c = run_captured(p, {"--disk", dir.path()}, [] { throw 42; });
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "prog: error: an exception of unknown type stopped the program\n");
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProgramRun, SettingsReachTheRuntime) {
  flow::test::scratch_dir dir;
  program p("prog");
  p.memory_default(64 << 20);
  unsigned seen_threads = 0;
  bool direct = true;
  std::size_t disks = 0;
  const captured c =
      run_captured(p, {"--threads=3", "--direct=off", "--disk", dir.path(), "--disk", ":memory:"}, [&] {
        seen_threads = flow::threads();
        direct = flow::mng::block_manager::global().direct();
        disks = flow::mng::block_manager::global().disk_count();
      });
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(seen_threads, 3u);
  EXPECT_FALSE(direct);
  EXPECT_EQ(disks, 2u);
  EXPECT_TRUE(dir.entries().empty());
  flow::set_threads(0);
  EXPECT_EQ(flow::threads(), flow::hardware_threads());
}

TEST(ProgramRun, StatsJsonHasEveryField) {
  flow::test::scratch_dir dir;
  static std::uint64_t n = 50000;
  static bool flag = true;
  program p("prog");
  p.param("n", n, "u64", "50000", "elements");
  p.param("flag", flag, "bool", "true", "a flag");
  p.memory_default(1 << 20);
  p.block_default(4096);
  p.estimate([](flow::estimate& e) {
    e.phase(1, "write \"v\"", 0, 8.0 * static_cast<double>(n));
    e.phase(2, "scan v", 8.0 * static_cast<double>(n), 0);
    e.phase(3, "never runs", 1.5, 0);
  });
  const std::string json_path = dir.file("stats.json");
  const captured c = run_captured(p, {"--n=20000", "--disk", dir.path(), "--stats=json:" + json_path, "--memory=2MiB"}, [&] {
    flow::containers::vector<std::uint64_t> v(64 << 10, 4096);
    p.begin_phase(1, "write \"v\"", n);
    for (std::uint64_t i = 0; i < n; ++i) {
      v.push_back(i);
      p.advance();
    }
    v.flush();
    p.begin_phase(2, "scan v", n); // ends phase 1
    std::uint64_t sum = 0;
    for (auto r = v.scan(); !r.empty(); ++r) {
      sum += *r;
      p.advance();
    }
    p.end_phase();
    p.print("sum ", sum);
  });
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "sum 199990000\n");
  EXPECT_EQ(c.err, "");
  const std::string text = read_file(json_path);
  json j;
  ASSERT_NO_THROW(j = parse_json(text)) << text;
  EXPECT_EQ(j["program"].text, "prog");
  EXPECT_EQ(j["status"].text, "ok");
  EXPECT_FALSE(j.has("error"));
  EXPECT_GT(j["wall_seconds"].number, 0);
  EXPECT_GE(j["cpu_seconds"].number, 0);
  EXPECT_GE(j["write_bytes"].number, 20000 * 8);
  EXPECT_GE(j["read_bytes"].number, 20000 * 8 - 16 * 4096);
  EXPECT_GE(j["io_wait_seconds"].number, 0);
  EXPECT_EQ(j["memory_bytes"].number, 2 << 20);
  EXPECT_EQ(j["memory_default_bytes"].number, 1 << 20);
  EXPECT_EQ(j["block_bytes"].number, 4096);
  EXPECT_EQ(j["seed"].number, 1);
  EXPECT_EQ(j["params"]["n"].number, 20000);
  EXPECT_EQ(j["params"]["flag"].kind, json::bool_v);
  EXPECT_TRUE(j["params"]["flag"].b);
  EXPECT_EQ(j["estimate"]["read_bytes"].number, 160002); // 160000 + 1.5 rounded
  EXPECT_EQ(j["estimate"]["write_bytes"].number, 160000);
  ASSERT_EQ(j["phases"].items.size(), 3u);
  const json& p1 = j["phases"].items[0];
  EXPECT_EQ(p1["id"].number, 1);
  EXPECT_EQ(p1["label"].text, "write \"v\"");
  EXPECT_EQ(p1["runs"].number, 1);
  EXPECT_EQ(p1["elements"].number, 20000);
  EXPECT_GE(p1["write_bytes"].number, 20000 * 8);
  EXPECT_GE(p1["wall_seconds"].number, 0);
  EXPECT_GE(p1["cpu_seconds"].number, 0);
  EXPECT_GE(p1["io_wait_seconds"].number, 0);
  EXPECT_EQ(p1["estimate"]["write_bytes"].number, 160000);
  EXPECT_EQ(p1["estimate"]["read_bytes"].number, 0);
  const json& p2 = j["phases"].items[1];
  EXPECT_EQ(p2["id"].number, 2);
  EXPECT_EQ(p2["elements"].number, 20000);
  EXPECT_GE(p2["read_bytes"].number, 20000 * 8 - 16 * 4096);
  EXPECT_EQ(p2["write_bytes"].number, 0);
  const json& p3 = j["phases"].items[2];
  EXPECT_EQ(p3["runs"].number, 0);
  EXPECT_EQ(p3["label"].text, "never runs");
  EXPECT_EQ(p3["estimate"]["read_bytes"].number, 2);
  // The measured totals cover the phases.
  EXPECT_GE(j["write_bytes"].number, p1["write_bytes"].number);
  ASSERT_GE(j["disks"].items.size(), 1u);
  EXPECT_TRUE(starts_with(j["disks"].items[0]["path"].text, dir.path()));
  // Only the stats file is left in the directory.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"stats.json"});
}

// A phase's CPU time is what the process's threads computed in it, not the time that
// passed: a phase that sleeps shows wall time and almost no CPU, one that computes shows
// CPU time (the text report has it in the column after the wall time).
TEST(ProgramRun, StatsShowEachPhasesCpuTimeBesideItsWallTime) {
  flow::test::scratch_dir dir;
  program p("prog");
  const std::string json_path = dir.file("stats.json");
  volatile std::uint64_t sink = 0;
  const captured c = run_captured(p, {"--disk", dir.path(), "--stats=json:" + json_path}, [&] {
    p.begin_phase(1, "sleep", 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    p.begin_phase(2, "compute", 0);
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200))
      for (int i = 0; i < 1000; ++i) sink = sink + static_cast<std::uint64_t>(i);
    p.end_phase();
  });
  ASSERT_EQ(c.status, 0) << c.err;
  json j;
  ASSERT_NO_THROW(j = parse_json(read_file(json_path)));
  const json& sleep = j["phases"].items[0];
  const json& compute = j["phases"].items[1];
  EXPECT_GE(sleep["wall_seconds"].number, 0.2);
  EXPECT_LT(sleep["cpu_seconds"].number, 0.1);
  EXPECT_GT(compute["cpu_seconds"].number, 0.02); // busy for 0.2 s of wall time, however loaded the machine
  EXPECT_GE(j["cpu_seconds"].number, compute["cpu_seconds"].number);
  flow::run_report r;
  r.phases.push_back({.id = 1, .label = "compute", .runs = 1, .wall_seconds = 2, .cpu_seconds = 3.5});
  r.wall_seconds = 2;
  r.cpu_seconds = 3.5;
  const std::string text = flow::to_text(r);
  EXPECT_TRUE(contains(text, "phase     wall      CPU  read")) << text;
  EXPECT_TRUE(contains(text, "  1      2.000 s  3.500 s  ")) << text;
}

TEST(ProgramRun, StatsTextAndJsonOnStderrAfterStdout) {
  program p("prog");
  p.estimate([](flow::estimate& e) { e.phase(1, "loop at 3:1", 100, 200); });
  captured c = run_captured(p, {"--disk=:memory:", "--stats"}, [&] {
    p.begin_phase(1, "loop at 3:1");
    p.advance(5);
    p.end_phase();
    p.print("done");
  });
  EXPECT_EQ(c.status, 0);
  EXPECT_EQ(c.out, "done\n");
  EXPECT_TRUE(starts_with(c.err, "prog: stats\n")) << c.err;
  EXPECT_TRUE(contains(c.err, "\n  1  ")) << c.err;              // the row: the phase's id first,
  EXPECT_TRUE(contains(c.err, " 5  loop at 3:1\n")) << c.err;   // its elements and label last
  EXPECT_TRUE(contains(c.err, "disk standard output: read 0 B, written 5 B")) << c.err; // print's "done\n"
  EXPECT_TRUE(contains(c.err, "(100 B)")) << c.err;
  EXPECT_TRUE(contains(c.err, "(200 B)")) << c.err;
  EXPECT_TRUE(contains(c.err, "total")) << c.err;

  c = run_captured(p, {"--disk=:memory:", "--stats=json"}, [] { throw std::runtime_error("boom"); });
  EXPECT_EQ(c.status, 1);
  const std::size_t nl = c.err.find('\n');
  ASSERT_NE(nl, std::string::npos);
  EXPECT_EQ(c.err.substr(0, nl), "prog: error: boom");
  json j;
  ASSERT_NO_THROW(j = parse_json(c.err.substr(nl + 1))) << c.err;
  EXPECT_EQ(j["status"].text, "error");
  EXPECT_EQ(j["error"].text, "boom");
  EXPECT_EQ(j["phases"].items.size(), 1u);
  EXPECT_EQ(j["block_bytes"].number, static_cast<double>(flow::block_for_memory(program::fallback_memory)));
}

TEST(ProgramRun, PhasesInALoopAddUp) {
  program p("prog");
  const captured c = run_captured(p, {"--disk=:memory:"}, [&] {
    for (int k = 0; k < 3; ++k) {
      p.begin_phase(4, "body", 10);
      p.advance(10);
      p.end_phase();
    }
    p.end_phase(); // no-op
  });
  EXPECT_EQ(c.status, 0);
  ASSERT_EQ(p.report().phases.size(), 1u);
  EXPECT_EQ(p.report().phases[0].runs, 3u);
  EXPECT_EQ(p.report().phases[0].elements, 30u);
}

TEST(ProgramReport, PrintFormats) {
  program p("prog");
  const captured c = run_captured(p, {"--disk=:memory:"}, [&] {
    p.print("u8 ", std::uint8_t{200}, " i8 ", std::int8_t{-5}, " b ", true, " f ", 0.1, " g ", 1.5f, " c ", 'x',
            " s ", std::string("str"), " i ", -7, " big ", ~0ull, " d ", 1e20);
  });
  EXPECT_EQ(c.out, "u8 200 i8 -5 b true f 0.1 g 1.5 c x s str i -7 big 18446744073709551615 d 1e+20\n");
}

TEST(ProgramReport, ProgressLine) {
  const auto line = [](unsigned id, unsigned phases, std::string_view label, std::uint64_t done,
                       std::uint64_t expected, double seconds, std::uint64_t io_bytes, unsigned width,
                       bool finished) {
    flow::progress_state s;
    s.id = id;
    s.phases = phases;
    s.label = label;
    s.done = done;
    s.expected = expected;
    s.seconds = seconds;
    s.io_bytes = io_bytes;
    s.finished = finished;
    return flow::progress_line(s, width);
  };
  // elements per second and I/O bytes per second over the phase so far
  EXPECT_EQ(line(1, 3, "sort", 500, 1000, 10, 20 << 20, 100, false),
            "[1/3] sort  [==========>         ]  50%  500/1000  50/s  2.00 MiB/s  0:10 ETA 0:10");
  EXPECT_EQ(line(2, 0, "loop", 12345678, 0, 75, 0, 80, false), "[2] loop  12.35 M  164.6 k/s  0 B/s  1:15");
  EXPECT_EQ(line(1, 3, "sort", 1000, 1000, 3725, 0, 120, true),
            "[1/3] sort  [====================] 100%  1000/1000  0/s  0 B/s  1:02:05 done");
  EXPECT_EQ(line(3, 3, "scan", 20000, 0, 0.25, 0, 80, true), "[3/3] scan  20.0 k  80.0 k/s  0 B/s  0.250 s done");
  // Too narrow: the rates go first, then the label is shortened (at a character, not a
  // byte: labels hold "→").
  const std::string narrow = line(1, 3, "sort by key: merge → unique → for (a.flow:12) and on and on", 500, 1000, 10,
                                  1 << 20, 72, false);
  EXPECT_EQ(narrow, "[1/3] sort by k...  [==========>         ]  50%  500/1000  0:10 ETA 0:10");
  EXPECT_EQ(line(1, 3, "sort by key: merge → unique", 500, 1000, 0, 0, 87, false),
            "[1/3] sort by key: merge → unique  [==========>         ]  50%  500/1000  0:00 ETA 0:00");
  EXPECT_EQ(line(1, 3, "sort by key: merge → unique", 500, 1000, 0, 0, 86, false),
            "[1/3] sort by key: merge → un...  [==========>         ]  50%  500/1000  0:00 ETA 0:00");
}

TEST(ProgramReport, ProgressLineCountsIntermediateMergePasses) {
  // A merge phase of 1000 elements whose sort first merges 3000 elements in
  // intermediate passes: 4000 units of work; the bar moves during the passes.
  flow::progress_state s;
  s.id = 2;
  s.phases = 2;
  s.label = "sort: merge";
  s.expected = 1000;
  s.merged = 1000;
  s.merge_total = 3000;
  s.seconds = 10;
  EXPECT_EQ(flow::progress_line(s, 100),
            "[2/2] sort: merge  [=====>              ]  25%  merging runs 1000/3000  100/s  0 B/s  0:10 ETA 0:30");
  s.merged = 3000; // the passes are done: the final merge's elements count on
  s.done = 500;
  s.seconds = 35;
  EXPECT_EQ(flow::progress_line(s, 100),
            "[2/2] sort: merge  [=================>  ]  87%  500/1000  100/s  0 B/s  0:35 ETA 0:05");
  // With no element count known, the passes still show their share.
  s.expected = 0;
  s.done = 0;
  s.merged = 1500;
  EXPECT_EQ(flow::progress_line(s, 100),
            "[2/2] sort: merge  [==========>         ]  50%  merging runs 1500/3000  42/s  0 B/s  0:35 ETA 0:35");
}

TEST(ProgramReport, TraceRecorderFormat) {
  flow::trace_recorder t("prog\"x");
  t.span("phase", "sort: runs", 10, 1500.25, {{"phase", "1"}, {"nodes", flow::json_string("sort → write")}});
  t.counters(0, 0, 0, 0);
  t.counters(1510, 100, 4096, 0.5);
  t.counters(1400, 999, 999, 9); // earlier than the last sample: dropped
  t.counters(1600, 50, 5000, 0.25); // never below the last values
  json j;
  ASSERT_NO_THROW(j = parse_json(t.json())) << t.json();
  EXPECT_EQ(j["displayTimeUnit"].text, "ms");
  const auto& ev = j["traceEvents"].items;
  ASSERT_EQ(ev.size(), 2u + 1u + 3u * 2u);
  EXPECT_EQ(ev[0]["args"]["name"].text, "prog\"x");
  EXPECT_EQ(ev[2]["ph"].text, "X");
  EXPECT_EQ(ev[2]["name"].text, "sort: runs");
  EXPECT_EQ(ev[2]["ts"].number, 10);
  EXPECT_EQ(ev[2]["dur"].number, 1500.25);
  EXPECT_EQ(ev[2]["args"]["nodes"].text, "sort → write");
  EXPECT_EQ(ev[5]["ph"].text, "C");
  EXPECT_EQ(ev[5]["name"].text, "bytes");
  EXPECT_EQ(ev[5]["args"]["written"].number, 4096);
  EXPECT_EQ(ev[7]["ts"].number, 1600);
  EXPECT_EQ(ev[7]["args"]["read"].number, 100);
  EXPECT_EQ(ev[7]["args"]["written"].number, 5000);
  EXPECT_EQ(ev[8]["args"]["seconds"].number, 0.5);
}

TEST(ProgramReport, JsonStringEscapes) {
  EXPECT_EQ(flow::json_string("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  flow::run_report r;
  r.program = "x\"y";
  r.params = {{"a", "1"}};
  r.phases.push_back({});
  r.phases[0].id = 1;
  r.phases[0].label = "tab\there";
  json j;
  ASSERT_NO_THROW(j = parse_json(flow::to_json(r)));
  EXPECT_EQ(j["program"].text, "x\"y");
  EXPECT_EQ(j["phases"].items[0]["label"].text, "tab\there");
  EXPECT_EQ(j["phases"].items[0]["estimate"].kind, json::null_v);
}

TEST(ProgramReport, NodeCountsInJsonAndText) {
  // What the generated code counts per node (flow::node_counts): counted ones only,
  // a queue also under "queues" with its peak; the text shows the queues.
  std::vector<flow::node_count> counts = {
      {0, "pq depend", true, true}, {1, "generate", true, false}, {2, "sort", false, false}};
  std::vector<int> pushed;
  flow::counted_push_back(pushed, 5, counts[1]);
  flow::program p("prog");
  p.count_nodes(counts);
  std::priority_queue<int> q; // any queue with push and size
  const captured c = run_captured(p, {"--disk=:memory:", "--stats=json"}, [&] {
    for (int i = 0; i < 5; ++i) flow::counted_push(q, i, counts[0]);
    q.pop();
    flow::counted_push(q, 9, counts[0]);
  });
  json j;
  ASSERT_NO_THROW(j = parse_json(c.err)) << c.err;
  ASSERT_EQ(j["nodes"].items.size(), 2u); // the sort is not counted
  EXPECT_EQ(j["nodes"].items[0]["name"].text, "pq depend");
  EXPECT_EQ(j["nodes"].items[0]["elements"].number, 6);
  EXPECT_EQ(j["nodes"].items[1]["id"].number, 1);
  EXPECT_EQ(j["nodes"].items[1]["elements"].number, 1);
  ASSERT_EQ(j["queues"].items.size(), 1u);
  EXPECT_EQ(j["queues"].items[0]["pushes"].number, 6);
  EXPECT_EQ(j["queues"].items[0]["peak"].number, 5);
  EXPECT_TRUE(contains(flow::to_text(p.report()), "  pq depend: 6 pushes, at most 5 at once\n")) << flow::to_text(p.report());
}

// ======================================================================================
// The real process: exit codes, signals, temporary files
// ======================================================================================

TEST(ProgramProcess, NormalExitPrintsAndRemovesTheDisk) {
  flow::test::scratch_dir dir;
  child c = start_child("ok", {"--disk", dir.path(), "--stats"});
  const child_result r = finish_child(c);
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  EXPECT_TRUE(contains(r.out, "sum of nothing: 0\n")) << r.out;
  EXPECT_TRUE(starts_with(r.err, "progchild: stats\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "\n  1 ")) << r.err; // the phase's row: its id first ...
  EXPECT_TRUE(contains(r.err, "20000  write\n")) << r.err; // ... its elements and label last
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProgramProcess, BadFlagExitsTwo) {
  child c = start_child("ok", {"--n", "lots"});
  const child_result r = finish_child(c);
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 2);
  EXPECT_EQ(r.err, "progchild: error: --n: 'lots' is not a whole number (write e.g. 42, 1_000_000, 0xff or 4e9)\n");
  EXPECT_EQ(r.out, "");
}

TEST(ProgramProcess, ExceptionExitsOneAndRemovesTheDisk) {
  flow::test::scratch_dir dir;
  child c = start_child("throw", {"--disk", dir.path()});
  const child_result r = finish_child(c);
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 1);
  EXPECT_EQ(r.err, "progchild: error: the child failed on purpose\n");
  const std::string disk = disk_path_of(r.out);
  EXPECT_TRUE(starts_with(disk, dir.path())) << r.out;
  EXPECT_FALSE(flow::test::exists(disk));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProgramProcess, ProgressBarOnATerminal) {
  flow::test::scratch_dir dir;
  child c = start_child("ok", {"--disk", dir.path(), "--progress", "--n=300000"}, true);
  const child_result r = finish_child(c); // reading the master ends with EIO when the child is gone
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  EXPECT_TRUE(contains(r.err, "\r[1/1] write  [")) << r.err;
  EXPECT_TRUE(contains(r.err, "300.0 k/300.0 k")) << r.err;
  EXPECT_TRUE(contains(r.err, " done\x1b[K")) << r.err;
  EXPECT_TRUE(contains(r.out, "sum of nothing: 0\n")) << r.out;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProgramProcess, TraceIsAChromeTimeline) {
  flow::test::scratch_dir dir;
  const std::string path = dir.path() + "/run.trace.json";
  {
    std::ofstream old(path);
    old << "an earlier run's trace\n";
  }
  child c = start_child("ok", {"--disk", dir.path(), "--trace", path, "--n=300000"});
  const child_result r = finish_child(c);
  ASSERT_TRUE(WIFEXITED(r.status));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json j;
  ASSERT_NO_THROW(j = parse_json(text)) << text;
  const json* run = nullptr;
  const json* phase = nullptr;
  double last_ts = -1, last_written = -1;
  for (const json& e : j["traceEvents"].items) {
    if (e["ph"].text == "X" && e["cat"].text == "run") run = &e;
    if (e["ph"].text == "X" && e["cat"].text == "phase") phase = &e;
    if (e["ph"].text == "C" && e["name"].text == "bytes") {
      EXPECT_GE(e["ts"].number, last_ts);
      EXPECT_GE(e["args"]["written"].number, last_written);
      last_ts = e["ts"].number;
      last_written = e["args"]["written"].number;
    }
  }
  ASSERT_TRUE(run && phase) << text;
  EXPECT_EQ((*run)["name"].text, "progchild");
  EXPECT_EQ((*phase)["name"].text, "write");
  EXPECT_EQ((*phase)["args"]["elements"].number, 300000);
  EXPECT_EQ((*phase)["args"]["expected_elements"].number, 300000);
  EXPECT_GE((*phase)["ts"].number, (*run)["ts"].number);
  EXPECT_LE((*phase)["ts"].number + (*phase)["dur"].number, (*run)["ts"].number + (*run)["dur"].number);
  // 300000 u64 of the vector written in 4 KiB blocks: 2.4 MB, all counted by the end
  EXPECT_GE(last_written, 300000.0 * 8);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"run.trace.json"}); // replaced whole

  // A trace that cannot be written is a bad flag, before any work.
  child bad = start_child("ok", {"--disk", dir.path(), "--trace", dir.path() + "/missing/t.json"});
  const child_result b = finish_child(bad);
  ASSERT_TRUE(WIFEXITED(b.status));
  EXPECT_EQ(WEXITSTATUS(b.status), 2);
  EXPECT_EQ(b.err, "progchild: error: --trace: cannot write '" + dir.path() +
                       "/missing/t.json': No such file or directory (errno 2)\n");
  EXPECT_EQ(b.out, "");
}

class ProgramSignal : public ::testing::TestWithParam<int> {};

TEST_P(ProgramSignal, RemovesTheDiskAndDiesOfTheSignal) {
  const int sig = GetParam();
  flow::test::scratch_dir dir;
  child c = start_child("wait", {"--disk", dir.path(), "--progress", "--stats"});
  const child_result r = finish_child(c, sig);
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status << " " << r.err;
  EXPECT_EQ(WTERMSIG(r.status), sig);
  const std::string disk = disk_path_of(r.out);
  EXPECT_TRUE(starts_with(disk, dir.path())) << r.out;
  EXPECT_FALSE(flow::test::exists(disk));
  EXPECT_TRUE(dir.entries().empty());
  EXPECT_EQ(r.err, ""); // stderr is not a terminal: no progress bar
}

INSTANTIATE_TEST_SUITE_P(Program, ProgramSignal, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGTERM ? "SIGTERM" : "SIGINT");
                         });

// `-` as a path: binary and text readers and writers on standard input and output, fed
// and drained through pipe(2) in the test (descriptors 0 and 1 redirected with dup2);
// path params and the input checks of flow::program for `-` and files the script writes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "flow/io/error.hpp"
#include "flow/io/typed_file.hpp"
#include "flow/program.hpp"
#include "flow/script/text_files.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::io;

namespace {

/// Points descriptor `fd` at `to` until destroyed (stdio's stdout is flushed first).
struct redirect {
  int fd, saved;
  redirect(int fd_, int to) : fd(fd_), saved(::dup(fd_)) {
    std::fflush(stdout);
    ::dup2(to, fd);
  }
  ~redirect() {
    std::fflush(stdout);
    ::dup2(saved, fd);
    ::close(saved);
  }
};

struct pipe_fds {
  int read = -1, write = -1;
  pipe_fds() {
    int p[2];
    if (::pipe(p) == 0) {
      read = p[0];
      write = p[1];
    }
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
  ~pipe_fds() {
    close_read();
    close_write();
  }
};

std::string bytes_of(const std::vector<std::uint64_t>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(std::uint64_t));
}

/// Writes `data` into a pipe from a thread and reads it back through descriptor 0.
template <class F> void with_stdin(const std::string& data, F body) {
  pipe_fds p;
  ASSERT_GE(p.read, 0);
  std::thread feeder([&] {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t w = ::write(p.write, data.data() + done, data.size() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    p.close_write();
  });
  {
    redirect r(0, p.read);
    body();
  }
  p.close_read(); // a reader that stopped early: the feeder's write fails instead of blocking
  feeder.join();
}

/// Runs `body` with descriptor 1 on a pipe and returns what came out of it.
template <class F> std::string capture_stdout(F body) {
  pipe_fds p;
  std::string out;
  std::thread drain([&] {
    char buf[65536];
    for (;;) {
      const ssize_t r = ::read(p.read, buf, sizeof buf);
      if (r <= 0) break;
      out.append(buf, static_cast<std::size_t>(r));
    }
  });
  {
    redirect r(1, p.write);
    body();
  }
  p.close_write();
  drain.join();
  return out;
}

struct u64_fields {
  static constexpr std::size_t count = 1;
  static constexpr const char* type_name = "u64";
  static void read(script::text_fields& in, std::uint64_t& v) { in.read(v, ""); }
  static void write(std::string& out, const std::uint64_t& v) { script::append_scalar(out, v); }
};

} // namespace

TEST(StandardStreams, BinaryReaderReadsAPipeToItsEnd) {
  const std::size_t memory = 4 * 4096; // chunks of 4096 bytes: the data spans many
  std::vector<std::uint64_t> values(10000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * 7 + 3;
  std::vector<std::uint64_t> got;
  bool stream = false;
  with_stdin(bytes_of(values), [&] {
    file_reader<std::uint64_t> in("-", memory);
    stream = in.is_stream();
    for (; !in.empty(); ++in) got.push_back(*in);
  });
  EXPECT_TRUE(stream);
  EXPECT_EQ(got, values);
}

TEST(StandardStreams, BinaryReaderOfAnEmptyPipeIsEmpty) {
  bool empty = false;
  with_stdin("", [&] {
    file_reader<std::uint64_t> in("-", 4 * 4096);
    empty = in.empty();
  });
  EXPECT_TRUE(empty);
}

TEST(StandardStreams, InputEndingInsideAnElementNamesTheScriptLine) {
  std::string data = bytes_of({1, 2, 3});
  data += "abcde"; // 29 bytes: 3 elements and 5 bytes
  std::string message;
  std::uint64_t seen = 0;
  with_stdin(data, [&] {
    try {
      file_reader<std::uint64_t> in("-", 4 * 4096, true, "sort.flow:3:7");
      for (; !in.empty(); ++in) ++seen;
    } catch (const file_format_error& e) {
      message = e.what();
    }
  });
  EXPECT_NE(message.find("sort.flow:3:7: standard input ended inside an element"), std::string::npos) << message;
  EXPECT_NE(message.find("29 bytes are 3 elements of 8 bytes and 5 bytes left over"), std::string::npos) << message;
}

TEST(StandardStreams, BinaryWriterToAPipeKeepsOrderWithStdio) {
  std::vector<std::uint64_t> values(5000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i ^ 0x5555;
  const std::string out = capture_stdout([&] {
    std::fputs("text first\n", stdout); // buffered in stdio: must come before the data
    file_writer<std::uint64_t> w("-", 4 * 4096);
    for (std::uint64_t v : values) w.push(v);
    w.finish();
    std::fputs("text after\n", stdout);
  });
  EXPECT_EQ(out, "text first\n" + bytes_of(values) + "text after\n");
}

TEST(StandardStreams, BinaryWriterAppendsWhereTheShellLeftStdout) {
  test::scratch_dir dir;
  const std::string path = dir.file("out.bin");
  { std::ofstream(path, std::ios::binary) << "head"; }
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  {
    redirect r(1, fd);
    file_writer<std::uint64_t> w("-", 4 * 4096);
    w.push(1);
    w.push(2);
    w.finish();
  }
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "head" + bytes_of({1, 2})) << "nothing truncated, nothing overwritten";
}

TEST(StandardStreams, AbandonedWriterToStdoutLeavesWhatItWrote) {
  const std::string out = capture_stdout([&] {
    auto w = std::make_unique<file_writer<std::uint64_t>>("-", 4 * 4096);
    for (std::uint64_t i = 0; i < 1024; ++i) w->push(i); // 8 KiB: two chunks written
    w.reset();                                          // no finish(): no unlink of anything
  });
  EXPECT_GE(out.size(), 4096u);
}

TEST(StandardStreams, TextReaderAndWriterOnStandardStreams) {
  std::vector<std::uint64_t> got;
  with_stdin("1\n\n22 \n333\n", [&] {
    script::text_reader<std::uint64_t, u64_fields> in("-");
    for (; !in.empty(); ++in) got.push_back(*in);
  });
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 22, 333}));

  const std::string out = capture_stdout([&] {
    std::fputs("before\n", stdout);
    script::text_writer<std::uint64_t, u64_fields> w("-");
    w.push(5);
    std::fputs("between\n", stdout);
    w.push(6);
    w.finish();
    std::fputs("after\n", stdout);
  });
  EXPECT_EQ(out, "before\n5\nbetween\n6\nafter\n");
}

TEST(StandardStreams, TextReaderErrorNamesStandardInputAndTheLine) {
  std::string message;
  with_stdin("1\nx\n", [&] {
    try {
      script::text_reader<std::uint64_t, u64_fields> in("-");
      for (; !in.empty(); ++in) {
      }
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
  });
  EXPECT_EQ(message, "standard input:2: field 1 (u64): 'x' is not a u64 (write decimal digits, optionally after +)");
}

// ---- flow::program: path params and the input checks -----------------------------------

namespace {
int run_program(program& p, std::vector<std::string> args, const std::function<void()>& body, std::string* err = nullptr) {
  args.insert(args.begin(), "paths");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStderr();
  const int status = p.run(static_cast<int>(args.size()), argv.data(), body);
  const std::string e = ::testing::internal::GetCapturedStderr();
  if (err) *err = e;
  return status;
}
} // namespace

TEST(StandardStreams, PathParamIsAFlagWithItsDefaultInHelp) {
  std::string input = "edges.bin";
  program p("paths");
  p.param("input", input, "path", "\"edges.bin\"", "the edges");
  EXPECT_NE(p.help().find("--input=FILE"), std::string::npos) << p.help();
  EXPECT_NE(p.help().find("the edges (path, default \"edges.bin\")"), std::string::npos) << p.help();
  const char* argv[] = {"paths", "--input=other.bin"};
  p.parse(2, argv);
  EXPECT_EQ(input, "other.bin");
  const char* dash[] = {"paths", "--input", "-"};
  p.parse(3, dash);
  EXPECT_EQ(input, "-");
  const char* empty[] = {"paths", "--input="};
  EXPECT_THROW(p.parse(2, empty), usage_error);
  EXPECT_THROW(p.param("n", input, "u64", "", ""), std::logic_error);
}

TEST(StandardStreams, InputChecksSkipStdinAndFilesTheScriptWrites) {
  test::scratch_dir dir;
  const std::string existing = dir.file("in.bin");
  { std::ofstream(existing, std::ios::binary) << std::string(80, 'x'); }
  std::string input = existing, output = dir.file("missing.bin");
  program p("paths");
  p.param("input", input, "path", "", "");
  p.param("output", output, "path", "", "");
  p.memory_default(16 << 20);
  p.input_file([&] { return input; }, 8, "u64");
  p.input_file("-", 8, "u64");
  p.output_file([&] { return output; });
  bool known_file = false, known_stdin = true;
  std::uint64_t elements = 0;
  ASSERT_EQ(run_program(p, {}, [&] {
              known_file = p.input_size_known(input);
              elements = p.input_elements(input);
              known_stdin = p.input_size_known("-");
            }),
            0);
  EXPECT_TRUE(known_file);
  EXPECT_EQ(elements, 10u);
  EXPECT_FALSE(known_stdin) << "standard input has no size up front";

  // A missing input given at run time is an error before any work...
  std::string err;
  bool ran = false;
  EXPECT_EQ(run_program(p, {"--input=" + dir.file("nothing.bin")}, [&] { ran = true; }, &err), 1);
  EXPECT_FALSE(ran);
  EXPECT_NE(err.find("cannot read input file"), std::string::npos) << err;
  // ...unless the script writes it (by another name of the same file too).
  EXPECT_EQ(run_program(p, {"--input=" + dir.file("nothing.bin"), "--output=" + dir.file("nothing.bin")}, [&] {
              ran = true;
              known_file = p.input_size_known(input);
            }),
            0);
  EXPECT_TRUE(ran);
  EXPECT_FALSE(known_file);
  EXPECT_EQ(run_program(p, {"--input=" + existing, "--output=" + dir.file(".") + "/in.bin"}, [&] { known_file = p.input_size_known(input); }), 0);
  EXPECT_FALSE(known_file) << "the same file on disk under another name";
}

// Temporary disk files leave nothing on normal exit, exit(), an escaping exception, and
// SIGTERM / SIGINT / SIGKILL: checked on a child process (tempfile_child.cpp).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "flow/io/temp_files.hpp"
#include "test_support.hpp"

#ifndef FLOW_TEMPFILE_CHILD
#error "the build defines FLOW_TEMPFILE_CHILD as the helper's path"
#endif

namespace {

struct child {
  pid_t pid = -1;
  std::string disk_path; // as printed by the child
};

// Starts the helper and reads the path it prints once its disk file exists.
child start(const std::string& mode, const std::string& dir) {
  int out[2];
  if (::pipe(out) != 0) std::abort();
  child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(FLOW_TEMPFILE_CHILD, FLOW_TEMPFILE_CHILD, mode.c_str(), dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  char buf[4096];
  std::string text;
  ssize_t n;
  while (text.find('\n') == std::string::npos && (n = ::read(out[0], buf, sizeof buf)) > 0) {
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  c.disk_path = text;
  return c;
}

int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

} // namespace

TEST(TempFiles, RegistryAddsAndRemoves) {
  flow::test::scratch_dir dir;
  const std::string p = dir.file("registered");
  std::FILE* f = std::fopen(p.c_str(), "w");
  std::fclose(f);
  const auto before = flow::io::temp_files::count();
  flow::io::temp_files::add(p);
  EXPECT_EQ(flow::io::temp_files::count(), before + 1);
  flow::io::temp_files::remove(p);
  EXPECT_EQ(flow::io::temp_files::count(), before);
  EXPECT_FALSE(flow::test::exists(p));
}

class TempFilesInChild : public ::testing::TestWithParam<int> {};

TEST_P(TempFilesInChild, FatalSignalRemovesTheDiskFileAndStillKillsTheProcess) {
  const int sig = GetParam();
  flow::test::scratch_dir dir;
  child c = start("wait", dir.path());
  ASSERT_FALSE(c.disk_path.empty());
  // Unlinked as soon as it was opened: even SIGKILL, which no handler sees, leaves
  // nothing.
  EXPECT_FALSE(flow::test::exists(c.disk_path)) << c.disk_path;
  EXPECT_TRUE(dir.entries().empty());
  ::kill(c.pid, sig);
  const int status = wait_status(c.pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "re-raised: the child dies of the signal";
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_FALSE(flow::test::exists(c.disk_path));
  EXPECT_TRUE(dir.entries().empty());
}

INSTANTIATE_TEST_SUITE_P(Signals, TempFilesInChild,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGSEGV, SIGKILL));

TEST(TempFiles, NormalExitExitCallEscapingExceptionAndCrashRemoveTheDiskFile) {
  for (const std::string mode : {"exit", "exit-call", "throw", "crash"}) {
    flow::test::scratch_dir dir;
    child c = start(mode, dir.path());
    ASSERT_FALSE(c.disk_path.empty()) << mode;
    const int status = wait_status(c.pid);
    if (mode == "throw") {
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << mode;
    } else if (mode == "crash") {
      EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << mode;
    } else {
      EXPECT_TRUE(WIFEXITED(status)) << mode;
    }
    EXPECT_FALSE(flow::test::exists(c.disk_path)) << mode;
    EXPECT_TRUE(dir.entries().empty()) << mode;
  }
}

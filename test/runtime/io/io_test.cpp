// The AIO layer: files, asynchronous requests, waiting, callbacks, errors, statistics.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "flow/io/buffer.hpp"
#include "flow/io/error.hpp"
#include "flow/io/memory_file.hpp"
#include "flow/io/posix_file.hpp"
#include "flow/io/stats.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::io;

namespace {

void fill(aligned_buffer& b, unsigned seed) {
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = std::byte(static_cast<unsigned char>(seed + i * 7));
}

bool same(const aligned_buffer& a, const aligned_buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Exercises one file: 8 async writes, wait_all, 8 async reads in reverse, compare.
void round_trip(file& f) {
  constexpr std::size_t block = 4096;
  std::vector<aligned_buffer> out, in;
  std::vector<request_ptr> writes, reads;
  for (unsigned i = 0; i < 8; ++i) {
    out.emplace_back(block);
    fill(out.back(), i);
    writes.push_back(f.awrite(out.back().data(), i * block, block));
  }
  wait_all(writes);
  for (unsigned i = 0; i < 8; ++i) in.emplace_back(block);
  for (int i = 7; i >= 0; --i) reads.push_back(f.aread(in[i].data(), i * block, block));
  wait_all(reads.begin(), reads.end());
  for (unsigned i = 0; i < 8; ++i) EXPECT_TRUE(same(out[i], in[i])) << "block " << i;
  EXPECT_EQ(f.size(), 8 * block);
}

} // namespace

TEST(MemoryFile, AsyncRoundTrip) {
  memory_file f("mem");
  round_trip(f);
}

TEST(PosixFile, DirectRoundTrip) {
  test::scratch_dir dir;
  posix_file f(dir.file("d"), open_mode::read | open_mode::write | open_mode::create |
                                  open_mode::direct);
  EXPECT_TRUE(f.direct()) << "/var/tmp is expected to support O_DIRECT on this machine";
  EXPECT_EQ(f.alignment(), direct_alignment);
  round_trip(f);
}

TEST(PosixFile, BufferedRoundTrip) {
  test::scratch_dir dir;
  posix_file f(dir.file("b"), open_mode::read | open_mode::write | open_mode::create);
  EXPECT_FALSE(f.direct());
  round_trip(f);
}

TEST(PosixFile, RefusedDirectTransferFallsBackToBufferedAndWorks) {
  // A misaligned buffer makes the kernel refuse the direct transfer (EINVAL), exactly as
  // a file system without O_DIRECT support does: the file continues buffered.
  test::scratch_dir dir;
  posix_file f(dir.file("f"), open_mode::read | open_mode::write | open_mode::create |
                                  open_mode::direct);
  aligned_buffer b(8192), c(8192);
  fill(b, 3);
  f.awrite(b.data() + 1, 0, 4096)->wait();
  EXPECT_FALSE(f.direct());
  f.aread(c.data() + 1, 0, 4096)->wait();
  EXPECT_EQ(std::memcmp(b.data() + 1, c.data() + 1, 4096), 0);
}

TEST(Requests, CompletionHandlerRunsBeforeWaitReturns) {
  memory_file f("mem");
  aligned_buffer b(4096);
  std::atomic<int> calls{0};
  bool saw_success = false;
  auto r = f.awrite(b.data(), 0, 4096, [&](request& req) {
    saw_success = !req.failed() && req.kind() == request_kind::write && req.bytes() == 4096;
    ++calls;
  });
  r->wait();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(saw_success);
  EXPECT_TRUE(r->poll());
  EXPECT_EQ(r->transferred(), 4096u);
}

TEST(Requests, HandlerExceptionBecomesTheRequestError) {
  memory_file f("mem");
  aligned_buffer b(4096);
  auto r = f.awrite(b.data(), 0, 4096, [](request&) { throw std::runtime_error("handler"); });
  EXPECT_THROW(r->wait(), std::runtime_error);
  EXPECT_TRUE(r->failed());
}

TEST(Requests, WaitAnyAndPollAny) {
  memory_file f("mem");
  aligned_buffer b(4096);
  f.write(b.data(), 0, 4096);
  std::vector<request_ptr> rs;
  for (int i = 0; i < 4; ++i) rs.push_back(f.aread(b.data(), 0, 4096));
  const std::size_t i = wait_any(rs);
  ASSERT_LT(i, rs.size());
  EXPECT_TRUE(rs[i]->poll());
  wait_all(rs);
  EXPECT_LT(poll_any(rs), rs.size());
}

TEST(Requests, FifoPerDiskMakesReadSeeThePrecedingWrite) {
  test::scratch_dir dir;
  posix_file f(dir.file("fifo"), open_mode::read | open_mode::write | open_mode::create |
                                     open_mode::direct);
  aligned_buffer a(4096), b(4096);
  for (unsigned round = 0; round < 50; ++round) {
    fill(a, round);
    auto w = f.awrite(a.data(), 0, 4096);
    auto r = f.aread(b.data(), 0, 4096); // queued behind the write, not waited for it
    r->wait();
    w->wait();
    ASSERT_TRUE(same(a, b)) << "round " << round;
  }
}

TEST(Errors, ShortReadNamesFileOffsetAndSize) {
  test::scratch_dir dir;
  const std::string path = dir.file("short");
  posix_file f(path, open_mode::read | open_mode::write | open_mode::create | open_mode::direct);
  aligned_buffer b(8192);
  f.write(b.data(), 0, 4096);
  auto r = f.aread(b.data(), 4096, 4096);
  try {
    r->wait();
    FAIL() << "expected short_read_error";
  } catch (const short_read_error& e) {
    const std::string m = e.what();
    flow::test::expect_mentions(m, {path, "offset 4096", "4096 bytes"});
    EXPECT_EQ(e.path(), path);
    EXPECT_EQ(e.offset(), 4096u);
  }
  EXPECT_THROW(r->wait(), short_read_error) << "every wait rethrows";
}

TEST(Errors, NoSpaceBecomesDiskFullErrorInTheWaitingThread) {
  // /dev/full answers every write with ENOSPC.
  posix_file f("/dev/full", open_mode::write);
  aligned_buffer b(4096);
  auto r = f.awrite(b.data(), 0, 4096);
  std::string message;
  int error_number = 0;
  std::thread waiter([&] {
    try {
      r->wait();
    } catch (const disk_full_error& e) {
      message = e.what();
      error_number = e.error_number();
    }
  });
  waiter.join();
  EXPECT_EQ(error_number, ENOSPC);
  flow::test::expect_mentions(message, {"/dev/full", "No space left on device"});
  EXPECT_NE(message.find("--disk"), std::string::npos) << "says what to do: " << message;
}

TEST(Errors, WritingAFileOpenedReadOnlyFails) {
  test::scratch_dir dir;
  const std::string path = dir.file("ro");
  { posix_file create(path, open_mode::write | open_mode::create); }
  posix_file f(path, open_mode::read);
  aligned_buffer b(4096);
  auto r = f.awrite(b.data(), 0, 4096);
  try {
    r->wait();
    FAIL() << "expected io_error";
  } catch (const io_error& e) {
    EXPECT_EQ(e.error_number(), EBADF);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

TEST(Errors, OpeningInAMissingDirectoryOrReadOnlyPlace) {
  const std::string missing = "/nonexistent-flow-dir/x/disk";
  const std::string m = what_of([&] { posix_file f(missing, open_mode::write | open_mode::create); });
  flow::test::expect_mentions(m, {missing, "No such file or directory"});
  EXPECT_THROW(posix_file("/nonexistent-flow-dir/x", open_mode::write | open_mode::create),
               open_error);
  // /proc refuses new files even to root.
  EXPECT_THROW(posix_file("/proc/flow-test-file", open_mode::write | open_mode::create),
               open_error);
}

TEST(Errors, RequestOnAClosedFile) {
  memory_file f("closed-mem");
  aligned_buffer b(4096);
  f.write(b.data(), 0, 4096);
  f.close();
  EXPECT_FALSE(f.is_open());
  try {
    f.aread(b.data(), 0, 4096);
    FAIL() << "expected closed_file_error";
  } catch (const closed_file_error& e) {
    EXPECT_NE(std::string(e.what()).find("closed-mem"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.size(), closed_file_error);
  f.close(); // idempotent
}

TEST(Errors, CloseWaitsForPendingRequests) {
  test::scratch_dir dir;
  posix_file f(dir.file("pending"), open_mode::read | open_mode::write | open_mode::create);
  std::vector<aligned_buffer> bufs;
  std::vector<request_ptr> rs;
  for (int i = 0; i < 16; ++i) {
    bufs.emplace_back(65536);
    rs.push_back(f.awrite(bufs.back().data(), i * 65536ull, 65536));
  }
  f.close();
  for (auto& r : rs) EXPECT_TRUE(r->poll());
}

TEST(Stats, CountsBytesRequestsPerDiskAndTotalInAScope) {
  memory_file f("stats-mem");
  aligned_buffer b(4096);
  scoped_stats phase;
  for (int i = 0; i < 3; ++i) f.write(b.data(), i * 4096ull, 4096);
  for (int i = 0; i < 2; ++i) f.read(b.data(), i * 4096ull, 4096);
  const stats_snapshot s = phase.elapsed();
  const disk_snapshot t = s.total();
  EXPECT_EQ(t.writes, 3u);
  EXPECT_EQ(t.write_bytes, 3u * 4096);
  EXPECT_EQ(t.reads, 2u);
  EXPECT_EQ(t.read_bytes, 2u * 4096);
  bool found = false;
  for (const auto& d : s.disks) {
    if (d.name == "stats-mem") {
      found = true;
      EXPECT_EQ(d.write_bytes, 3u * 4096);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GE(s.elapsed_seconds, 0.0);
  EXPECT_GE(s.wait_seconds(), 0.0);
  std::ostringstream text;
  s.print(text, "phase");
  EXPECT_NE(text.str().find("stats-mem"), std::string::npos) << text.str();
  EXPECT_NE(s.to_json().find("\"write_bytes\":12288"), std::string::npos) << s.to_json();
}

TEST(Stats, WaitingForASlowRequestIsCountedAsIoWait) {
  // A 16 MiB buffered write through the page cache takes milliseconds; waiting for it
  // right away must show up as write wait.
  test::scratch_dir dir;
  posix_file f(dir.file("slow"), open_mode::read | open_mode::write | open_mode::create);
  aligned_buffer b(16 << 20);
  scoped_stats phase;
  f.write(b.data(), 0, b.size());
  const auto s = phase.elapsed();
  EXPECT_GT(s.write_wait_seconds, 0.0);
  EXPECT_GT(s.busy_seconds, 0.0);
  EXPECT_LE(s.wait_seconds(), s.elapsed_seconds + 1e-3);
}

TEST(Buffers, AreAlignedAndCounted) {
  const auto before = buffer_memory::current();
  {
    aligned_buffer a(12288);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % buffer_alignment, 0u);
    EXPECT_EQ(buffer_memory::current(), before + 12288);
    EXPECT_GE(buffer_memory::peak(), before + 12288);
  }
  EXPECT_EQ(buffer_memory::current(), before);
}

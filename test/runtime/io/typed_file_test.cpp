// Binary user files of T: round trips for every element size and boundary count, size
// checks, truncation, bad paths, full disks, abandoned writers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "flow/io/error.hpp"
#include "flow/io/typed_file.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::io;
using flow::test::value_of;

template <class T> class TypedFiles : public ::testing::Test {};
TYPED_TEST_SUITE(TypedFiles, test::element_types);

TYPED_TEST(TypedFiles, RoundTripAcrossChunkBoundariesDirectAndBuffered) {
  using T = TypeParam;
  test::scratch_dir dir;
  const std::size_t unit = std::lcm(sizeof(T), std::size_t{4096});
  const std::size_t memory = 8 * unit; // 4 chunks of 2 units: a chunk holds C elements
  const std::uint64_t C = 2 * unit / sizeof(T);
  for (bool direct : {true, false}) {
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, C - 1, C, C + 1, 9 * C + 7}) {
      SCOPED_TRACE((direct ? "direct, count " : "buffered, count ") + std::to_string(n));
      const std::string path = dir.file("data.bin");
      {
        file_writer<T> w(path, memory, direct);
        for (std::uint64_t i = 0; i < n; ++i) w.push(value_of<T>(i));
        EXPECT_EQ(w.size(), n);
        w.finish();
      }
      struct stat st;
      ASSERT_EQ(::stat(path.c_str(), &st), 0);
      EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), n * sizeof(T)) << "exact size, no padding";
      file_reader<T> r(path, memory, direct);
      EXPECT_EQ(r.size(), n);
      std::uint64_t i = 0;
      for (; !r.empty(); ++r, ++i) ASSERT_TRUE(*r == value_of<T>(i)) << i;
      EXPECT_EQ(i, n);
    }
  }
}

TEST(TypedFiles, SizeNotAMultipleOfTheElementIsAClearError) {
  test::scratch_dir dir;
  const std::string path = dir.file("odd.bin");
  {
    file_writer<std::uint8_t> w(path);
    for (int i = 0; i < 1001; ++i) w.push(1);
    w.finish();
  }
  try {
    file_reader<std::uint64_t> r(path);
    FAIL() << "expected file_format_error";
  } catch (const file_format_error& e) {
    const std::string m = e.what();
    flow::test::expect_mentions(m, {path, "1001 bytes", "element size 8", "125 whole elements and 1 bytes left over"});
  }
}

TEST(TypedFiles, FileTruncatedWhileBeingReadGivesShortReadError) {
  test::scratch_dir dir;
  const std::string path = dir.file("cut.bin");
  {
    file_writer<std::uint64_t> w(path, 64 << 10);
    for (std::uint64_t i = 0; i < 100000; ++i) w.push(i);
    w.finish();
  }
  // 64 KiB of memory: 4 chunks of 16 KiB; the first chunks are read ahead at once.
  file_reader<std::uint64_t> r(path, 64 << 10);
  ASSERT_EQ(::truncate(path.c_str(), 200 << 10), 0);
  EXPECT_THROW(
      {
        while (!r.empty()) ++r;
      },
      short_read_error);
}

TEST(TypedFiles, MissingFileAndUnwritablePlacesAreOpenErrors) {
  try {
    file_reader<int> r("/nonexistent-flow-dir/in.bin");
    FAIL();
  } catch (const open_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-flow-dir/in.bin"), std::string::npos);
    EXPECT_EQ(e.error_number(), ENOENT);
  }
  EXPECT_THROW(file_writer<int>("/nonexistent-flow-dir/out.bin"), open_error);
  EXPECT_THROW(file_writer<int>("/proc/flow-out.bin"), open_error);
}

TEST(TypedFiles, WritingToAFullDeviceFailsInFinishAndLeavesTheDeviceAlone) {
  EXPECT_THROW(
      {
        file_writer<std::uint64_t> w("/dev/full", 64 << 10, false);
        for (std::uint64_t i = 0; i < 100000; ++i) w.push(i);
        w.finish();
      },
      disk_full_error);
  EXPECT_TRUE(test::exists("/dev/full"));
}

TEST(TypedFiles, AbandonedWriterRemovesItsPartialOutput) {
  test::scratch_dir dir;
  const std::string path = dir.file("partial.bin");
  {
    file_writer<std::uint64_t> w(path, 64 << 10);
    for (std::uint64_t i = 0; i < 50000; ++i) w.push(i);
  }
  EXPECT_FALSE(test::exists(path));
}

// An output that is a symbolic link is written through, as cp and sort -o do: the file
// it leads to gets the contents, and the link stays a link (was: replaced by a file).
TEST(TypedFiles, AnOutputThatIsASymbolicLinkIsWrittenThrough) {
  test::scratch_dir dir;
  ASSERT_EQ(::mkdir(dir.file("data").c_str(), 0755), 0);
  const std::string real = dir.file("data/result.bin");
  {
    file_writer<std::uint64_t> w(real, 64 << 10);
    w.push(1);
    w.finish();
  }
  ASSERT_EQ(::symlink("data/result.bin", dir.file("relative.bin").c_str()), 0);
  ASSERT_EQ(::symlink(dir.file("relative.bin").c_str(), dir.file("chain.bin").c_str()), 0);
  ASSERT_EQ(::symlink("data/new.bin", dir.file("dangling.bin").c_str()), 0);
  for (const char* link : {"relative.bin", "chain.bin", "dangling.bin"}) {
    SCOPED_TRACE(link);
    {
      file_writer<std::uint64_t> w(dir.file(link), 64 << 10);
      for (std::uint64_t i = 0; i < 1000; ++i) w.push(i);
      w.finish();
    }
    struct stat st;
    ASSERT_EQ(::lstat(dir.file(link).c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link stays";
    file_reader<std::uint64_t> r(dir.file(link));
    EXPECT_EQ(r.size(), 1000u);
  }
  file_reader<std::uint64_t> r(real);
  EXPECT_EQ(r.size(), 1000u);
  file_reader<std::uint64_t> created(dir.file("data/new.bin"));
  EXPECT_EQ(created.size(), 1000u);
}

// A file of /proc says it has no bytes and gives its text when read: it is read to its
// end like a pipe (was: no elements), and can be read again; an empty file is empty.
TEST(TypedFiles, AFileThatSaysItIsEmptyIsReadToItsEnd) {
  std::uint64_t first = 0, second = 0;
  for (std::uint64_t* count : {&first, &second}) {
    file_reader<char> r("/proc/self/status", 64 << 10);
    std::string text;
    for (; !r.empty(); ++r) text += *r;
    *count = text.size();
    EXPECT_NE(text.find("VmRSS"), std::string::npos);
  }
  EXPECT_GT(first, 100u);
  EXPECT_GT(second, 100u);
  test::scratch_dir dir;
  const std::string empty = dir.file("empty.bin");
  { std::ofstream touch(empty); }
  for (int twice = 0; twice < 2; ++twice) {
    file_reader<std::uint64_t> r(empty, 64 << 10);
    EXPECT_TRUE(r.empty());
  }
}

TEST(TypedFiles, AbandonedWriterLeavesNothingInTheDirectoryAndTheOldTargetIntact) {
  test::scratch_dir dir;
  const std::string path = dir.file("kept.bin");
  {
    file_writer<std::uint64_t> w(path, 64 << 10);
    w.push(42);
    w.finish();
  }
  {
    file_writer<std::uint64_t> w(path, 64 << 10);
    for (std::uint64_t i = 0; i < 50000; ++i) w.push(i);
    // The temporary has no name while it is written (O_TMPFILE): only the old target.
    EXPECT_EQ(dir.entries().size(), 1u);
  }
  EXPECT_EQ(dir.entries().size(), 1u);
  file_reader<std::uint64_t> r(path);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(*r, 42u);
}

TEST(TypedFiles, AFifoIsReadToItsEndOnceAndASecondReadIsAnError) {
  test::scratch_dir dir;
  const std::string fifo = dir.file("in.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    for (std::uint64_t i = 0; i < 3000; ++i) ASSERT_EQ(::write(fd, &i, sizeof i), 8);
    ::close(fd);
  });
  std::uint64_t n = 0, sum = 0;
  try {
    file_reader<std::uint64_t> r(fifo, 64 << 10);
    EXPECT_TRUE(r.is_stream());
    for (; !r.empty(); ++r, ++n) sum += *r;
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  writer.join();
  EXPECT_EQ(n, 3000u);
  EXPECT_EQ(sum, 2999u * 3000u / 2);
  // Its elements are gone: a second read is an error at once (it would otherwise wait
  // for a writer forever, or see nothing), never an empty input.
  try {
    file_reader<std::uint64_t> again(fifo, 64 << 10);
    FAIL() << "a second read of the FIFO was allowed";
  } catch (const io_error& e) {
    EXPECT_NE(std::string(e.what()).find("in.fifo' is a pipe that this program has already read"), std::string::npos)
        << e.what();
  }
}

TEST(TypedFiles, TooLittleMemoryIsRefusedWithTheNeededAmount) {
  test::scratch_dir dir;
  try {
    file_writer<test::bytes_elem<100>> w(dir.file("x"), 4096);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("102400"), std::string::npos) << e.what();
  }
}

TEST(TypedFiles, MemoryStaysWithinTheBudget) {
  test::scratch_dir dir;
  const std::size_t budget = 256 << 10;
  const auto base = io::buffer_memory::current();
  io::buffer_memory::reset_peak();
  {
    file_writer<std::uint32_t> w(dir.file("m.bin"), budget);
    for (std::uint32_t i = 0; i < 1000000; ++i) w.push(i);
    w.finish();
    file_reader<std::uint32_t> r(dir.file("m.bin"), budget);
    std::uint32_t i = 0;
    for (; !r.empty(); ++r) ASSERT_EQ(*r, i++);
  }
  EXPECT_LE(io::buffer_memory::peak() - base, budget);
  EXPECT_EQ(io::buffer_memory::current(), base);
}

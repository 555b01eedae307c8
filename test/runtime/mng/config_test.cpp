// Sizes and --disk specifications.
#include <gtest/gtest.h>

#include "flow/mng/config.hpp"

using flow::mng::disk_config;
using flow::mng::disk_spec;
using flow::mng::parse_size;

TEST(ParseSize, UnitsAreBinary) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("12B"), 12u);
  EXPECT_EQ(parse_size("64K"), 64u << 10);
  EXPECT_EQ(parse_size("64KiB"), 64u << 10);
  EXPECT_EQ(parse_size("256MiB"), 256u << 20);
  EXPECT_EQ(parse_size("256mb"), 256u << 20);
  EXPECT_EQ(parse_size("4G"), 4ull << 30);
  EXPECT_EQ(parse_size("2TiB"), 2ull << 40);
}

TEST(ParseSize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "MiB", "12 apples", "1.5GiB", "-3", "99999999999999999999",
                          "20000000000TiB"}) {
    EXPECT_THROW(parse_size(bad), std::invalid_argument) << bad;
  }
  try {
    parse_size("12 apples");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("256MiB"), std::string::npos) << e.what();
  }
}

TEST(DiskSpec, PathSizeKeep) {
  auto a = disk_spec::parse("/scratch/flow.disk");
  EXPECT_EQ(a.path, "/scratch/flow.disk");
  EXPECT_EQ(a.capacity, 0u);
  EXPECT_FALSE(a.keep);

  auto b = disk_spec::parse("/scratch/flow.disk:40GiB");
  EXPECT_EQ(b.path, "/scratch/flow.disk");
  EXPECT_EQ(b.capacity, 40ull << 30);

  auto c = disk_spec::parse("/scratch/flow.disk:1G:keep");
  EXPECT_EQ(c.path, "/scratch/flow.disk");
  EXPECT_EQ(c.capacity, 1ull << 30);
  EXPECT_TRUE(c.keep);

  auto d = disk_spec::parse("/odd:name/disk"); // a ':' that is not a size stays in the path
  EXPECT_EQ(d.path, "/odd:name/disk");

  auto m = disk_spec::parse(":memory:");
  EXPECT_EQ(m.path, ":memory:");
  auto m2 = disk_spec::parse(":memory:64MiB");
  EXPECT_EQ(m2.path, ":memory:");
  EXPECT_EQ(m2.capacity, 64u << 20);

  EXPECT_THROW(disk_spec::parse(""), std::invalid_argument);
  EXPECT_THROW(disk_spec::parse("/x:0"), std::invalid_argument);
}

TEST(DiskConfig, DefaultIsOneTemporaryFileInTmpdirOrVarTmp) {
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/some/where", 1);
  EXPECT_EQ(disk_config::default_directory(), "/some/where");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(disk_config::default_directory(), "/var/tmp");
  auto c = disk_config::defaults();
  ASSERT_EQ(c.disks.size(), 1u);
  EXPECT_EQ(c.disks[0].path, "/var/tmp");
  EXPECT_TRUE(c.direct);
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
}

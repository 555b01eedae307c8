// Disks and the block manager: allocation, capacity, strategies, temporary files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "flow/io/error.hpp"
#include "flow/io/temp_files.hpp"
#include "flow/mng/block_manager.hpp"
#include "flow/mng/typed_block.hpp"
#include "test_support.hpp"

using namespace flow;
using namespace flow::mng;

TEST(Disk, FirstFitReusesFreedSpaceAndMergesNeighbours) {
  block_manager bm(test::memory_config());
  disk& d = bm.disk_at(0);
  auto a = *d.allocate(4096), b = *d.allocate(8192), c = *d.allocate(4096);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 4096u);
  EXPECT_EQ(c, 12288u);
  d.free(a, 4096);
  d.free(b, 8192); // merges with a's extent: 12 KiB free at 0
  EXPECT_EQ(*d.allocate(12288), 0u);
  EXPECT_EQ(d.allocated_bytes(), 16384u);
  d.free(c, 4096); // the tail: shrinks the used extent
  EXPECT_EQ(d.used_extent(), 12288u);
  EXPECT_THROW(d.free(c, 4096), std::logic_error) << "double free";
}

TEST(Disk, CapacityIsEnforced) {
  disk_config cfg;
  cfg.disks.push_back(disk_spec::parse(":memory:16KiB"));
  block_manager bm(cfg);
  auto s = allocation_strategy::striping();
  for (int i = 0; i < 4; ++i) bm.allocate(4096, s, i);
  try {
    bm.allocate(4096, s, 4);
    FAIL() << "expected disk_full_error";
  } catch (const disk_full_error& e) {
    const std::string m = e.what();
    flow::test::expect_mentions(m, {"--disk PATH:SIZE", "16.0 KiB"});
  }
}

TEST(BlockManager, AFullDiskSpillsToTheOthers) {
  disk_config cfg;
  cfg.disks.push_back(disk_spec::parse(":memory:8KiB"));
  cfg.disks.push_back(disk_spec::parse(":memory:"));
  block_manager bm(cfg);
  auto s = allocation_strategy::single_disk(0);
  auto ids = bm.allocate(5, 4096, s);
  EXPECT_EQ(bm.disk_at(0).allocated_bytes(), 8192u);
  EXPECT_EQ(bm.disk_at(1).allocated_bytes(), 3u * 4096);
  bm.free(ids);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
}

TEST(BlockManager, AllocationIsAllOrNothing) {
  disk_config cfg;
  cfg.disks.push_back(disk_spec::parse(":memory:16KiB"));
  block_manager bm(cfg);
  auto s = allocation_strategy::striping();
  EXPECT_THROW(bm.allocate(5, 4096, s), disk_full_error);
  EXPECT_EQ(bm.allocated_bytes(), 0u);
  EXPECT_THROW(bm.allocate(1000, s), std::invalid_argument) << "not a multiple of 4096";
}

TEST(Strategies, StripingAndRandomCyclingUseEveryDiskOncePerCycle) {
  const std::size_t D = 4;
  for (auto s : {allocation_strategy::striping(), allocation_strategy::random_cycling(7),
                 allocation_strategy::simple_random(3)}) {
    for (std::size_t cycle = 0; cycle < 50; ++cycle) {
      std::set<std::size_t> seen;
      for (std::size_t i = 0; i < D; ++i) seen.insert(s.disk_for(cycle * D + i, D));
      EXPECT_EQ(seen.size(), D) << "strategy " << int(s.which()) << " cycle " << cycle;
    }
  }
  // Random cycling really varies the order between cycles.
  auto rc = allocation_strategy::random_cycling(7);
  std::set<std::vector<std::size_t>> orders;
  for (std::size_t cycle = 0; cycle < 50; ++cycle) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < D; ++i) order.push_back(rc.disk_for(cycle * D + i, D));
    orders.insert(order);
  }
  EXPECT_GT(orders.size(), 5u);
  // Fully random spreads over all disks; single disk stays.
  auto fr = allocation_strategy::fully_random(5);
  std::map<std::size_t, int> hits;
  for (int i = 0; i < 400; ++i) ++hits[fr.disk_for(i, D)];
  EXPECT_EQ(hits.size(), D);
  auto one = allocation_strategy::single_disk(2);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(one.disk_for(i, D), 2u);
}

TEST(BlockManager, StripesBlocksOverSeveralDirectDisks) {
  test::scratch_dir dir;
  {
    block_manager bm(test::direct_config(dir.path(), 3));
    // One temporary file per disk, each unlinked as soon as it was opened.
    EXPECT_TRUE(dir.entries().empty());
    EXPECT_NE(bm.disk_at(0).path(), bm.disk_at(1).path());
    EXPECT_NE(bm.disk_at(1).path(), bm.disk_at(2).path());
    using block = typed_block<4096, std::uint64_t>;
    auto s = allocation_strategy::striping();
    auto ids = bm.allocate(9, 4096, s);
    std::vector<std::unique_ptr<block>> blocks;
    std::vector<io::request_ptr> rs;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      EXPECT_EQ(ids[i].storage->index(), i % 3);
      blocks.emplace_back(new block);
      for (auto& x : *blocks.back()) x = i;
      rs.push_back(blocks.back()->write(ids[i]));
    }
    io::wait_all(rs);
    block in;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      in.read(ids[i])->wait();
      EXPECT_EQ(in[0], i);
      EXPECT_EQ(in[block::size - 1], i);
    }
  }
  EXPECT_TRUE(dir.entries().empty()) << "temporary disk files removed by the destructor";
}

TEST(BlockManager, NewPathIsRemovedUnlessKeptExistingFileIsKept) {
  test::scratch_dir dir;
  const std::string fresh = dir.file("fresh.disk"), kept = dir.file("kept.disk"),
                    existing = dir.file("existing.disk");
  { ::close(::open(existing.c_str(), O_CREAT | O_WRONLY, 0644)); }
  {
    disk_config cfg;
    cfg.disks.push_back(disk_spec::parse(fresh + ":1MiB"));
    cfg.disks.push_back(disk_spec::parse(kept + ":keep"));
    cfg.disks.push_back(disk_spec::parse(existing));
    block_manager bm(cfg);
    EXPECT_TRUE(bm.disk_at(0).temporary());
    EXPECT_FALSE(bm.disk_at(1).temporary());
    EXPECT_FALSE(bm.disk_at(2).temporary());
    // A temporary disk is unlinked as soon as it is open (nothing to leave behind even
    // after SIGKILL); the kept one is there, locked, with the runtime's mode 0600.
    EXPECT_FALSE(test::exists(fresh));
    EXPECT_TRUE(test::exists(kept));
    struct stat st;
    ASSERT_EQ(::stat(kept.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  EXPECT_FALSE(test::exists(fresh));
  EXPECT_TRUE(test::exists(kept));
  EXPECT_TRUE(test::exists(existing));
}

TEST(BlockManager, DiskInAReadOnlyOrMissingPlaceFailsClearlyAndLeavesNothing) {
  test::scratch_dir dir;
  for (const std::string bad : {"/proc/flow-test.disk", "/nonexistent-flow-dir/flow.disk"}) {
    disk_config cfg;
    cfg.disks.push_back(disk_spec::parse(dir.path())); // opened first, must be cleaned up
    cfg.disks.push_back(disk_spec::parse(bad));
    try {
      block_manager bm(cfg);
      FAIL() << "expected open_error for " << bad;
    } catch (const open_error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
    EXPECT_TRUE(dir.entries().empty()) << "the first disk's temporary file was removed";
  }
  EXPECT_EQ(io::temp_files::count(), 0u);
}

TEST(BlockManager, DiskOnAFullDeviceReportsDiskFullOnWrite) {
  const auto registered = io::temp_files::count();
  // /dev/full is an existing "file": used as is, never removed, every write ENOSPC.
  disk_config cfg;
  cfg.disks.push_back(disk_spec::parse("/dev/full"));
  cfg.direct = false;
  block_manager bm(cfg);
  typed_block<4096, int> b;
  auto s = allocation_strategy::striping();
  auto id = bm.allocate(4096, s);
  EXPECT_THROW(b.write(id)->wait(), disk_full_error);
  EXPECT_TRUE(test::exists("/dev/full"));
  EXPECT_EQ(io::temp_files::count(), registered) << "a user's existing file is never temporary";
}

TEST(BlockManager, TruncatedDiskFileGivesShortReadErrorAndKeepsTheUsersFile) {
  test::scratch_dir dir;
  // A disk file of the user's (a temporary one has no name another program could cut).
  const std::string user_file = dir.file("user.disk");
  ::close(::open(user_file.c_str(), O_CREAT | O_WRONLY, 0644));
  {
    disk_config cfg;
    cfg.disks.push_back(disk_spec::parse(user_file));
    block_manager bm(cfg);
    typed_block<4096, int> b;
    auto s = allocation_strategy::striping();
    auto id = bm.allocate(4096, s);
    b.write(id)->wait();
    ASSERT_EQ(::truncate(bm.disk_at(0).path().c_str(), 0), 0); // another program cuts it
    try {
      b.read(id)->wait();
      FAIL() << "expected short_read_error";
    } catch (const short_read_error& e) {
      EXPECT_NE(std::string(e.what()).find(bm.disk_at(0).path()), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"user.disk"});
}

TEST(BlockManager, RequestOnAClosedDiskFileAndLeavesNothing) {
  test::scratch_dir dir;
  {
    block_manager bm(test::direct_config(dir.path()));
    typed_block<4096, int> b;
    auto s = allocation_strategy::striping();
    auto id = bm.allocate(4096, s);
    b.write(id)->wait();
    bm.disk_at(0).file().close();
    EXPECT_THROW(b.read(id), closed_file_error);
    EXPECT_THROW(b.write(id), closed_file_error);
  }
  EXPECT_TRUE(dir.entries().empty());
  EXPECT_EQ(io::temp_files::count(), 0u);
}

TEST(BlockManager, GlobalIsTheInstalledOne) {
  // The default manager is created in $TMPDIR: point that at a scratch directory so the
  // test leaves nothing in /var/tmp even if the process is killed.
  test::scratch_dir dir;
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  block_manager bm(test::memory_config());
  block_manager::set_global(&bm);
  EXPECT_EQ(&block_manager::global(), &bm);
  block_manager::set_global(nullptr);
  EXPECT_NE(&block_manager::global(), &bm);
  EXPECT_EQ(block_manager::global().disk_at(0).path().rfind(dir.path(), 0), 0u);
  {
    block_manager scoped(test::memory_config());
    block_manager::set_global(&scoped);
  } // destroyed while installed: global() falls back to the default again
  EXPECT_NE(&block_manager::global(), &bm);
  EXPECT_EQ(block_manager::global().disk_at(0).path().rfind(dir.path(), 0), 0u);
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

TEST(TypedBlock, SizesAndAlignment) {
  using b24 = typed_block<4096, test::bytes_elem<24>>;
  static_assert(b24::size == 170);
  static_assert(typed_block<4096, std::uint8_t>::size == 4096);
  static_assert(typed_block<8192, test::bytes_elem<100>>::size == 81);
  static_assert(sizeof(b24) == 4096);
  const auto before = io::buffer_memory::current();
  auto* b = new b24;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % 4096, 0u);
  EXPECT_EQ(io::buffer_memory::current(), before + 4096);
  delete b;
  EXPECT_EQ(io::buffer_memory::current(), before);
}

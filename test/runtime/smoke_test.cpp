#include <gtest/gtest.h>
#include "flow/mng/block_istream.hpp"
#include "flow/mng/block_ostream.hpp"
#include "flow/mng/typed_block.hpp"
TEST(Smoke, RoundTrip) {
  flow::mng::disk_config cfg; cfg.disks.push_back(flow::mng::disk_spec::parse(":memory:"));
  flow::mng::block_manager bm(cfg);
  using B = flow::mng::typed_block<4096, std::uint64_t>;
  flow::mng::block_ostream<B> out(bm, 2);
  for (std::uint64_t i = 0; i < 10000; ++i) out.push(i);
  auto seq = out.finish();
  flow::mng::block_istream<B> in(seq, 3);
  std::uint64_t i = 0;
  for (; !in.empty(); ++in, ++i) ASSERT_EQ(*in, i);
  EXPECT_EQ(i, 10000u);
}

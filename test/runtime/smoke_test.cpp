#include <gtest/gtest.h>
#include "flow/containers/queue.hpp"
#include "flow/containers/stack.hpp"
#include "flow/containers/vector.hpp"
#include "flow/io/typed_file.hpp"
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
  flow::containers::vector<std::uint64_t, 4096> v(4 * 4096, bm);
  flow::containers::stack<std::uint64_t, 4096> s(4 * 4096, bm);
  flow::containers::queue<std::uint64_t, 4096> q(4 * 4096, bm);
  for (std::uint64_t k = 0; k < 5000; ++k) { v.push_back(k); s.push(k); q.push(k); }
  for (std::uint64_t k = 0; k < 5000; ++k) {
    ASSERT_EQ(v.get(k), k);
    ASSERT_EQ(s.top(), 4999 - k); s.pop();
    ASSERT_EQ(q.front(), k); q.pop();
  }
  { flow::io::file_writer<std::uint64_t> w("/var/tmp/flow-smoke.bin"); for (std::uint64_t k = 0; k < 5000; ++k) w.push(k); w.finish(); }
  flow::io::file_reader<std::uint64_t> r("/var/tmp/flow-smoke.bin");
  std::uint64_t k = 0; for (; !r.empty(); ++r, ++k) ASSERT_EQ(*r, k);
  EXPECT_EQ(k, 5000u);
  ::unlink("/var/tmp/flow-smoke.bin");
}

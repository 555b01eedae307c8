// batched_stages: a map and filter stretch on 1, 2, 3 and 8 threads against the same
// functions applied element by element: the same elements in the same order, positions
// and counts, across sizes that end on, just before and just after a chunk, a share and
// one or two batches; the first error in input order, with the elements before it
// emitted; a stop that drops the rest of a batch and its error; its memory as the plan
// computes it, the same at any thread count. And a for stage's stretch, which puts out any number of elements per
// input: the same, where inputs put out far more than their room (chunks that overflow,
// finished on the calling thread), none, or more than a chunk's room alone; and folded by
// a key, what its outputs combine to.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow/plan/memory_plan.hpp"
#include "flow/stream/batched_stages.hpp"
#include "test_support.hpp"

namespace {

constexpr std::uint64_t kBlock = std::uint64_t{1} << 20;

struct word {
  std::uint64_t value;
  std::uint32_t digits;
};

// map x => word { x * 2654435761 % 1000003, digits }, then filter w => w.digits % 3 != 0
// (the stage function fails on the input `poison` when it is set).
struct stretch {
  std::uint64_t poison = UINT64_MAX;
  template <class Out>
  void operator()(const std::uint64_t& x, std::uint64_t position, Out&& out, std::uint64_t* counted) const {
    if (position != x) throw std::logic_error("position " + std::to_string(position) + " for " + std::to_string(x));
    if (x == poison) throw std::runtime_error("bad value " + std::to_string(x));
    const std::uint64_t v = x * 2654435761u % 1000003;
    const word w{v, static_cast<std::uint32_t>(std::to_string(v).size())};
    ++counted[0];
    if (w.digits % 3 != 0 || v % 7 == 0) out(w);
  }
};

struct result {
  std::vector<word> words;
  std::uint64_t mapped = 0;
  std::string error;
};

result one_by_one(std::uint64_t n, std::uint64_t poison, std::uint64_t stop_after = UINT64_MAX) {
  result r;
  const stretch s{poison};
  try {
    for (std::uint64_t x = 0; x < n && r.words.size() < stop_after; ++x)
      s(x, x, [&](const word& w) { r.words.push_back(w); }, &r.mapped);
  } catch (const std::runtime_error& e) {
    r.error = e.what();
  }
  return r;
}

/// Pushes 0, 1, …, n-1 through `b` until `stopped()`, then finishes it; the first error's
/// message ("" for none).
template <class Batches, class Emit, class Stopped>
std::string feed(Batches& b, std::uint64_t n, Emit&& emit, Stopped&& stopped) {
  try {
    for (std::uint64_t x = 0; x < n && !stopped(); ++x) b.push(x, emit, stopped);
    b.finish(emit, stopped);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

result batched(unsigned threads, std::uint64_t n, std::uint64_t poison, std::uint64_t stop_after = UINT64_MAX) {
  result r;
  const std::uint64_t memory = flow::plan::stage_batch_bytes(sizeof(std::uint64_t) + sizeof(word), kBlock);
  flow::stream::batched_stages<std::uint64_t, word, stretch> b(threads, memory, 1, stretch{poison});
  r.error = feed(b, n, [&](const word& w) { r.words.push_back(w); }, [&] { return r.words.size() >= stop_after; });
  r.mapped = b.counted(0);
  return r;
}

void expect_same(const result& want, const result& got, bool counts) {
  ASSERT_EQ(want.words.size(), got.words.size());
  for (std::size_t i = 0; i < want.words.size(); ++i) {
    ASSERT_EQ(want.words[i].value, got.words[i].value) << "at " << i;
    ASSERT_EQ(want.words[i].digits, got.words[i].digits) << "at " << i;
  }
  EXPECT_EQ(want.error, got.error);
  if (counts) {
    EXPECT_EQ(want.mapped, got.mapped);
  }
}

// A thread's share of a batch at `threads` (batched_stages divides the plan's memory,
// the same at any thread count, among them; at one thread the batch sizes of two).
std::uint64_t share_at(unsigned threads, std::uint64_t element_bytes, std::uint64_t room = 1) {
  return flow::plan::stage_batch_bytes(element_bytes, kBlock, room) / 2 / std::max(threads, 2u) / element_bytes;
}

TEST(BatchedStages, SameElementsInTheSameOrderAtAnyThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (const std::uint64_t share = share_at(threads, sizeof(std::uint64_t) + sizeof(word));
         std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, share / 4 - 1, share / 4 + 1, share - 1, share, share + 1,
                            share * threads, share * threads + 1, 2 * share * threads - 1,
                            2 * share * threads, 2 * share * threads + 1, 5 * share * threads + 7}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", n " + std::to_string(n));
      expect_same(one_by_one(n, UINT64_MAX), batched(threads, n, UINT64_MAX), true);
    }
}

TEST(BatchedStages, TheFirstErrorInInputOrderAfterTheElementsBeforeIt) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (const std::uint64_t share = share_at(threads, sizeof(std::uint64_t) + sizeof(word));
         std::uint64_t poison : {std::uint64_t{0}, share / 4, share - 1, share, 3 * share * threads + 5}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", poison " + std::to_string(poison));
      const result want = one_by_one(4 * share * threads, poison);
      ASSERT_EQ(want.error, "bad value " + std::to_string(poison));
      expect_same(want, batched(threads, 4 * share * threads, poison), false);
    }
}

TEST(BatchedStages, AStopDropsTheRestOfTheBatchAndItsError) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    const std::uint64_t share = share_at(threads, sizeof(std::uint64_t) + sizeof(word));
    SCOPED_TRACE("threads " + std::to_string(threads));
    // The downstream loop stops after 10 elements; the input that fails comes later in the
    // same batch, so one thread never computes it.
    const result want = one_by_one(4 * share * threads, 400, 10);
    ASSERT_EQ(want.words.size(), 10u);
    ASSERT_EQ(want.error, "");
    expect_same(want, batched(threads, 4 * share * threads, 400, 10), false);
  }
}

TEST(BatchedStages, BoolElements) {
  // A filter of bools (a std::vector<bool> has no data(): the batches are arrays).
  auto keep_true = [](const bool& x, std::uint64_t, auto&& out, std::uint64_t*) {
    if (x) out(x);
  };
  for (unsigned threads : {1u, 2u, 3u}) {
    flow::stream::batched_stages<bool, bool, decltype(keep_true)> b(
        threads, flow::plan::stage_batch_bytes(2, kBlock), 0, keep_true);
    std::uint64_t kept = 0;
    auto emit = [&](const bool& x) { kept += x ? 1 : 100; };
    auto never = [] { return false; };
    for (std::uint64_t i = 0; i < 100000; ++i) b.push(i % 3 == 0, emit, never);
    b.finish(emit, never);
    EXPECT_EQ(kept, 33334u) << threads << " threads";
  }
}

// A for stage: input x puts out `fan(x)` elements (x, 0), (x, 1), … — bursts far above
// the room of 4 per input, long runs of none, and now and then more than a chunk holds;
// it fails on `poison` after putting out half of them.
struct splitter {
  std::uint64_t poison = UINT64_MAX;
  std::uint64_t burst = 1;
  static std::uint64_t fan(std::uint64_t x, std::uint64_t burst) {
    const std::uint64_t phase = x / 1000 % 4; // 1000 inputs of each pattern in turn
    if (phase == 0) return x % 3;                           // about 1: below the room
    if (phase == 1) return 20 + x % 7;                      // 5× the room
    if (phase == 2) return x % 97 == 0 ? burst : 0;         // mostly none, now and then a burst
    return x % 11 == 0 ? 40 : 0;                            // 40 for one in 11
  }
  template <class Out> void operator()(const std::uint64_t& x, std::uint64_t position, Out&& out, std::uint64_t*) const {
    if (position != x) throw std::logic_error("position " + std::to_string(position) + " for " + std::to_string(x));
    const std::uint64_t n = fan(x, burst);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (x == poison && i == n / 2) throw std::runtime_error("bad value " + std::to_string(x));
      out(word{x, static_cast<std::uint32_t>(i)});
    }
  }
};

result split_one_by_one(std::uint64_t n, splitter s, std::uint64_t stop_after = UINT64_MAX) {
  result r;
  try {
    for (std::uint64_t x = 0; x < n && r.words.size() < stop_after; ++x)
      s(x, x, [&](const word& w) { if (r.words.size() < stop_after) r.words.push_back(w); }, nullptr);
  } catch (const std::runtime_error& e) {
    r.error = e.what();
  }
  return r;
}

result split_batched(unsigned threads, std::uint64_t n, splitter s, std::uint64_t stop_after = UINT64_MAX) {
  result r;
  constexpr std::size_t room = 4;
  const std::uint64_t memory = flow::plan::stage_batch_bytes(sizeof(std::uint64_t) + room * sizeof(word), kBlock);
  flow::stream::batched_stages<std::uint64_t, word, splitter> b(threads, memory, 0, s, room);
  // as a downstream loop's lambda does: nothing more once it has stopped (on one thread
  // the stage puts out the rest of the element it is in)
  auto emit = [&](const word& w) {
    if (r.words.size() < stop_after) r.words.push_back(w);
  };
  r.error = feed(b, n, emit, [&] { return r.words.size() >= stop_after; });
  return r;
}

TEST(BatchedStages, AForStageThatPutsOutAnyNumberPerInput) {
  // a burst within, about and above a chunk's room (5 × most: above it at 2 threads too,
  // whose chunks have eight times the room of 8 threads')
  const std::uint64_t most = flow::plan::stage_batch_share(sizeof(std::uint64_t) + 4 * sizeof(word), kBlock, 4);
  for (unsigned threads : flow::test::parallel_thread_counts({1u, 2u, 3u, 8u}))
    for (const std::uint64_t share = share_at(threads, sizeof(std::uint64_t) + 4 * sizeof(word), 4);
         std::uint64_t burst : {std::uint64_t{3}, most, 5 * most})
      for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, share - 1, share * threads + 1, std::uint64_t{9001}}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", burst " + std::to_string(burst) + ", n " +
                     std::to_string(n));
        expect_same(split_one_by_one(n, splitter{UINT64_MAX, burst}), split_batched(threads, n, splitter{UINT64_MAX, burst}),
                    false);
      }
}

TEST(BatchedStages, AForStageErrorAfterWhatCameBeforeItAndAStop) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::uint64_t poison : {std::uint64_t{1}, std::uint64_t{1001}, std::uint64_t{2910}, std::uint64_t{3993}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", poison " + std::to_string(poison));
      const result want = split_one_by_one(8000, splitter{poison, 500});
      ASSERT_EQ(want.error, "bad value " + std::to_string(poison));
      expect_same(want, split_batched(threads, 8000, splitter{poison, 500}), false);
      // a downstream loop that stops in the middle of an overflowing input's outputs
      const result stopped = split_one_by_one(8000, splitter{UINT64_MAX, 500}, 30000);
      ASSERT_EQ(stopped.words.size(), 30000u);
      expect_same(stopped, split_batched(threads, 8000, splitter{UINT64_MAX, 500}, 30000), false);
    }
}

// Folded by a key: the splitter's outputs keyed by (x + i * i) % 37, their digits
// summed. Whatever the chunks, the outputs that leave the stretch, combined in order per
// key, must give what the unfolded outputs give, in the order of the keys' first outputs.
struct keyed {
  std::vector<std::uint64_t> keys; // in the order of their first outputs
  std::vector<std::uint32_t> sums;
  std::uint64_t outputs = 0; // as put out, folded or not
  std::string error;
  void add(const word& w) {
    std::size_t k = 0;
    while (k < keys.size() && keys[k] != w.value) ++k;
    if (k == keys.size()) {
      keys.push_back(w.value);
      sums.push_back(0);
    }
    sums[k] += w.digits;
  }
};
word keyed_word(const word& w) { return word{(w.value + w.digits * w.digits) % 37, 1 + static_cast<std::uint32_t>(w.value + w.digits) % 5}; }

keyed fold_one_by_one(std::uint64_t n, splitter s) {
  keyed r;
  const result all = split_one_by_one(n, s);
  for (const word& w : all.words) r.add(keyed_word(w));
  r.outputs = all.words.size();
  r.error = all.error;
  return r;
}

keyed fold_batched(unsigned threads, std::uint64_t n, splitter s, std::uint64_t* left) {
  keyed r;
  constexpr std::size_t room = 4;
  auto keyed_stage = [s](const std::uint64_t& x, std::uint64_t position, auto&& out, std::uint64_t* counted) {
    s(x, position, [&](const word& w) { out(keyed_word(w)); }, counted);
  };
  const std::uint64_t memory = flow::plan::stage_batch_bytes(sizeof(std::uint64_t) + room * sizeof(word), kBlock);
  flow::stream::batched_stages<std::uint64_t, word, decltype(keyed_stage)> b(threads, memory, 0, keyed_stage, room,
                                                                             flow::stream::folds_outputs);
  const auto fold = flow::stream::folded_by([](const word& w) { return w.value * 0x9E3779B97F4A7C15ull; },
                                            [](const word& a, const word& c) { return a.value == c.value; },
                                            [](const word& a, const word& c) { return word{a.value, a.digits + c.digits}; });
  try {
    for (std::uint64_t x = 0; x < n; ++x) b.push(x, [&](const word& w) { r.add(w), ++*left; }, [] { return false; }, fold);
    b.finish([&](const word& w) { r.add(w), ++*left; }, [] { return false; }, fold);
  } catch (const std::runtime_error& e) {
    r.error = e.what();
  }
  r.outputs = *left + b.folded();
  return r;
}

TEST(BatchedStages, OutputsFoldedByAKeyCombineToWhatTheUnfoldedGive) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::uint64_t poison : {UINT64_MAX, std::uint64_t{2910}})
      for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{999}, std::uint64_t{9001}}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", poison " + std::to_string(poison) + ", n " +
                     std::to_string(n));
        const keyed want = fold_one_by_one(n, splitter{poison, 500});
        std::uint64_t left = 0;
        const keyed got = fold_batched(threads, n, splitter{poison, 500}, &left);
        EXPECT_EQ(want.keys, got.keys);
        EXPECT_EQ(want.sums, got.sums);
        EXPECT_EQ(want.error, got.error);
        if (want.error.empty()) {
          EXPECT_EQ(want.outputs, got.outputs);
        }
        if (threads > 1 && n == 9001 && poison == UINT64_MAX) {
          EXPECT_LT(left, got.outputs) << "no output folded";
        }
      }
}

TEST(BatchedStages, MemoryIsWhatThePlanGivesTheSameAtAnyThreadCount) {
  EXPECT_EQ(flow::plan::stage_batch_share(24, kBlock), (128u << 10) / 24);
  EXPECT_EQ(flow::plan::stage_batch_bytes(24, kBlock), 2 * 4 * ((128u << 10) / 24) * 24); // two batches of 4 shares
  EXPECT_EQ(flow::plan::stage_batch_share(24, 16u << 10), (16u << 10) / 24);                // a small block: small batches
  EXPECT_EQ(flow::plan::stage_batch_share(1u << 20, kBlock), 32u); // large elements: still a batch worth waking threads for
  EXPECT_EQ(flow::plan::stage_batch_share(1, kBlock), 8192u);
  // a for stage's (room for 4 outputs an input): up to 1 MiB a share, still at most a block
  EXPECT_EQ(flow::plan::stage_batch_share(352, kBlock, 4), (1u << 20) / 352);
  EXPECT_EQ(flow::plan::stage_batch_share(352, 16u << 10, 4), 46u);
  EXPECT_EQ(flow::plan::stage_batch_bytes(352, kBlock, 4), 2 * 4 * ((1u << 20) / 352) * 352);
}

} // namespace

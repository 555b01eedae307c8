#pragma once
// A sort spread over the ranks (flow/ranks.hpp): each rank pushes its part of the
// input; result() exchanges the elements by key ranges and returns this rank's sorted
// runs, which a runs_merger merges as usual. Rank r ends up with the keys between
// splitters r-1 and r, so the ranks' outputs in rank order are the whole input sorted,
// and equal keys are on one rank (a unique or a grouping after the sort needs no other).
//
// The splitters come from a sample: while its input is pushed, each rank keeps every
// stride-th element (at most 2 * samples_per_rank; the stride doubles when that fills),
// and result() gathers the samples of all ranks, sorts them and takes P - 1 evenly
// spaced ones (a sample sort, as Thrill's and the STXXL paper's distributed sorts). The
// input waits in a spool (an external vector) meanwhile; the exchange then reads it once
// and sends it in rounds of at most one block per rank, every rank pushing what it
// receives into the run formation that sorts its range.
//
// One rank: pushes go straight to the run formation, as without MPI.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "flow/algo/runs_creator.hpp"
#include "flow/containers/vector.hpp"
#include "flow/defaults.hpp"
#include "flow/ranks.hpp"

namespace flow::ranks {

template <class T, class Cmp> class sample_sort {
  static_assert(std::is_trivially_copyable_v<T>, "elements travel between ranks as raw bytes");

public:
  using value_type = T;
  static constexpr std::size_t samples_per_rank = 256;

  /// Sorts within `memory_bytes`, as runs_creator(memory_bytes, cmp, opt) does; with
  /// several ranks, two blocks of it are the spool's and two the exchange's while the
  /// elements are exchanged.
  sample_sort(std::size_t memory_bytes, Cmp cmp, algo::sort_options opt)
      : memory_(memory_bytes), cmp_(std::move(cmp)), opt_(opt),
        block_(opt.block_bytes ? opt.block_bytes : flow::default_block_bytes) {
    if (size() == 1) creator_.emplace(memory_, cmp_, opt_);
    else spool_ = std::make_unique<containers::vector<T>>(2 * block_, block_);
  }

  void push(const T& v) {
    if (creator_) return creator_->push(v);
    spool_->push_back(v);
    if (pushed_++ % stride_ == 0) {
      samples_.push_back(v);
      if (samples_.size() == 2 * samples_per_rank) { // keep every other; sample half as often
        for (std::size_t i = 0; i < samples_per_rank; ++i) samples_[i] = samples_[2 * i];
        samples_.resize(samples_per_rank);
        stride_ *= 2;
      }
    }
  }

  /// This rank's range of the keys, sorted into runs (a collective operation: every rank
  /// calls it).
  algo::sorted_runs<T> result() {
    if (!spool_) return creator_->result();
    const std::vector<T> splitters = choose_splitters();
    spool_->flush();
    const std::size_t exchange = 2 * block_;
    if (memory_ < 2 * block_ + exchange) throw std::invalid_argument("flow::ranks::sample_sort: memory below four blocks");
    creator_.emplace(memory_ - 2 * block_ - exchange, cmp_, opt_);
    exchange_by(splitters, exchange / 2);
    spool_.reset();
    return creator_->result();
  }

private:
  std::vector<T> choose_splitters() {
    const std::vector<std::byte> gathered =
        world().all_gather(std::as_bytes(std::span<const T>(samples_.data(), samples_.size())));
    std::vector<T> all(gathered.size() / sizeof(T));
    if (!all.empty()) std::memcpy(all.data(), gathered.data(), gathered.size());
    std::sort(all.begin(), all.end(), cmp_);
    std::vector<T> splitters;
    const std::size_t p = static_cast<std::size_t>(size());
    if (all.empty()) return splitters; // no input anywhere: everything (nothing) to rank 0
    for (std::size_t i = 1; i < p; ++i) splitters.push_back(all[i * all.size() / p]);
    return splitters;
  }

  /// Reads the spool once, sending each element to the rank of its key range: a round
  /// fills a buffer per rank until one is full (`round_bytes` in all) or the spool ends,
  /// then all ranks exchange; rounds go on until every rank's spool has ended.
  void exchange_by(const std::vector<T>& splitters, std::size_t round_bytes) {
    const std::size_t p = static_cast<std::size_t>(size());
    const std::size_t per_rank = std::max<std::size_t>(1, round_bytes / sizeof(T) / p);
    std::vector<std::vector<std::byte>> to(p);
    auto in = spool_->scan();
    for (;;) {
      for (auto& b : to) b.clear();
      bool full = false;
      for (; !in.empty() && !full; ++in) {
        const T& v = *in;
        const std::size_t r =
            static_cast<std::size_t>(std::upper_bound(splitters.begin(), splitters.end(), v, cmp_) - splitters.begin());
        const auto* bytes = reinterpret_cast<const std::byte*>(&v);
        to[r].insert(to[r].end(), bytes, bytes + sizeof(T));
        full = to[r].size() == per_rank * sizeof(T);
      }
      const std::vector<std::vector<std::byte>> from = world().all_to_all(to);
      for (const auto& bytes : from)
        for (std::size_t at = 0; at < bytes.size(); at += sizeof(T)) {
          T v;
          std::memcpy(&v, bytes.data() + at, sizeof(T));
          creator_->push(v);
        }
      if (world().sum(in.empty() ? 0 : 1) == 0) break;
    }
  }

  std::size_t memory_;
  Cmp cmp_;
  algo::sort_options opt_;
  std::size_t block_;
  std::optional<algo::runs_creator<T, Cmp>> creator_;
  std::unique_ptr<containers::vector<T>> spool_;
  std::vector<T> samples_;
  std::uint64_t pushed_ = 0, stride_ = 1;
};

} // namespace flow::ranks

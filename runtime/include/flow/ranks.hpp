#pragma once
// The ranks a program runs as. A program built with `flowc build --mpi` and started by
// `mpirun -np P` runs as P processes (ranks) that execute the same body in step: every
// rank computes every scalar, so control flow never diverges. A stream the planner
// spreads is split over the ranks — each holds a contiguous part, the parts in rank
// order are the one-process stream — and is combined where it ends: a count or integer
// sum adds the ranks' parts, a sort exchanges the elements by key ranges
// (flow/ranks/sample_sort.hpp), a write gathers the parts in order
// (flow/ranks/spread_writer.hpp). Every other stream is computed whole on every rank,
// which gives every rank the same values; its outputs are written (and its lines
// printed) by the first rank only.
//
// The runtime library knows no MPI: flow/ranks/mpi.hpp, compiled into an MPI program
// only, installs an Open MPI communicator as world() before the program runs. Without
// it world() is one rank, and all of this costs nothing.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace flow::ranks {

/// Collective operations over all ranks; every rank calls each one in the same order.
class communicator {
public:
  virtual ~communicator() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// The sum over the ranks of `v`, wrapping around as u64 arithmetic does.
  virtual std::uint64_t sum(std::uint64_t v) = 0;
  /// Every rank's bytes, concatenated in rank order (each rank gets the whole).
  virtual std::vector<std::byte> all_gather(std::span<const std::byte> mine) = 0;
  /// Rank r gets counts[r] bytes of `send` from offsets[r] on; `received` becomes what
  /// every rank sent this one, in rank order.
  virtual void all_to_all(const std::byte* send, const std::vector<std::size_t>& counts,
                          const std::vector<std::size_t>& offsets, std::vector<std::byte>& received) = 0;
  /// A message to one rank, and the next message from one rank (in the order sent).
  virtual void send(int to, std::span<const std::byte> bytes) = 0;
  virtual std::vector<std::byte> receive(int from) = 0;
  virtual void barrier() = 0;
  /// The bytes of elements this rank has sent to other ranks so far (--stats).
  virtual std::uint64_t sent_bytes() const noexcept { return 0; }
  /// Stops every rank with `status` (an error on one rank: the others may be waiting for
  /// it in a collective operation).
  [[noreturn]] virtual void abort(int status) = 0;
};

/// The ranks of this program: one unless an MPI communicator is installed.
communicator& world() noexcept;
/// Installs `c` as world() (nullptr: one rank again). flow/ranks/mpi.hpp calls it.
void set_world(communicator* c) noexcept;

inline int rank() noexcept { return world().rank(); }
inline int size() noexcept { return world().size(); }
/// Whether this rank prints and writes the program's outputs: the first rank.
inline bool leads() noexcept { return rank() == 0; }

/// Why a program of several ranks cannot read `path`, a pipe or a device: each rank would
/// get a different part of what comes through it.
std::string unshared_input_message(const std::string& path);

/// An output file is finished (every writer calls it once, on every rank): the ranks wait
/// for the first to have put it in place, so that a later statement that reads the file
/// reads all of it on every rank.
inline void output_finished() {
  if (size() > 1) world().barrier();
}

/// This rank's part of [begin, end): contiguous parts in rank order, sizes differing by
/// at most one (the first `count % size` ranks take one more).
template <class T> std::pair<T, T> share(T begin, T end) noexcept {
  if (!(begin < end)) return {begin, begin};
  const std::uint64_t count = static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(begin);
  const std::uint64_t p = static_cast<std::uint64_t>(size()), r = static_cast<std::uint64_t>(rank());
  const std::uint64_t base = count / p, extra = count % p;
  const std::uint64_t first = r * base + (r < extra ? r : extra);
  const std::uint64_t length = base + (r < extra ? 1 : 0);
  return {static_cast<T>(static_cast<std::uint64_t>(begin) + first),
          static_cast<T>(static_cast<std::uint64_t>(begin) + first + length)};
}

/// Standard input in a program of several ranks, where mpirun gives it to the first rank
/// only, read by a stream every rank computes whole: the first rank reads up to `bytes`
/// (`read_first(data, bytes)` returns how many it read, 0 at the end) and every rank gets
/// them. A collective: every rank calls it in step.
template <class Read> std::size_t first_rank_reads(void* data, std::size_t bytes, Read read_first) {
  const std::size_t got = leads() ? read_first(data, bytes) : 0;
  if (size() == 1) return got;
  const std::vector<std::byte> all = world().all_gather(std::span(static_cast<const std::byte*>(data), got));
  if (!leads() && !all.empty()) std::memcpy(data, all.data(), all.size());
  return all.size();
}

/// The sum over the ranks of an integer of a spread count or sum (two's complement
/// wrapping makes the sum of the parts the one-process sum for every integer type).
template <class T> T sum(T v) {
  return static_cast<T>(world().sum(static_cast<std::uint64_t>(v)));
}

} // namespace flow::ranks

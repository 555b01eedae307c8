#pragma once
// Open MPI as the ranks of a program (flow/ranks.hpp). Included only by programs built
// with `flowc build --mpi` (FLOW_MPI), which create one flow::ranks::mpi_world at the
// start of main(): it initializes MPI (MPI_THREAD_FUNNELED: only the program's main
// thread talks to other ranks; disk and sort threads never do), installs itself as
// flow::ranks::world() and finalizes MPI when main() returns. Started without mpirun,
// such a program is one rank (MPI's singleton start).
// MPI's C API only: its deprecated C++ bindings would need their own library.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "flow/ranks.hpp"

namespace flow::ranks {

class mpi_world final : public communicator {
public:
  mpi_world(int& argc, char**& argv) {
    // Ranks that wait for each other yield their core rather than spin on it (Open MPI's
    // default busy-polls): ranks share a machine's cores with their own sort and disk
    // threads. An mpirun --mca or OMPI_MCA_ setting of the user's wins.
    ::setenv("OMPI_MCA_mpi_yield_when_idle", "1", /*overwrite=*/0);
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    set_world(this);
  }
  ~mpi_world() override {
    set_world(nullptr);
    MPI_Finalize();
  }
  mpi_world(const mpi_world&) = delete;
  mpi_world& operator=(const mpi_world&) = delete;

  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }

  std::uint64_t sum(std::uint64_t v) override {
    std::uint64_t total = 0;
    check(MPI_Allreduce(&v, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return total;
  }

  std::vector<std::byte> all_gather(std::span<const std::byte> mine) override {
    const int n = count_of(mine.size());
    std::vector<int> counts(size_), offsets(size_);
    sent_ += mine.size() * static_cast<std::size_t>(size_ - 1);
    check(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    const int total = offsets_of(counts, offsets);
    std::vector<std::byte> all(static_cast<std::size_t>(total));
    check(MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return all;
  }

  void all_to_all(const std::byte* send, const std::vector<std::size_t>& counts, const std::vector<std::size_t>& offsets,
                  std::vector<std::byte>& received) override {
    std::vector<int> send_counts(size_), send_offsets(size_), receive_counts(size_), receive_offsets(size_);
    for (int r = 0; r < size_; ++r) {
      send_counts[r] = count_of(counts[r]);
      send_offsets[r] = count_of(offsets[r]);
      if (r != rank_) sent_ += counts[r];
    }
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
    received.resize(static_cast<std::size_t>(offsets_of(receive_counts, receive_offsets)));
    check(MPI_Alltoallv(send, send_counts.data(), send_offsets.data(), MPI_BYTE, received.data(), receive_counts.data(),
                        receive_offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
  }

  void send(int to, std::span<const std::byte> bytes) override {
    sent_ += bytes.size();
    check(MPI_Send(bytes.data(), count_of(bytes.size()), MPI_BYTE, to, 0, MPI_COMM_WORLD), "MPI_Send");
  }
  std::vector<std::byte> receive(int from) override {
    MPI_Status status;
    check(MPI_Probe(from, 0, MPI_COMM_WORLD, &status), "MPI_Probe");
    int n = 0;
    MPI_Get_count(&status, MPI_BYTE, &n);
    std::vector<std::byte> bytes(static_cast<std::size_t>(n));
    check(MPI_Recv(bytes.data(), n, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    return bytes;
  }
  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  std::uint64_t sent_bytes() const noexcept override { return sent_; }
  [[noreturn]] void abort(int status) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status); // MPI_Abort does not return; this says so to the compiler
  }

private:
  static void check(int code, const char* call) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
  }
  /// MPI counts are ints: a message is at most 2 GiB - 1 bytes (callers send in chunks).
  static int count_of(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT_MAX)) throw std::length_error("flow::ranks: a message of 2 GiB or more");
    return static_cast<int>(bytes);
  }
  static int offsets_of(const std::vector<int>& counts, std::vector<int>& offsets) {
    long long at = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(at);
      at += counts[r];
      if (at > INT_MAX) throw std::length_error("flow::ranks: an exchange of 2 GiB or more at once");
    }
    return static_cast<int>(at);
  }

  int rank_ = 0, size_ = 1;
  std::uint64_t sent_ = 0;
};

} // namespace flow::ranks

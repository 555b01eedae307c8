// One rank: world() until flow/ranks/mpi.hpp installs Open MPI's.
#include "flow/ranks.hpp"

#include <cstdlib>
#include <stdexcept>

namespace flow::ranks {

namespace {

class one_rank final : public communicator {
public:
  int rank() const noexcept override { return 0; }
  int size() const noexcept override { return 1; }
  std::uint64_t sum(std::uint64_t v) override { return v; }
  std::vector<std::byte> all_gather(std::span<const std::byte> mine) override { return {mine.begin(), mine.end()}; }
  void all_to_all(const std::byte* send, const std::vector<std::size_t>& counts, const std::vector<std::size_t>& offsets,
                  std::vector<std::byte>& received) override {
    received.assign(send + offsets[0], send + offsets[0] + counts[0]);
  }
  void send(int, std::span<const std::byte>) override {
    throw std::logic_error("flow::ranks: a message to another rank in a program of one rank");
  }
  std::vector<std::byte> receive(int) override {
    throw std::logic_error("flow::ranks: a message from another rank in a program of one rank");
  }
  void barrier() override {}
  [[noreturn]] void abort(int status) override { std::_Exit(status); }
};

one_rank single;
communicator* installed = &single;

} // namespace

communicator& world() noexcept { return *installed; }

std::string unshared_input_message(const std::string& path) {
  return "'" + path + "' is a pipe or a device, which the " + std::to_string(size()) +
         " ranks of an MPI program cannot all read; give a regular file";
}
void set_world(communicator* c) noexcept { installed = c ? c : &single; }

} // namespace flow::ranks

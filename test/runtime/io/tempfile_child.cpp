// Helper process of temp_files_test: opens a block manager whose disk is a temporary
// file in the directory argv[2], writes one block, prints the file's path, and then
// behaves as argv[1] says:
//   wait       sleep until a signal arrives (the test sends SIGTERM / SIGINT)
//   exit       return from main normally
//   throw      let an exception escape main (std::terminate -> abort)
//   exit-call  call std::exit without destroying the block manager
//   crash      write through a null pointer (SIGSEGV, as a bug in user code would)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "flow/mng/block_manager.hpp"
#include "flow/mng/typed_block.hpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string mode = argv[1];
  flow::mng::disk_config cfg;
  cfg.disks.push_back(flow::mng::disk_spec::parse(argv[2]));
  flow::mng::block_manager bm(cfg);
  auto s = flow::mng::allocation_strategy::striping();
  auto id = bm.allocate(4096, s);
  flow::mng::typed_block<4096, int> b;
  b.write(id)->wait();
  std::printf("%s\n", bm.disk_at(0).path().c_str());
  std::fflush(stdout);
  if (mode == "wait") {
    for (;;) ::pause();
  }
  if (mode == "throw") throw std::runtime_error("escaping exception");
  if (mode == "exit-call") std::exit(3);
  if (mode == "crash") {
    volatile int* null = nullptr;
    *null = 1;
  }
  return 0;
}

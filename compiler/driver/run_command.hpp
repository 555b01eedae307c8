#pragma once
// Running a host tool (the C++ compiler, a program being calibrated) from flowc.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace flow::driver {

/// How a command ended: its exit status, or why it could not start (errno of exec).
struct CommandResult {
  int status = 0;
  int execError = 0; // the command was not run: ENOENT (no such program), EACCES, ...
};

/// Runs a command (argv form) with its output going to `log`. An exec that fails is told
/// apart from a command that fails through a close-on-exec pipe that carries its errno.
CommandResult runCommand(const std::vector<std::string>& args, const std::string& log,
                         const std::string& directory = "");

/// A command (argv form), the file its output goes to and the folder it runs in ("":
/// flowc's).
struct Command {
  std::vector<std::string> args;
  std::string log;
  std::string directory;
};
/// Runs `commands`, at most `atOnce` at a time (each started as soon as the one before it
/// runs and one of those running has ended), in their order, and waits for them all.
std::vector<CommandResult> runCommands(const std::vector<Command>& commands, size_t atOnce = SIZE_MAX);

} // namespace flow::driver

#include "driver/run_command.hpp"

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace flow::driver {

namespace {

/// Starts `command`; returns its pid once it runs (or -1, with `result.execError` set,
/// when it could not start).
pid_t start(const Command& command, CommandResult& result) {
  // argv is made before fork: a child may only call async-signal-safe functions.
  std::vector<char*> argv;
  for (const std::string& a : command.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    result = {-1, errno};
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    result = {-1, errno};
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    return -1;
  }
  if (pid == 0) {
    ::close(pipeFds[0]);
    const int fd = ::open(command.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    if (!command.directory.empty() && ::chdir(command.directory.c_str()) != 0) {
      const int e = errno;
      (void)!::write(pipeFds[1], &e, sizeof e);
      _exit(127);
    }
    execvp(argv[0], argv.data());
    const int e = errno;
    (void)!::write(pipeFds[1], &e, sizeof e);
    _exit(127);
  }
  ::close(pipeFds[1]);
  // The pipe closes on exec (the command runs) or carries exec's errno.
  int e = 0;
  ssize_t n;
  while ((n = ::read(pipeFds[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(pipeFds[0]);
  if (n == static_cast<ssize_t>(sizeof e)) result.execError = e;
  return pid;
}

} // namespace

CommandResult runCommand(const std::vector<std::string>& args, const std::string& log,
                         const std::string& directory) {
  return runCommands({{args, log, directory}}).front();
}

std::vector<CommandResult> runCommands(const std::vector<Command>& commands, size_t atOnce) {
  std::vector<CommandResult> results(commands.size());
  std::vector<pid_t> pids(commands.size(), -1);
  size_t next = 0, running = 0;
  while (next < commands.size() || running > 0) {
    for (; next < commands.size() && running < std::max<size_t>(atOnce, 1); ++next)
      if ((pids[next] = start(commands[next], results[next])) > 0) ++running;
    if (running == 0) continue;
    // Whichever ends first makes room for the next (flowc has no other children then).
    int status = 0;
    const pid_t ended = waitpid(-1, &status, 0);
    if (ended < 0) {
      if (errno == EINTR) continue;
      for (size_t i = 0; i < next; ++i) // cannot wait (not expected): they did not succeed
        if (pids[i] > 0) results[i].status = 127;
      break;
    }
    for (size_t i = 0; i < next; ++i)
      if (pids[i] == ended) {
        results[i].status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        pids[i] = -1;
        --running;
      }
  }
  return results;
}

} // namespace flow::driver

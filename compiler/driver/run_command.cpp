#include "driver/run_command.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace flow::driver {

CommandResult runCommand(const std::vector<std::string>& args, const std::string& log,
                         const std::string& directory) {
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) return {-1, errno};
  pid_t pid = fork();
  if (pid < 0) return {-1, errno};
  if (pid == 0) {
    ::close(pipeFds[0]);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    if (!directory.empty() && ::chdir(directory.c_str()) != 0) {
      const int e = errno;
      (void)!::write(pipeFds[1], &e, sizeof e);
      _exit(127);
    }
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int e = errno;
    (void)!::write(pipeFds[1], &e, sizeof e);
    _exit(127);
  }
  ::close(pipeFds[1]);
  CommandResult result;
  int e = 0;
  ssize_t n;
  while ((n = ::read(pipeFds[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(pipeFds[0]);
  if (n == static_cast<ssize_t>(sizeof e)) result.execError = e;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

} // namespace flow::driver

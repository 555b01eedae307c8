#pragma once
// Outputs that appear whole or not at all. A program's result file is written to a
// temporary file next to it (same directory, so renaming it is atomic) and renamed over
// the target only when it is complete and on disk. Until then the target keeps its old
// contents: a statement may read the file it rewrites (`v` state files of a loop), and
// an error, a full disk or a signal leaves the old file, never a partial one. The
// temporary has no name while it is written (O_TMPFILE; path() is its /proc/self/fd
// link), so even SIGKILL leaves nothing behind; commit() links it as
// ".result.bin.flow-PID-N" next to the target and renames that over it. Where the file
// system has no O_TMPFILE the temporary is that named file from the start, registered
// with flow::io::temp_files so that a signal removes it (SIGKILL cannot).
//
//   flow::io::atomic_output out("result.bin");
//   write_everything_to(out.path());   // the temporary
//   out.commit();                      // synced and renamed over result.bin
//
// A target that is a symbolic link is written through, as cp and sort -o do: the file it
// leads to is replaced (its temporary next to that file), and the link stays. A target
// that exists and is not a regular file (a device such as /dev/null, a FIFO) cannot be
// replaced: it is written in place, and path() is the file itself.
// Compiled once in libflow_runtime (src/io/atomic_output.cpp): programs only call it.
#include <string>


namespace flow::io {

/// Where `path` leads through symbolic links in its last component (a relative link is
/// relative to its own folder; a dangling one leads to the file it names, which an output
/// creates). A path that is no link is itself; a loop stops after 40 links, and opening
/// it then fails as usual (ELOOP).
std::string through_links(std::string path);

class atomic_output {
public:
  /// Creates the temporary next to `target` (throws open_error if it cannot).
  explicit atomic_output(std::string target);
  ~atomic_output();
  atomic_output(const atomic_output&) = delete;
  atomic_output& operator=(const atomic_output&) = delete;

  /// Where to write: the temporary (or the target itself, when it cannot be replaced).
  const std::string& path() const noexcept { return path_; }
  const std::string& target() const noexcept { return target_; }
  /// The target is not a regular file (a device, a FIFO): written in place, path() is it.
  bool in_place() const noexcept { return path_ == file_ && !temporary_; }

  /// The output is complete and closed: syncs it and renames it over the target.
  void commit();

private:
  [[noreturn]] void fail(const char* what, int e) const;

  std::string target_;
  std::string file_;        // the file the target names: itself, or where its links lead
  std::string path_;        // where to write (see path())
  std::string name_;        // the temporary's name next to the target
  int fd_ = -1;             // the nameless file, until commit() names it
  bool named_ = false;      // the temporary has a name (registered with temp_files)
  bool temporary_ = false;  // not yet renamed over the target
};

} // namespace flow::io

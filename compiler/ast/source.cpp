#include "ast/source.hpp"

#include <deque>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace flow {

namespace {
std::deque<SourceOrigin>& origins() {
  static std::deque<SourceOrigin> table(1); // entry 0: the script itself
  return table;
}
std::string fileName(const SourceFile* file) {
  if (!file) return "";
  const std::string& path = file->path();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
} // namespace

uint32_t addSourceOrigin(SourceOrigin origin) {
  origins().push_back(std::move(origin));
  return static_cast<uint32_t>(origins().size() - 1);
}

const SourceOrigin& sourceOrigin(uint32_t id) { return origins().at(id); }

std::string describe(SourceLoc loc) {
  std::string at = std::to_string(loc.line) + ":" + std::to_string(loc.column);
  if (loc.origin == 0) return at;
  const SourceOrigin& o = sourceOrigin(loc.origin);
  std::string text = fileName(o.file) + ":" + at;
  // The outermost call is the one in the script the user reads.
  SourceLoc call = o.call;
  while (call.valid() && call.origin != 0 && sourceOrigin(call.origin).call.valid()) call = sourceOrigin(call.origin).call;
  if (call.valid()) text += " via " + (call.origin == 0 ? std::to_string(call.line) + ":" + std::to_string(call.column)
                                                         : fileName(sourceOrigin(call.origin).file) + ":" +
                                                               std::to_string(call.line) + ":" + std::to_string(call.column));
  return text;
}

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

bool SourceFile::load(const std::string& path, SourceFile& out, std::string& error) {
  if (path == "-") { // standard input, named so in diagnostics
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    out = SourceFile("<stdin>", buffer.str());
    return true;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) { // ifstream opens one and reads nothing
    error = "cannot read '" + path + "': it is a directory";
    return false;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'" + (errno ? std::string(": ") + std::strerror(errno) : std::string());
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  out = SourceFile(path, buffer.str());
  return true;
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = line < lineStarts_.size() ? lineStarts_[line] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

} // namespace flow

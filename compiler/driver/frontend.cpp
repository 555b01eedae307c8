#include "driver/frontend.hpp"

#include "flow/edit_distance.hpp"
#include "parse/literals.hpp"
#include "parse/parser.hpp"

#include <algorithm>
#include <pthread.h>
#include <vector>

namespace flow::driver {

void checkSetParams(const sema::CheckedProgram& program, const std::map<std::string, std::string>& setParams) {
  std::vector<std::string> names;
  for (const sema::Symbol* s : program.symbolsOf(sema::Symbol::Param)) names.push_back(s->name);
  for (const auto& [name, text] : setParams) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string params;
    for (const std::string& n : names) params += (params.empty() ? "" : ", ") + n;
    const std::string nearest = flow::nearest_name(name, names);
    throw UsageError("--set " + name + "=" + text + ": the script has no param '" + name + "'" +
                     (!nearest.empty() ? " (did you mean '" + nearest + "'?)" : "") +
                     (params.empty() ? "; it has no params" : "; its params: " + params));
  }
}

bool compileScript(const std::string& path, const FrontEndOptions& options, DiagnosticEngine& diags,
                   CompiledScript& out) {
  out.file = std::make_unique<SourceFile>("", "");
  std::string error;
  if (!SourceFile::load(path, *out.file, error)) {
    diags.error(nullptr, {}, error);
    return false;
  }
  out.program = parse::parseProgram(*out.file, diags);
  if (!out.program || diags.hasErrors()) return false;
  if (options.parseOnly) return true;
  sema::SemaOptions sema;
  sema.includeDirs = options.includeDirs;
  sema.strCapacity = options.strCapacity;
  out.checked = sema::analyze(*out.program, diags, sema);
  return out.checked != nullptr;
}

namespace {
struct StackJob {
  const std::function<int()>* body;
  int result = 0;
};
void* runStackJob(void* arg) {
  auto* job = static_cast<StackJob*>(arg);
  job->result = (*job->body)();
  return nullptr;
}
} // namespace

int runOnLargeStack(const std::function<int()>& body) {
  StackJob job{&body};
  for (std::size_t bytes = kFrontEndStackBytes; bytes >= (std::size_t{64} << 20); bytes /= 4) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) break;
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, bytes) == 0 &&
                         pthread_create(&thread, &attr, runStackJob, &job) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      pthread_join(thread, nullptr);
      return job.result;
    }
  }
  return body();
}

std::optional<uint64_t> parseSizeArgument(const std::string& text, std::string& error) {
  std::string number, unit;
  parse::splitSize(text, number, unit);
  if (number.empty() || number.size() + (unit.empty() ? 0 : 0) == 0) {
    error = "'" + text + "' is not a size (write e.g. 256MiB or 1GiB)";
    return std::nullopt;
  }
  auto bytes = parse::parseSize(number, unit.empty() ? "B" : unit, error);
  if (!bytes) error = "'" + text + "' is not a size: " + error;
  return bytes;
}

} // namespace flow::driver

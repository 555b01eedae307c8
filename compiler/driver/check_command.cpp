#include "driver/check_command.hpp"

#include "ast/ast_printer.hpp"
#include "ast/diagnostics.hpp"
#include "driver/frontend.hpp"

#include <iostream>

namespace flow::driver {

int runCheck(const CheckOptions& options) {
  bool ok = true;
  bool noDiagnostic = true; // in the JSON array so far
  if (options.jsonDiagnostics) std::cout << "[";
  // Each file gets its own engine, so one bad file's error limit does not hide the next.
  for (const std::string& path : options.files) {
    CompiledScript script;
    DiagnosticEngine diags(std::cerr, options.color);
    diags.setQuiet(options.jsonDiagnostics);
    FrontEndOptions frontEnd;
    frontEnd.includeDirs = options.includeDirs;
    frontEnd.strCapacity = options.strCapacity;
    frontEnd.parseOnly = options.parseOnly;
    bool clean = compileScript(path, frontEnd, diags, script);
    if (script.program && options.dumpAst) ast::printAst(*script.program, std::cout);
    if (script.checked && options.dumpTypes) sema::dumpTypes(*script.checked, std::cout);
    if (clean && options.summary) std::cout << path << ": " << ast::summarize(*script.program) << '\n';
    diags.flush();
    if (options.jsonDiagnostics) {
      diags.writeJson(std::cout, noDiagnostic);
      ok = ok && !diags.hasErrors();
      continue;
    }
    if (diags.hasErrors()) {
      ok = false;
      std::cerr << diags.errorCount() << (diags.errorCount() == 1 ? " error" : " errors") << " in " << (path == "-" ? "<stdin>" : path) << '\n';
    }
  }
  if (options.jsonDiagnostics) std::cout << (noDiagnostic ? "]\n" : "\n]\n");
  std::cout.flush();
  return ok ? 0 : 1;
}

} // namespace flow::driver

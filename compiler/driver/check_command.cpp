#include "driver/check_command.hpp"

#include "ast/ast_printer.hpp"
#include "ast/diagnostics.hpp"
#include "parse/parser.hpp"
#include "sema/sema.hpp"

#include <iostream>

namespace flow::driver {

int runCheck(const CheckOptions& options) {
  bool ok = true;
  // Each file gets its own engine, so one bad file's error limit does not hide the next.
  for (const std::string& path : options.files) {
    SourceFile file("", "");
    DiagnosticEngine diags(std::cerr, options.color);
    std::string error;
    if (!SourceFile::load(path, file, error)) {
      diags.error(nullptr, {}, error);
      ok = false;
      continue;
    }
    std::unique_ptr<ast::Program> program = parse::parseProgram(file, diags);
    if (program && options.dumpAst) ast::printAst(*program, std::cout);
    if (program && !diags.hasErrors() && !options.parseOnly) {
      sema::SemaOptions semaOptions;
      semaOptions.includeDirs = options.includeDirs;
      std::unique_ptr<sema::CheckedProgram> checked = sema::analyze(*program, diags, semaOptions);
      if (checked && options.dumpTypes) sema::dumpTypes(*checked, std::cout);
    }
    if (program && options.summary && !diags.hasErrors())
      std::cout << path << ": " << ast::summarize(*program) << '\n';
    diags.flush();
    if (diags.hasErrors()) {
      ok = false;
      std::cerr << diags.errorCount() << (diags.errorCount() == 1 ? " error" : " errors")
                << " in " << path << '\n';
    }
  }
  std::cout.flush();
  return ok ? 0 : 1;
}

} // namespace flow::driver

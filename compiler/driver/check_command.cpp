#include "driver/check_command.hpp"

#include "ast/ast_printer.hpp"
#include "ast/diagnostics.hpp"
#include "driver/frontend.hpp"

#include <iostream>

#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace flow::driver {

namespace {

/// Where a diagnostic points, as SARIF says it (none for one about no file).
llvm::json::Array sarifLocation(const Diagnostic& d) {
  if (!d.file) return {};
  llvm::json::Object physical{{"artifactLocation", llvm::json::Object{{"uri", d.file->path()}}}};
  if (d.loc.valid()) physical["region"] = llvm::json::Object{{"startLine", d.loc.line}, {"startColumn", d.loc.column}};
  return llvm::json::Array{llvm::json::Object{{"physicalLocation", std::move(physical)}}};
}

/// The errors and warnings of one file as SARIF results, each with its notes as related
/// locations.
void addSarifResults(const DiagnosticEngine& diags, llvm::json::Array& results) {
  const std::vector<Diagnostic>& all = diags.all();
  for (size_t i = 0; i < all.size(); ++i) {
    const Diagnostic& d = all[i];
    if (d.severity == Severity::Note) continue;
    llvm::json::Array related;
    for (size_t j = 0; j < all.size(); ++j) {
      if (all[j].severity != Severity::Note || all[j].group != d.group || j == i) continue;
      llvm::json::Array where = sarifLocation(all[j]);
      llvm::json::Object note{{"id", static_cast<int64_t>(related.size())}, {"message", llvm::json::Object{{"text", all[j].message}}}};
      if (!where.empty()) note["physicalLocation"] = std::move(*where[0].getAsObject()->get("physicalLocation"));
      related.push_back(std::move(note));
    }
    llvm::json::Object result{{"level", d.severity == Severity::Error ? "error" : "warning"},
                              {"message", llvm::json::Object{{"text", d.message}}},
                              {"locations", sarifLocation(d)}};
    if (!related.empty()) result["relatedLocations"] = std::move(related);
    results.push_back(std::move(result));
  }
}

} // namespace

int runCheck(const CheckOptions& options) {
  bool ok = true;
  bool noDiagnostic = true; // in the JSON array so far
  llvm::json::Array sarifResults;
  if (options.format == CheckOptions::Format::Json) std::cout << "[";
  // Each file gets its own engine, so one bad file's error limit does not hide the next.
  for (const std::string& path : options.files) {
    CompiledScript script;
    DiagnosticEngine diags(std::cerr, options.color);
    diags.setQuiet(options.format != CheckOptions::Format::Text);
    FrontEndOptions frontEnd;
    frontEnd.includeDirs = options.includeDirs;
    frontEnd.strCapacity = options.strCapacity;
    frontEnd.parseOnly = options.parseOnly;
    bool clean = compileScript(path, frontEnd, diags, script);
    if (script.program && options.dumpAst) ast::printAst(*script.program, std::cout);
    if (script.checked && options.dumpTypes) sema::dumpTypes(*script.checked, std::cout);
    if (clean && options.summary) std::cout << path << ": " << ast::summarize(*script.program) << '\n';
    diags.flush();
    if (options.format == CheckOptions::Format::Json) {
      diags.writeJson(std::cout, noDiagnostic);
      ok = ok && !diags.hasErrors();
      continue;
    }
    if (options.format == CheckOptions::Format::Sarif) {
      addSarifResults(diags, sarifResults);
      ok = ok && !diags.hasErrors();
      continue;
    }
    if (diags.hasErrors()) {
      ok = false;
      std::cerr << diags.errorCount() << (diags.errorCount() == 1 ? " error" : " errors") << " in " << (path == "-" ? "<stdin>" : path) << '\n';
    }
  }
  if (options.format == CheckOptions::Format::Json) std::cout << (noDiagnostic ? "]\n" : "\n]\n");
  if (options.format == CheckOptions::Format::Sarif) {
    llvm::json::Object driver{{"name", "flowc"}, {"version", FLOW_VERSION}};
    llvm::json::Object log{{"version", "2.1.0"},
                           {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                           {"runs", llvm::json::Array{llvm::json::Object{
                                        {"tool", llvm::json::Object{{"driver", std::move(driver)}}},
                                        {"columnKind", "unicodeCodePoints"}, // flowc counts columns so
                                        {"results", std::move(sarifResults)}}}}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(log)));
    os.flush();
    std::cout << text << "\n";
  }
  std::cout.flush();
  return ok ? 0 : 1;
}

} // namespace flow::driver

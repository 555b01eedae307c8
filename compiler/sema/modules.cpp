// `use`: modules of declarations (records, orders, functions, constant lets). A module's
// declarations join the script under the module's name — `Edge` in std/graph.flow is
// `graph.Edge` — so after loading, a module name is just a name with a dot in it.
#include "ast/clone.hpp"
#include "flow/edit_distance.hpp"
#include "parse/parser.hpp"
#include "sema/checker.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <unistd.h>
#include <vector>

namespace flow::sema {

using namespace flow::ast;
namespace fs = std::filesystem;

namespace {

std::string directoryOf(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

/// Copies a module's declarations: its own names get its prefix, its `use` aliases
/// become the modules' names, and every location is marked as the module's.
/// Both copies check that `m.Name` names a module the file itself uses.
class AliasCloner : public Cloner {
public:
  AliasCloner(const std::map<std::string, std::string>& aliases, const SourceFile* file, DiagnosticEngine& diags)
      : aliases_(aliases), file_(file), diags_(diags) {}

protected:
  std::string moduleOf(const std::string& alias) override {
    auto it = aliases_.find(alias);
    return it == aliases_.end() ? "" : it->second;
  }
  void unknownModule(const std::string& alias, SourceLoc loc) override {
    diags_.error(file_, loc, "no module is named '" + alias + "' here; add 'use std." + alias + ";' or 'use \"file.flow\" as " +
                                 alias + ";'");
  }

private:
  const std::map<std::string, std::string>& aliases_;
  const SourceFile* file_;
  DiagnosticEngine& diags_;
};

class ModuleCloner : public AliasCloner {
public:
  ModuleCloner(uint32_t origin, std::string id, std::set<std::string> values, std::set<std::string> types,
               const std::map<std::string, std::string>& aliases, const SourceFile* file, DiagnosticEngine& diags)
      : AliasCloner(aliases, file, diags), origin_(origin), id_(std::move(id)), values_(std::move(values)),
        types_(std::move(types)) {}

protected:
  SourceLoc at(SourceLoc loc) override {
    if (loc.valid()) loc.origin = origin_;
    return loc;
  }
  // Orders are named as values too where they are passed to a function: f(s, by_src).
  std::string rename(const std::string& name) override {
    return values_.count(name) || types_.count(name) ? id_ + "." + name : name;
  }
  std::string renameType(const std::string& name) override { return types_.count(name) ? id_ + "." + name : name; }

private:
  uint32_t origin_;
  std::string id_;
  std::set<std::string> values_, types_;
};

} // namespace

std::string Checker::stdlibDir() const {
  // FLOW_STDLIB (flowc --stdlib sets it), else beside flowc: <bin>/../stdlib (the build
  // tree) or <bin>/../share/flow/stdlib (an installation).
  if (const char* env = std::getenv("FLOW_STDLIB"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "stdlib";
  for (fs::path candidate : {exe.parent_path().parent_path() / "stdlib",
                             exe.parent_path().parent_path() / "share" / "flow" / "stdlib"})
    if (fs::is_directory(candidate, ec)) return candidate.string();
  return (exe.parent_path().parent_path() / "stdlib").string();
}

void Checker::loadModules() {
  std::vector<StmtPtr> moduleItems;
  for (StmtPtr& item : program_.items)
    if (auto* use = item->as<UseDecl>()) loadModule(*use, file_, scriptAliases_, moduleItems);
  if (scriptAliases_.empty()) {
    // Still check that no `m.Name` type is written without a `use`.
    AliasCloner check(scriptAliases_, file_, diags_);
    for (StmtPtr& item : program_.items) item = check.stmt(*item);
    return;
  }
  // The modules' declarations come first (they may be used anywhere, as the script's own
  // records and orders), then the script with its module names spelled out.
  AliasCloner rewrite(scriptAliases_, file_, diags_); // `graph.degrees(s)`, `graph.Edge`: the names they are
  std::vector<StmtPtr> items = std::move(moduleItems);
  for (StmtPtr& item : program_.items) items.push_back(rewrite.stmt(*item));
  program_.items = std::move(items);
}

void Checker::loadModule(UseDecl& use, const SourceFile* from, std::map<std::string, std::string>& aliases,
                         std::vector<StmtPtr>& items) {
  auto report = [&](SourceLoc loc, const std::string& message) { diags_.error(from, loc, message); };
  if (aliases.count(use.alias)) {
    report(use.aliasLoc, "'" + use.alias + "' already names a module here; give this one another name with 'as'");
    return;
  }
  if (use.alias.empty() || use.alias.find('.') != std::string::npos) {
    report(use.loc, "name this module with 'as NAME'");
    return;
  }
  fs::path path;
  if (!use.module.empty()) {
    if (use.module.rfind("std.", 0) != 0) {
      report(use.loc, "'" + use.module + "' is not a module: the standard modules are std.NAME (std.graph, std.text, "
                                         "std.list, std.stats, std.random); a file is used as use \"file.flow\" as NAME;");
      return;
    }
    std::string rest = use.module.substr(4);
    for (char& c : rest)
      if (c == '.') c = '/';
    path = fs::path(stdlibDir()) / (rest + ".flow");
  } else {
    if (use.path.isInterpolated() || use.path.text().empty()) {
      report(use.path.loc, "a module's file is a plain string: use \"lib/mine.flow\" as mine;");
      return;
    }
    path = fs::path(use.path.text());
    if (path.is_relative()) path = fs::path(directoryOf(from->path())) / path;
    // Only a .flow file is parsed as a module, so that a mistaken path (a data file,
    // /etc/passwd) is not quoted line by line in syntax errors.
    if (path.extension() != ".flow") {
      report(use.path.loc, "'" + use.path.text() + "' is not a Flow module: a module is a .flow file (use "
                           "\"lib/mine.flow\" as mine;)");
      return;
    }
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    // std.grpah: the standard module of the nearest name, if one is near.
    std::string nearest;
    if (!use.module.empty()) {
      std::vector<std::string> modules;
      for (const fs::directory_entry& e : fs::directory_iterator(path.parent_path(), ec))
        if (e.path().extension() == ".flow") modules.push_back(e.path().stem().string());
      std::sort(modules.begin(), modules.end()); // the directory's order is not the same everywhere
      nearest = flow::nearest_name(path.stem().string(), modules);
    }
    if (!nearest.empty()) {
      const std::string prefix = use.module.substr(0, use.module.size() - path.stem().string().size());
      report(use.loc, "cannot find module " + use.module + " (did you mean " + prefix + nearest + "?)");
      return;
    }
    report(use.loc, "cannot find module " + (use.module.empty() ? "'" + use.path.text() + "'" : use.module) +
                        ": there is no file " + path.string() +
                        (use.module.empty() ? " (a module's path is relative to the file that uses it)"
                                            : " (the standard library is found beside flowc, or set FLOW_STDLIB "
                                              "or --stdlib DIR)"));
    return;
  }
  const std::string key = fs::canonical(path, ec).string();
  if (auto it = moduleIds_.find(key); it != moduleIds_.end()) {
    aliases[use.alias] = it->second; // loaded already (or being loaded: a cycle of uses)
    return;
  }
  // The script's names for its modules are their ids; a module used only by other
  // modules takes its alias too, numbered if the script took it for another module.
  std::string id = use.alias;
  for (int n = 2; takenModuleIds_.count(id); ++n) id = use.alias + "_" + std::to_string(n);
  takenModuleIds_.insert(id);
  moduleIds_[key] = id;
  aliases[use.alias] = id;

  SourceFile loaded("", "");
  std::string error;
  if (!SourceFile::load(path.string(), loaded, error)) {
    report(use.loc, error);
    return;
  }
  const SourceFile* file = diags_.keepFile(std::move(loaded));
  out_.moduleFiles.push_back(path.string());
  std::unique_ptr<Program> module = parse::parseProgram(*file, diags_);
  if (!module) return;
  const uint32_t origin = addSourceOrigin({file, {}, ""});

  std::map<std::string, std::string> moduleAliases;
  std::set<std::string> values, types;
  for (StmtPtr& item : module->items) {
    switch (item->kind()) {
    case Stmt::Use: loadModule(*item->as<UseDecl>(), file, moduleAliases, items); break;
    case Stmt::Record: types.insert(item->as<RecordDecl>()->name); break;
    case Stmt::Order: types.insert(item->as<OrderDecl>()->name); break;
    case Stmt::Fn: values.insert(item->as<FnDecl>()->name); break;
    case Stmt::Let:
      values.insert(item->as<LetStmt>()->name);
      break;
    default:
      diags_.error(file, item->loc, "a module holds declarations only (record, order, fn, let and use); "
                                    "statements, params and memory belong in the script that uses it");
    }
  }
  ModuleCloner copy(origin, id, values, types, moduleAliases, file, diags_);
  for (StmtPtr& item : module->items)
    if (item->kind() != Stmt::Use) items.push_back(copy.stmt(*item));
}

} // namespace flow::sema

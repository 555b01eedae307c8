#include "lsp/analysis.hpp"

#include "ast/ast_printer.hpp"
#include "ast/builtins.hpp"
#include "ast/visit.hpp"
#include "parse/parser.hpp"
#include "sema/sema.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <span>

namespace flow::lsp {

namespace {

bool isWordByte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

/// The byte offset of code point `column` (1-based) in `line`.
size_t byteOfColumn(std::string_view line, uint32_t column) {
  size_t i = 0;
  for (uint32_t c = 1; c < column && i < line.size(); ++c) {
    ++i;
    while (i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

const char* const kKeywords[] = {"param", "memory", "block", "record", "order", "fn", "use", "import", "stream",
                                 "vector", "pq", "array", "let", "var", "if", "else", "while", "for", "in",
                                 "break", "continue", "emit", "print", "write", "write_text", "write_lines",
                                 "write_csv", "return", "to", "as", "by", "with", "on", "asc", "desc", "true",
                                 "false", "end"};
bool listed(std::span<const char* const> words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string typeName(const sema::Type* type) { return type ? type->name() : "?"; }

/// A stream's, vector's or queue's type as the script writes it (`vector<u32>`); "" for
/// other symbols.
std::string containerType(const sema::Symbol& s) {
  switch (s.kind) {
  case sema::Symbol::Stream: return "stream<" + typeName(s.type) + ">";
  case sema::Symbol::Vector: return "vector<" + typeName(s.type) + ">";
  case sema::Symbol::Queue: return "pq<" + typeName(s.type) + ">";
  default: return "";
  }
}

/// What a symbol is, as hover says it: "stream `p`: stream<Pair>".
std::string describeSymbol(const sema::Symbol& s) {
  std::string what = std::string(s.kindName()) + " `" + s.name + "`";
  switch (s.kind) {
  case sema::Symbol::Stream:
  case sema::Symbol::Vector: return what + ": " + containerType(s);
  case sema::Symbol::Queue: return what + ": " + containerType(s) + (s.order ? " ordered by " + s.order->name : "");
  case sema::Symbol::Array: return what + ": array of " + typeName(s.type);
  case sema::Symbol::Record: {
    std::string fields;
    if (s.record)
      for (const sema::FieldInfo& f : s.record->fields) fields += (fields.empty() ? "" : ", ") + f.name + ": " + typeName(f.type);
    return what + " { " + fields + " }" + (s.record ? " (" + std::to_string(s.record->size) + " bytes)" : "");
  }
  case sema::Symbol::Order: {
    std::string keys;
    if (s.order)
      for (const sema::OrderKeyInfo& k : s.order->keys) keys += (keys.empty() ? "" : ", ") + k.text + (k.descending ? " desc" : " asc");
    return what + " on " + typeName(s.order ? s.order->type : nullptr) + (keys.empty() ? "" : " = (" + keys + ")");
  }
  default: return what + (s.type ? ": " + typeName(s.type) : "");
  }
}

} // namespace

uint32_t toUtf16(std::string_view line, uint32_t column) {
  const size_t end = byteOfColumn(line, column);
  uint32_t units = 0;
  for (size_t i = 0; i < end; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    units += c >= 0xF0 ? 2 : 1; // a code point past the BMP is a surrogate pair
  }
  return units;
}

uint32_t fromUtf16(std::string_view line, uint32_t character) {
  uint32_t units = 0, column = 1;
  for (size_t i = 0; i < line.size() && units < character; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if ((c & 0xC0) == 0x80) continue;
    units += c >= 0xF0 ? 2 : 1;
    ++column;
  }
  return column;
}

/// What the AST has at a word: a name's symbol, a field of a record, a method, a call.
struct Analysis::Hit {
  const sema::Symbol* symbol = nullptr;
  const sema::FieldInfo* field = nullptr;
  const sema::RecordInfo* record = nullptr; // the field's record
  const ast::MethodCallExpr* method = nullptr;
  const ast::CallExpr* call = nullptr;
  const ast::FnDecl* function = nullptr;
};

Analysis::Analysis(std::string path, std::string text, const AnalysisOptions& options)
    : diags_(std::make_unique<DiagnosticEngine>(sink_)), file_(std::make_unique<SourceFile>(std::move(path), std::move(text))) {
  diags_->setQuiet(true);
  program_ = parse::parseProgram(*file_, *diags_);
  if (program_ && !diags_->hasErrors()) {
    sema::SemaOptions sema;
    sema.includeDirs = options.includeDirs;
    sema.strCapacity = options.strCapacity;
    checked_ = sema::analyze(*program_, *diags_, sema);
  }
  if (checked_) {
    plan::PlanOptions planOptions;
    planOptions.inputFilesNow = true; // as flowc explain: the input files as they are now
    plan_ = plan::makePlan(*checked_, planOptions, *diags_);
  }
  diags_->flush();
  // Each error or warning at its place in this script: one in a module or an expanded
  // function body at the place in the script that led there (the `use`, the call).
  std::map<size_t, size_t> groups; // diagnostic group -> index in diagnostics_
  for (const flow::Diagnostic& d : diags_->all()) {
    if (d.severity == Severity::Note) {
      auto it = groups.find(d.group);
      if (it != groups.end()) diagnostics_[it->second].message += "\nnote: " + describe(d.loc) + ": " + d.message;
      continue;
    }
    SourceLoc loc = d.loc;
    std::string where;
    while (loc.origin != 0) {
      const SourceOrigin& o = sourceOrigin(loc.origin);
      where = (where.empty() ? "" : where + ", ") + "in " + describe(loc);
      loc = o.call;
      if (!loc.valid()) break;
    }
    if (d.file && d.file != file_.get() && loc.origin == 0 && where.empty()) where = "in " + d.file->path();
    Diagnostic out;
    out.error = d.severity == Severity::Error;
    out.message = d.message + (where.empty() ? "" : " (" + where + ")");
    if (loc.valid() && loc.origin == 0) {
      const std::string_view line = file_->lineText(loc.line);
      const size_t at = byteOfColumn(line, loc.column);
      size_t end = at;
      while (end < line.size() && isWordByte(static_cast<unsigned char>(line[end]))) ++end;
      if (end == at && end < line.size()) ++end;
      out.range.start = {loc.line - 1, toUtf16(line, loc.column)};
      out.range.end = {loc.line - 1, toUtf16(line, loc.column) + toUtf16(line.substr(at, end - at), 1u << 30)};
    }
    groups[d.group] = diagnostics_.size();
    diagnostics_.push_back(std::move(out));
  }
}

Analysis::~Analysis() = default;

std::string_view Analysis::lineText(uint32_t line) const { return file_->lineText(line + 1); }
const std::string& Analysis::text() const { return file_->text(); }

std::optional<Analysis::Word> Analysis::wordAt(Position at) const {
  const std::string_view line = file_->lineText(at.line + 1);
  const uint32_t column = fromUtf16(line, at.character);
  size_t begin = byteOfColumn(line, column), end = begin;
  // The cursor may stand just after the word (the end of a name being typed).
  if ((begin >= line.size() || !isWordByte(static_cast<unsigned char>(line[begin]))) && begin > 0 &&
      isWordByte(static_cast<unsigned char>(line[begin - 1])))
    --begin, end = begin;
  while (begin > 0 && isWordByte(static_cast<unsigned char>(line[begin - 1]))) --begin;
  while (end < line.size() && isWordByte(static_cast<unsigned char>(line[end]))) ++end;
  if (begin == end) return std::nullopt;
  Word w;
  w.text = std::string(line.substr(begin, end - begin));
  w.line = at.line + 1;
  auto columnOf = [&](size_t byte) {
    uint32_t c = 1;
    for (size_t i = 0; i < byte; ++i)
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++c;
    return c;
  };
  w.begin = columnOf(begin);
  w.end = columnOf(end);
  return w;
}

std::optional<Analysis::Hit> Analysis::find(const Word& word) const {
  if (!checked_) return std::nullopt;
  // The innermost node of the script (origin 0) whose name covers the word.
  struct Finder : ast::Visitor {
    const Word& word;
    std::optional<Hit> hit;
    explicit Finder(const Word& w) : word(w) {}
    bool at(SourceLoc loc) const { return loc.origin == 0 && loc.line == word.line && loc.column == word.begin; }
    bool covers(SourceLoc loc, size_t length) const {
      return loc.origin == 0 && loc.line == word.line && loc.column <= word.begin && word.begin < loc.column + length;
    }
    bool visit(const ast::Expr& e) override {
      if (auto* n = e.as<ast::NameExpr>(); n && n->symbol && covers(n->loc, n->name.str().size())) hit = Hit{n->symbol};
      if (auto* f = e.as<ast::FieldExpr>(); f && at(f->fieldLoc) && f->object->type && f->object->type->record) {
        Hit h;
        h.record = f->object->type->record;
        h.field = h.record->field(f->field);
        hit = h;
      }
      if (auto* m = e.as<ast::MethodCallExpr>(); m && at(m->methodLoc)) {
        Hit h;
        h.method = m;
        hit = h;
      }
      if (auto* c = e.as<ast::CallExpr>(); c && covers(c->loc, c->callee.str().size())) {
        Hit h;
        h.call = c;
        h.symbol = c->symbol;
        hit = h;
      }
      return true;
    }
    bool visit(const ast::Stmt& s) override {
      if (s.symbol && s.symbol->name == word.text && s.loc.origin == 0 && s.loc.line == word.line) hit = Hit{s.symbol};
      // A field where its record declares it.
      if (auto* r = s.as<ast::RecordDecl>(); r && s.symbol && s.symbol->record)
        for (const ast::FieldDecl& f : r->fields)
          if (at(f.loc) && f.name == word.text) {
            Hit h;
            h.record = s.symbol->record;
            h.field = h.record->field(f.name);
            if (h.field) hit = h;
          }
      return true;
    }
  } finder(word);
  for (const ast::StmtPtr& item : program_->items) finder.walk(*item);
  if (finder.hit && finder.hit->call && !finder.hit->symbol) {
    if (const ast::FnDecl* fn = functionNamed(finder.hit->call->callee.str())) finder.hit->function = fn;
  }
  if (finder.hit) return finder.hit;
  // A module's declaration (`graph.dedup(…)`, `graph.Edge { … }`: calls of script
  // functions are expanded, so the name stands in no node), a declaration, a parameter or
  // an element variable: the symbol of that name declared last before the word.
  const std::string_view line = file_->lineText(word.line);
  const size_t begin = byteOfColumn(line, word.begin);
  size_t module = begin;
  if (module > 0 && line[module - 1] == '.') {
    --module;
    while (module > 0 && isWordByte(static_cast<unsigned char>(line[module - 1]))) --module;
  }
  const std::string qualified = std::string(line.substr(module, begin - module)) + word.text;
  for (const std::string& name : {qualified, word.text}) {
    if (const ast::FnDecl* fn = functionNamed(name)) {
      Hit h;
      h.function = fn;
      return h;
    }
    if (const sema::Symbol* s = symbolNamed(name, word.line)) return Hit{s};
  }
  return std::nullopt;
}

const sema::Symbol* Analysis::symbolNamed(const std::string& name, uint32_t line) const {
  if (!checked_) return nullptr;
  const sema::Symbol* best = nullptr;
  for (const sema::Symbol& s : checked_->symbols) {
    if (s.name != name || s.kind == sema::Symbol::Builtin) continue;
    const bool here = s.loc.origin == 0 && s.loc.line <= line;
    const bool bestHere = best && best->loc.origin == 0 && best->loc.line <= line;
    if (!best || (here && (!bestHere || s.loc.line >= best->loc.line))) best = &s;
  }
  return best;
}

const ast::FnDecl* Analysis::functionNamed(const std::string& name) const {
  if (!program_) return nullptr;
  for (const ast::StmtPtr& item : program_->items)
    if (auto* fn = item->as<ast::FnDecl>(); fn && fn->name == name) return fn;
  return nullptr;
}

std::string Analysis::commentAbove(SourceLoc loc) const {
  const SourceFile* file = loc.origin == 0 ? file_.get() : sourceOrigin(loc.origin).file;
  if (!file || loc.line < 2) return "";
  // The `//` lines right above a declaration are its documentation (the stdlib's are).
  uint32_t first = loc.line;
  while (first > 1 && loc.line - first < 40) {
    const std::string_view above = file->lineText(first - 1);
    const size_t text = above.find_first_not_of(" \t");
    if (text == std::string_view::npos || above.compare(text, 2, "//") != 0) break;
    --first;
  }
  std::string out;
  for (uint32_t l = first; l < loc.line; ++l) {
    std::string_view line = file->lineText(l);
    line.remove_prefix(std::min(line.size(), line.find("//") + 2));
    if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
    out += std::string(line) + "\n";
  }
  return out.empty() ? "" : "\n\n```\n" + out + "```";
}

std::string Analysis::planLines(const std::set<uint32_t>& lines) const {
  if (!plan_) return "";
  std::string out;
  for (const plan::Node& n : plan_->nodes) {
    if (n.loc.origin != 0 || !lines.count(n.loc.line)) continue;
    out += "- " + n.name + ": " + (n.counted ? plan::formatCount(n.elements) : "? (no count)") + " elements";
    if (n.elementBytes) out += " of " + std::to_string(n.elementBytes) + " B";
    if (n.memoryBytes) out += ", memory " + plan::formatBytes(static_cast<double>(n.memoryBytes));
    if (n.readBytes > 0 || n.writeBytes > 0)
      out += ", reads " + plan::formatBytes(n.readBytes) + ", writes " + plan::formatBytes(n.writeBytes);
    if (n.passes > 0) out += ", " + std::to_string(n.passes) + " merge pass" + (n.passes > 1 ? "es" : "");
    out += " (phase " + std::to_string(n.phase) + ")\n";
  }
  return out.empty() ? "" : "\n\n**plan** (at " + plan::formatBytes(static_cast<double>(plan_->memoryBytes)) +
                                 " of memory):\n" + out;
}

std::optional<std::string> Analysis::hover(Position at) const {
  const std::optional<Word> word = wordAt(at);
  if (!word) return std::nullopt;
  std::string text;
  const std::optional<Hit> hit = find(*word);
  if (const std::optional<std::string> module = moduleFile(*word)) {
    text = "module `" + word->text + "`: " + *module;
  } else if (hit) {
    if (hit->field) text = "field `" + hit->field->name + "` of " + hit->record->name + ": " + typeName(hit->field->type);
    else if (hit->method) {
      const ast::MethodCallExpr& m = *hit->method;
      const std::string of = m.container ? containerType(*m.container) : typeName(m.object->type);
      text = "method `" + m.method + "` of " + of + (m.type ? ", gives " + typeName(m.type) : "");
    } else if (hit->function) {
      const ast::FnDecl& fn = *hit->function;
      // Its signature as written: `fn graph.degrees(edges: stream<Edge>) -> stream<Degree>`.
      auto written = [](const ast::FnParam& p) {
        static const char* const kinds[] = {"", "stream", "vector", "array", "order", "pq"};
        const std::string type = p.type ? ast::typeName(*p.type) : "?";
        return p.kind == ast::FnParam::Value ? type : std::string(kinds[p.kind]) + "<" + type + ">";
      };
      std::string params;
      for (const ast::FnParam& p : fn.params) params += (params.empty() ? "" : ", ") + p.name + ": " + written(p);
      text = "fn `" + fn.name + "`(" + params + ")" + (fn.result ? " -> " + written(*fn.result) : "") +
             commentAbove(fn.loc);
    } else if (hit->call && hit->call->builtin) {
      text = "builtin `" + hit->call->callee.str() + "`" + (hit->call->type ? ": " + typeName(hit->call->type) : "");
    } else if (hit->symbol) {
      text = describeSymbol(*hit->symbol);
    }
  } else if (listed(kKeywords, word->text) || listed(ast::stageNames(), word->text) ||
             listed(ast::sourceNames(), word->text)) {
    text = "`" + word->text + "` (docs/language.md)";
  }
  // The plan of the line; on a stream's or vector's name, of its whole pipeline.
  std::set<uint32_t> lines = {word->line};
  if (hit && hit->symbol && hit->symbol->pipeline) {
    const ast::Pipeline& p = *hit->symbol->pipeline;
    if (p.loc.origin == 0) lines.insert(p.loc.line);
    if (p.source && p.source->loc.origin == 0) lines.insert(p.source->loc.line);
    for (const ast::StagePtr& stage : p.stages)
      if (stage->loc.origin == 0) lines.insert(stage->loc.line);
  }
  const std::string plan = planLines(lines);
  text += text.empty() && !plan.empty() ? plan.substr(2) : plan; // no blank header
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<Location> Analysis::locationOf(SourceLoc loc, std::string_view name) const {
  if (!loc.valid()) return std::nullopt;
  const SourceFile* file = file_.get();
  if (loc.origin != 0) file = sourceOrigin(loc.origin).file;
  if (!file) return std::nullopt;
  const std::string_view line = file->lineText(loc.line);
  Location out;
  out.path = file->path();
  size_t at = byteOfColumn(line, loc.column);
  // A declaration's place is its keyword (`stream s = …`): point at its name.
  if (!name.empty()) {
    for (size_t i = line.find(name, at); i != std::string_view::npos; i = line.find(name, i + 1)) {
      const bool starts = i == 0 || !isWordByte(static_cast<unsigned char>(line[i - 1]));
      const bool ends = i + name.size() >= line.size() || !isWordByte(static_cast<unsigned char>(line[i + name.size()]));
      if (starts && ends) {
        at = i;
        break;
      }
    }
  }
  const uint32_t start = toUtf16(line.substr(0, at), 1u << 30);
  const uint32_t length = name.empty() ? 1 : toUtf16(name, 1u << 30);
  out.range = {{loc.line - 1, start}, {loc.line - 1, start + length}};
  return out;
}

std::optional<std::string> Analysis::moduleFile(const Word& word) const {
  if (!program_ || !checked_) return std::nullopt;
  // `graph` in `use std.graph;` or `graph.dedup(…)`: the module's alias, where no `.`
  // stands before it.
  const std::string_view line = file_->lineText(word.line);
  const size_t begin = byteOfColumn(line, word.begin);
  if (begin > 0 && line[begin - 1] == '.' && line.substr(0, begin).find("use") == std::string_view::npos) return std::nullopt;
  for (const ast::StmtPtr& item : program_->items) {
    auto* use = item->as<ast::UseDecl>();
    if (!use || use->alias != word.text) continue;
    // Its file, among those sema loaded: `std.graph` is graph.flow in the stdlib.
    const std::string name = use->module.empty() ? use->path.text() : use->module.substr(use->module.rfind('.') + 1) + ".flow";
    const std::string tail = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
    for (const std::string& path : checked_->moduleFiles)
      if (path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0) return path;
  }
  return std::nullopt;
}

std::optional<Location> Analysis::definition(Position at) const {
  const std::optional<Word> word = wordAt(at);
  if (!word) return std::nullopt;
  if (const std::optional<std::string> module = moduleFile(*word)) return Location{*module, {}};
  const std::optional<Hit> hit = find(*word);
  if (!hit) return std::nullopt;
  if (hit->field) return locationOf(hit->field->loc, hit->field->name);
  if (hit->function) return locationOf(hit->function->loc, hit->function->name.substr(hit->function->name.rfind('.') + 1));
  if (hit->symbol && hit->symbol->kind != sema::Symbol::Builtin) {
    const std::string& name = hit->symbol->name;
    const std::string own = name.substr(name.rfind('.') + 1); // `graph.Edge` is `Edge` in its module
    if (hit->symbol->kind == sema::Symbol::Record && hit->symbol->record) return locationOf(hit->symbol->record->loc, own);
    return locationOf(hit->symbol->loc, own);
  }
  return std::nullopt;
}

std::vector<Analysis::Declaration> Analysis::declarations() const {
  std::vector<Declaration> out;
  if (!program_) return out;
  for (const ast::StmtPtr& item : program_->items) {
    if (item->loc.origin != 0 || !item->loc.valid()) continue; // a module's, loaded into the script
    std::string name, detail;
    int kind = 13;
    if (auto* d = item->as<ast::RecordDecl>()) name = d->name, detail = "record", kind = 23;
    else if (auto* d = item->as<ast::OrderDecl>()) name = d->name, detail = "order", kind = 25;
    else if (auto* d = item->as<ast::ParamDecl>()) name = d->name, detail = "param", kind = 14;
    else if (auto* d = item->as<ast::StreamDecl>()) name = d->name, detail = "stream";
    else if (auto* d = item->as<ast::VectorDecl>()) name = d->name, detail = "vector";
    else if (auto* d = item->as<ast::PqDecl>()) name = d->name, detail = "pq";
    else if (auto* d = item->as<ast::LetStmt>()) name = d->name, detail = d->isVar ? "var" : "let", kind = d->isVar ? 13 : 14;
    else if (auto* d = item->as<ast::ArrayDecl>()) name = d->name, detail = "array", kind = 18;
    else if (auto* d = item->as<ast::FnDecl>()) name = d->name, detail = "fn", kind = 12;
    else if (auto* d = item->as<ast::UseDecl>()) name = d->alias, detail = "use " + (d->module.empty() ? d->path.text() : d->module), kind = 2;
    // A function's expansion (`graph.degrees.edges`) is the compiler's, not the script's.
    if (name.empty() || (kind != 2 && name.find('.') != std::string::npos)) continue;
    const std::optional<Location> at = locationOf(item->loc, name);
    if (!at) continue;
    const std::string_view text = file_->lineText(item->loc.line);
    Declaration decl{name, detail, kind, {{item->loc.line - 1, 0}, {item->loc.line - 1, toUtf16(text, 1u << 30)}}, at->range};
    out.push_back(std::move(decl));
  }
  return out;
}

std::vector<CompletionItem> Analysis::completion(Position at, std::string_view line) const {
  std::vector<CompletionItem> items;
  std::set<std::string> seen;
  auto add = [&](std::string label, CompletionItem::Kind kind, std::string detail) {
    if (seen.insert(label).second) items.push_back({std::move(label), kind, std::move(detail)});
  };
  const size_t cursor = byteOfColumn(line, fromUtf16(line, at.character));
  size_t start = cursor;
  while (start > 0 && isWordByte(static_cast<unsigned char>(line[start - 1]))) --start;
  // After `x.`: what x has.
  if (start > 0 && line[start - 1] == '.') {
    size_t objectStart = start - 1;
    while (objectStart > 0 && isWordByte(static_cast<unsigned char>(line[objectStart - 1]))) --objectStart;
    const std::string object(line.substr(objectStart, start - 1 - objectStart));
    if (!checked_ || object.empty()) return items;
    // A module: its declarations (named `module.name` once loaded).
    for (const ast::StmtPtr& item : program_->items)
      if (auto* fn = item->as<ast::FnDecl>(); fn && fn->name.rfind(object + ".", 0) == 0)
        add(fn->name.substr(object.size() + 1), CompletionItem::Function, "fn");
    for (const sema::Symbol& s : checked_->symbols)
      if (s.name.rfind(object + ".", 0) == 0 && s.name.find('.', object.size() + 1) == std::string::npos)
        add(s.name.substr(object.size() + 1), s.kind == sema::Symbol::Record ? CompletionItem::Record : CompletionItem::Variable,
            s.kindName());
    if (const sema::Symbol* s = symbolNamed(object, at.line + 1)) {
      const bool queue = s->kind == sema::Symbol::Queue, vector = s->kind == sema::Symbol::Vector;
      if (queue || vector) {
        for (const ast::MethodInfo& m : ast::methods())
          if ((queue && m.ofQueue) || (vector && m.ofVector)) add(m.name, CompletionItem::Method, s->kindName());
      } else if (s->type && s->type->record) {
        for (const sema::FieldInfo& f : s->type->record->fields) add(f.name, CompletionItem::Field, typeName(f.type));
      } else if (s->type && s->type->isStr()) {
        for (const ast::StrMethodInfo& m : ast::strMethods()) add(m.name, CompletionItem::Method, "str");
      }
    }
    return items;
  }
  // After `|`: a stage.
  size_t before = start;
  while (before > 0 && std::isspace(static_cast<unsigned char>(line[before - 1]))) --before;
  if (before > 0 && line[before - 1] == '|') {
    for (const char* s : ast::stageNames()) add(s, CompletionItem::Keyword, "stage");
    return items;
  }
  if (checked_)
    for (const sema::Symbol& s : checked_->symbols) {
      if (s.kind == sema::Symbol::Builtin || s.kind == sema::Symbol::Field || s.name.find('.') != std::string::npos) continue;
      // A stage's element (`e =>`) and an index live on their line; a loop's variable
      // from its line on (the loop's end is not known here).
      const bool ofALine = s.kind == sema::Symbol::LambdaVar || s.kind == sema::Symbol::Index;
      if (ofALine && !(s.loc.origin == 0 && s.loc.line == at.line + 1)) continue;
      if (s.kind == sema::Symbol::LoopVar && !(s.loc.origin == 0 && s.loc.line <= at.line + 1)) continue;
      add(s.name, s.kind == sema::Symbol::Record ? CompletionItem::Record : CompletionItem::Variable, describeSymbol(s));
    }
  if (program_)
    for (const ast::StmtPtr& item : program_->items) {
      if (auto* fn = item->as<ast::FnDecl>(); fn && fn->name.find('.') == std::string::npos)
        add(fn->name, CompletionItem::Function, "fn");
      if (auto* use = item->as<ast::UseDecl>()) add(use->alias, CompletionItem::Module, "module " + use->module);
    }
  for (const ast::BuiltinInfo& b : ast::builtins()) add(b.name, CompletionItem::Function, "builtin");
  for (const char* s : ast::sourceNames()) add(s, CompletionItem::Keyword, "source");
  for (const char* k : kKeywords) add(k, CompletionItem::Keyword, "keyword");
  for (const char* s : ast::stageNames()) add(s, CompletionItem::Keyword, "stage");
  return items;
}

} // namespace flow::lsp

#include "ast/ast_printer.hpp"

#include <map>
#include <ostream>

namespace flow::ast {

namespace {

std::string at(SourceLoc loc) {
  return "<" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ">";
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out + "\"";
}

/// A path as the script writes it: a quoted literal, or a path param's name.
std::string pathText(const PathRef& p) { return p.isParam() ? "param " + p.param : quoted(p.literal.text()); }

/// Writes one node per line, children indented by two spaces, each with its location.
class Printer {
public:
  explicit Printer(std::ostream& out) : out_(out) {}

  void program(const Program& p) {
    line("Program " + (p.file ? p.file->path() : std::string("<input>")));
    Indent in(*this);
    for (const StmtPtr& s : p.items) stmt(*s);
  }

  void expr(const Expr& e) {
    switch (e.kind()) {
    case Expr::IntLit: {
      auto& x = *e.as<IntLitExpr>();
      line("Int " + std::to_string(x.value) + (x.text != std::to_string(x.value) ? " '" + x.text + "'" : ""), e.loc);
      break;
    }
    case Expr::FloatLit: line("Float " + e.as<FloatLitExpr>()->text, e.loc); break;
    case Expr::SizeLit: {
      auto& x = *e.as<SizeLitExpr>();
      line("Size " + std::to_string(x.bytes) + " '" + x.text + "'", e.loc);
      break;
    }
    case Expr::StringLit: stringLiteral("String", e.as<StringLitExpr>()->literal); break;
    case Expr::BoolLit: line(std::string("Bool ") + (e.as<BoolLitExpr>()->value ? "true" : "false"), e.loc); break;
    case Expr::Name: line("Name " + e.as<NameExpr>()->name.str(), e.loc); break;
    case Expr::Call: {
      auto& x = *e.as<CallExpr>();
      line("Call " + x.callee.str(), e.loc);
      Indent in(*this);
      for (const ExprPtr& a : x.args) expr(*a);
      break;
    }
    case Expr::MethodCall: {
      auto& x = *e.as<MethodCallExpr>();
      line("MethodCall ." + x.method, e.loc);
      Indent in(*this);
      expr(*x.object);
      for (const ExprPtr& a : x.args) expr(*a);
      break;
    }
    case Expr::Field: {
      auto& x = *e.as<FieldExpr>();
      line("Field ." + x.field, e.loc);
      Indent in(*this);
      expr(*x.object);
      break;
    }
    case Expr::Index: {
      auto& x = *e.as<IndexExpr>();
      line("Index", e.loc);
      Indent in(*this);
      expr(*x.object);
      expr(*x.index);
      break;
    }
    case Expr::Unary: {
      auto& x = *e.as<UnaryExpr>();
      line(std::string("Unary '") + spelling(x.op) + "'", e.loc);
      Indent in(*this);
      expr(*x.operand);
      break;
    }
    case Expr::Binary: {
      auto& x = *e.as<BinaryExpr>();
      line(std::string("Binary '") + spelling(x.op) + "'", e.loc);
      Indent in(*this);
      expr(*x.lhs);
      expr(*x.rhs);
      break;
    }
    case Expr::Cast: {
      auto& x = *e.as<CastExpr>();
      line("Cast as " + typeName(*x.target), e.loc);
      Indent in(*this);
      expr(*x.operand);
      break;
    }
    case Expr::RecordInit: {
      auto& x = *e.as<RecordInitExpr>();
      line("RecordInit " + x.recordName.str(), e.loc);
      Indent in(*this);
      for (const FieldInit& f : x.fields) {
        line("FieldInit " + f.field, f.loc);
        Indent in2(*this);
        expr(*f.value);
      }
      break;
    }
    case Expr::ArrayRepeat: {
      auto& x = *e.as<ArrayRepeatExpr>();
      line("ArrayRepeat", e.loc);
      Indent in(*this);
      expr(*x.value);
      expr(*x.count);
      break;
    }
    case Expr::ArrayList: {
      auto& x = *e.as<ArrayListExpr>();
      line("ArrayList " + std::to_string(x.elements.size()), e.loc);
      Indent in(*this);
      for (const ExprPtr& el : x.elements) expr(*el);
      break;
    }
    case Expr::PipelineArg: pipeline(*e.as<PipelineArgExpr>()->pipeline); break;
    case Expr::IfElse: {
      auto& x = *e.as<IfExpr>();
      line("IfExpr", e.loc);
      Indent in(*this);
      expr(*x.cond);
      expr(*x.then);
      if (x.otherwise) expr(*x.otherwise);
      break;
    }
    }
  }

  void stmt(const Stmt& s) {
    switch (s.kind()) {
    case Stmt::Import: stringLiteral("Import", s.as<ImportDecl>()->path, s.loc); break;
    case Stmt::Param: {
      auto& x = *s.as<ParamDecl>();
      line("Param " + x.name + ": " + typeName(*x.type), s.loc);
      Indent in(*this);
      expr(*x.init);
      break;
    }
    case Stmt::Memory:
    case Stmt::BlockSize: {
      auto& x = *s.as<SizeDecl>();
      line(std::string(x.isBlock ? "Block " : "Memory ") + std::to_string(x.bytes) + " '" + x.text + "'", s.loc);
      break;
    }
    case Stmt::Record: {
      auto& x = *s.as<RecordDecl>();
      line("Record " + x.name, s.loc);
      Indent in(*this);
      for (const FieldDecl& f : x.fields) line("Field " + f.name + ": " + typeName(*f.type), f.loc);
      break;
    }
    case Stmt::Order: {
      auto& x = *s.as<OrderDecl>();
      line("Order " + x.name + " on " + typeName(*x.type) + (x.cpp ? " = " + x.cpp->str() : ""), s.loc);
      Indent in(*this);
      for (const OrderKey& k : x.keys) {
        line(std::string("Key ") + (k.descending ? "desc" : "asc"), k.loc);
        Indent in2(*this);
        expr(*k.key);
      }
      break;
    }
    case Stmt::Fn: {
      auto& x = *s.as<FnDecl>();
      std::string head = "Fn " + x.name;
      if (!x.typeParams.empty()) {
        head += "<";
        for (size_t i = 0; i < x.typeParams.size(); ++i) head += (i ? ", " : "") + x.typeParams[i].first;
        head += ">";
      }
      line(head + (x.result ? " -> " + fnType(*x.result) : ""), s.loc);
      Indent in(*this);
      for (const FnParam& p : x.params) line("Param " + p.name + ": " + fnType(p), p.loc);
      if (x.exprBody) pipeline(*x.exprBody);
      else body("Body", x.body, s.loc);
      break;
    }
    case Stmt::Use: {
      auto& x = *s.as<UseDecl>();
      line("Use " + (x.module.empty() ? x.path.raw : x.module) + " as " + x.alias, s.loc);
      break;
    }
    case Stmt::Return:
      line("Return", s.loc);
      if (s.as<ReturnStmt>()->value) {
        Indent in(*this);
        pipeline(*s.as<ReturnStmt>()->value);
      }
      break;
    case Stmt::Stream: {
      auto& x = *s.as<StreamDecl>();
      line("Stream " + x.name + (x.type ? ": " + typeName(*x.type) : ""), s.loc);
      Indent in(*this);
      pipeline(*x.pipeline);
      break;
    }
    case Stmt::Vector: {
      auto& x = *s.as<VectorDecl>();
      line("Vector " + x.name + (x.type ? ": " + typeName(*x.type) : ""), s.loc);
      Indent in(*this);
      if (x.pipeline) pipeline(*x.pipeline);
      break;
    }
    case Stmt::Pq: {
      auto& x = *s.as<PqDecl>();
      line("Pq " + x.name + ": " + typeName(*x.type) + " order " + x.order.str(), s.loc);
      break;
    }
    case Stmt::Let:
    case Stmt::Var: {
      auto& x = *s.as<LetStmt>();
      line(std::string(x.isVar ? "Var " : "Let ") + x.name + (x.type ? ": " + typeName(*x.type) : ""), s.loc);
      Indent in(*this);
      expr(*x.init);
      break;
    }
    case Stmt::If: {
      auto& x = *s.as<IfStmt>();
      line("If", s.loc);
      Indent in(*this);
      expr(*x.cond);
      body("Then", x.then);
      if (x.elseBranch) {
        line("Else");
        Indent in2(*this);
        stmt(*x.elseBranch);
      }
      break;
    }
    case Stmt::While: {
      auto& x = *s.as<WhileStmt>();
      line("While", s.loc);
      Indent in(*this);
      expr(*x.cond);
      estimate(x.rounds);
      body("Do", x.body);
      break;
    }
    case Stmt::ForIn: {
      auto& x = *s.as<ForInStmt>();
      line("ForIn " + x.var, s.loc);
      Indent in(*this);
      pipeline(*x.pipeline);
      body("Do", x.body);
      break;
    }
    case Stmt::Break: line("Break", s.loc); break;
    case Stmt::Continue: line("Continue", s.loc); break;
    case Stmt::Emit: {
      line("Emit", s.loc);
      Indent in(*this);
      expr(*s.as<EmitStmt>()->value);
      break;
    }
    case Stmt::Print: stringLiteral("Print", s.as<PrintStmt>()->message, s.loc); break;
    case Stmt::Write:
    case Stmt::WriteText: {
      auto& x = *s.as<WriteStmt>();
      line(std::string(x.csv ? "WriteCsv " : x.lines ? "WriteLines " : x.text ? "WriteText " : "Write ") + "to " + pathText(x.path), s.loc);
      Indent in(*this);
      pipeline(*x.pipeline);
      break;
    }
    case Stmt::Assign: {
      auto& x = *s.as<AssignStmt>();
      line("Assign '" + x.spelling() + "'", s.loc);
      Indent in(*this);
      expr(*x.target);
      if (x.value) expr(*x.value);
      if (x.pipeline) pipeline(*x.pipeline);
      break;
    }
    case Stmt::Evaluate: {
      line("ExprStmt", s.loc);
      Indent in(*this);
      expr(*s.as<ExprStmt>()->expr);
      break;
    }
    case Stmt::Block: body("Block", s.as<BlockStmt>()->body, s.loc); break;
    case Stmt::Array: {
      auto& x = *s.as<ArrayDecl>();
      line("Array " + x.name + ": " + typeName(*x.element) + "[]", s.loc);
      Indent in(*this);
      expr(*x.length);
      if (x.init) expr(*x.init);
      break;
    }
    }
  }

  std::string fnType(const FnParam& p) {
    static const char* kinds[] = {"", "stream", "vector", "array", "order", "pq"};
    return p.kind == FnParam::Value ? typeName(*p.type) : std::string(kinds[p.kind]) + "<" + typeName(*p.type) + ">";
  }

  void pipeline(const Pipeline& p) {
    line("Pipeline", p.loc);
    Indent in(*this);
    source(*p.source);
    for (const StagePtr& s : p.stages) stage(*s);
  }

private:
  struct Indent {
    Printer& p;
    explicit Indent(Printer& printer) : p(printer) { p.depth_ += 2; }
    ~Indent() { p.depth_ -= 2; }
  };

  void line(const std::string& text, SourceLoc loc = {}) {
    out_ << std::string(depth_, ' ') << text;
    if (loc.valid()) out_ << ' ' << at(loc);
    out_ << '\n';
  }

  void body(const std::string& label, const std::vector<StmtPtr>& stmts, SourceLoc loc = {}) {
    line(label, loc);
    Indent in(*this);
    for (const StmtPtr& s : stmts) stmt(*s);
  }

  void stringLiteral(const std::string& label, const StringLiteral& lit, SourceLoc loc = {}) {
    if (!lit.isInterpolated()) {
      line(label + " " + quoted(lit.text()), loc.valid() ? loc : lit.loc);
      return;
    }
    line(label + " interpolated", loc.valid() ? loc : lit.loc);
    Indent in(*this);
    for (const StringPart& part : lit.parts) {
      if (part.expr) expr(*part.expr);
      else line("Text " + quoted(part.text));
    }
  }

  void estimate(const std::optional<Estimate>& e) {
    if (e) line("Estimate ~ " + e->text, e->loc);
  }

  void source(const Source& s) {
    switch (s.kind()) {
    case Source::Generate: {
      auto& x = *s.as<GenerateSource>();
      line("Generate", s.loc);
      Indent in(*this);
      expr(*x.count);
      expr(*x.body);
      break;
    }
    case Source::Range: {
      auto& x = *s.as<RangeSource>();
      line("Range", s.loc);
      Indent in(*this);
      expr(*x.begin);
      expr(*x.end);
      break;
    }
    case Source::Read:
    case Source::ReadText: {
      auto& x = *s.as<ReadSource>();
      line(x.lines ? "ReadLines " + pathText(x.path)
                   : std::string(x.csv ? "ReadCsv " : x.text ? "ReadText " : "Read ") + pathText(x.path) + " as " + typeName(*x.type),
           s.loc);
      Indent in(*this);
      estimate(x.estimate);
      break;
    }
    case Source::Scan: line("Scan " + s.as<ScanSource>()->vector, s.loc); break;
    case Source::Merge: {
      auto& x = *s.as<MergeSource>();
      line("Merge by " + x.order.str(), s.loc);
      Indent in(*this);
      for (const PipelinePtr& p : x.inputs) pipeline(*p);
      break;
    }
    case Source::Join: {
      auto& x = *s.as<JoinSource>();
      line(x.left ? "LeftJoin" : "Join", s.loc);
      Indent in(*this);
      for (int side = 0; side < 2; ++side) {
        pipeline(*x.inputs[side]);
        joinKey(x.keys[side]);
      }
      lambda(x.fn);
      estimate(x.estimate);
      break;
    }
    case Source::Zip: {
      auto& x = *s.as<ZipSource>();
      line("Zip", s.loc);
      Indent in(*this);
      for (const PipelinePtr& p : x.inputs) pipeline(*p);
      lambda(x.fn);
      break;
    }
    case Source::Concat: {
      line("Concat", s.loc);
      Indent in(*this);
      for (const PipelinePtr& p : s.as<ConcatSource>()->inputs) pipeline(*p);
      break;
    }
    case Source::ExprSrc: {
      line("From", s.loc);
      Indent in(*this);
      expr(*s.as<ExprSource>()->expr);
      break;
    }
    }
  }

  void stage(const Stage& s) {
    switch (s.kind()) {
    case Stage::Map: {
      auto& x = *s.as<MapStage>();
      line("Map " + x.var, s.loc);
      Indent in(*this);
      expr(*x.body);
      break;
    }
    case Stage::Filter: {
      auto& x = *s.as<FilterStage>();
      line("Filter " + x.var, s.loc);
      Indent in(*this);
      expr(*x.cond);
      estimate(x.estimate);
      break;
    }
    case Stage::Sort: {
      auto& x = *s.as<SortStage>();
      line("Sort" + (x.order ? " by " + x.order->str() : std::string()) +
               (x.insertedFor.empty() ? "" : " (inserted for " + x.insertedFor + ")"),
           s.loc);
      break;
    }
    case Stage::Unique: {
      auto& x = *s.as<UniqueStage>();
      line(x.keys.empty() ? "Unique" : "Unique by " + std::to_string(x.keys.size()) + " keys", s.loc);
      Indent in(*this);
      for (const ExprPtr& k : x.keys) expr(*k);
      estimate(x.estimate);
      break;
    }
    case Stage::Take: {
      line("Take", s.loc);
      Indent in(*this);
      expr(*s.as<TakeStage>()->count);
      break;
    }
    case Stage::Named: {
      auto& x = *s.as<NamedStage>();
      line("Stage " + x.name, s.loc);
      Indent in(*this);
      if (x.argument) expr(*x.argument);
      break;
    }
    case Stage::For: {
      auto& x = *s.as<ForStage>();
      line("ForStage " + x.var, s.loc);
      Indent in(*this);
      for (const StmtPtr& st : x.body) stmt(*st);
      if (x.hasEnd) {
        line("End", x.endLoc);
        Indent e(*this);
        for (const StmtPtr& st : x.end) stmt(*st);
      }
      estimate(x.estimate);
      break;
    }
    case Stage::Reduce: {
      auto& x = *s.as<ReduceStage>();
      line("Reduce by " + std::to_string(x.keys.size()) + " keys", s.loc);
      Indent in(*this);
      for (const ExprPtr& k : x.keys) expr(*k);
      lambda(x.fn);
      estimate(x.estimate);
      break;
    }
    }
  }

  void lambda(const Lambda& fn) {
    std::string params;
    for (const Lambda::Param& p : fn.params) params += (params.empty() ? "" : ", ") + p.name;
    line("Lambda (" + params + ")", fn.loc);
    Indent in(*this);
    expr(*fn.body);
  }

  void joinKey(const JoinKey& k) {
    line(k.order ? "By " + k.order->str() : "By keys", k.loc);
    Indent in(*this);
    for (const OrderKey& key : k.keys) {
      line(key.descending ? "Key desc" : "Key asc", key.loc);
      Indent x(*this);
      expr(*key.key);
    }
  }

  std::ostream& out_;
  size_t depth_ = 0;
};

} // namespace

std::string typeName(const TypeRef& t) {
  if (auto* a = t.as<ArrayType>()) {
    std::string len = "?";
    if (auto* n = a->length->as<IntLitExpr>()) len = std::to_string(n->value);
    else if (auto* name = a->length->as<NameExpr>()) len = name->name.str();
    return "[" + typeName(*a->element) + "; " + len + "]";
  }
  return t.as<NamedType>()->name.str();
}

void printAst(const Program& program, std::ostream& out) { Printer(out).program(program); }

std::string summarize(const Program& program) {
  // Counted in a fixed order so the summary reads the same for every script.
  static const std::pair<Stmt::Kind, const char*> kinds[] = {
      {Stmt::Import, "import"}, {Stmt::Use, "use"},       {Stmt::Param, "param"},   {Stmt::Record, "record"}, {Stmt::Fn, "fn"},
      {Stmt::Order, "order"},   {Stmt::Stream, "stream"}, {Stmt::Vector, "vector"},
      {Stmt::Pq, "pq"},         {Stmt::ForIn, "loop"}};
  std::map<int, int> counts;
  size_t statements = 0;
  for (const StmtPtr& s : program.items) {
    counts[s->kind()]++;
    if (!s->isDeclaration()) ++statements;
  }
  std::string summary;
  for (const auto& [kind, noun] : kinds) {
    int n = counts[kind];
    if (n == 0) continue;
    summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  }
  summary += (summary.empty() ? "" : ", ") + std::to_string(statements) + " top-level statement" +
             (statements == 1 ? "" : "s");
  return summary;
}

} // namespace flow::ast

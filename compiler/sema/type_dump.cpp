#include "sema/sema.hpp"

#include "ast/unreachable.hpp"

#include <ostream>

namespace flow::sema {

namespace {

std::string at(SourceLoc loc) { return describe(loc); }

std::string stageText(const ast::Stage& s) {
  switch (s.kind()) {
  case ast::Stage::Map: return "map";
  case ast::Stage::Filter: return "filter";
  case ast::Stage::Sort: {
    auto& so = *s.as<ast::SortStage>();
    return "sort by " + (so.order ? so.order->str() : std::string("asc")) +
           (so.insertedFor.empty() ? "" : " (inserted for " + so.insertedFor + ")");
  }
  case ast::Stage::Unique: return s.as<ast::UniqueStage>()->keys.empty() ? "unique" : "unique by keys";
  case ast::Stage::Take: return "take";
  case ast::Stage::Named: return s.as<ast::NamedStage>()->name;
  case ast::Stage::For: return "for stage";
  case ast::Stage::Reduce: {
    auto& r = *s.as<ast::ReduceStage>();
    return "reduce by " + r.keyOrder->name + (r.inputSorted ? " (input in key order)" : "");
  }
  }
  unreachable("sema: a stage of no known kind");
}

std::string sourceText(const ast::Source& s) {
  switch (s.kind()) {
  case ast::Source::Generate: return "generate";
  case ast::Source::Range: return "range";
  case ast::Source::Read: return "read";
  case ast::Source::ReadText: return "read_text";
  case ast::Source::Scan: return "scan " + s.as<ast::ScanSource>()->vector;
  case ast::Source::Merge: return "merge";
  case ast::Source::Join: return s.as<ast::JoinSource>()->left ? "left_join" : "join";
  case ast::Source::Zip: return "zip";
  case ast::Source::Concat: return "concat";
  case ast::Source::ExprSrc: {
    auto* n = s.as<ast::ExprSource>()->expr->as<ast::NameExpr>();
    return n ? "from " + n->name.str() : "from";
  }
  }
  unreachable("sema: a source of no known kind");
}

void pipeline(const ast::Pipeline& p, std::ostream& out, const std::string& indent) {
  out << indent << sourceText(*p.source) << ": " << p.source->elementType->name() << '\n';
  for (const ast::StagePtr& s : p.stages) out << indent << stageText(*s) << ": " << s->elementType->name() << '\n';
}

void consumers(const Symbol& s, std::ostream& out) {
  out << "  consumers: " << s.consumers.size();
  for (const Consumer& c : s.consumers) out << ", " << c.what << " at " << at(c.loc) << (c.inLoop ? " (in a loop)" : "");
  out << '\n';
}

} // namespace

void dumpTypes(const CheckedProgram& program, std::ostream& out) {
  for (const RecordInfo& r : program.records) {
    out << "record " << r.name << ": size " << r.size << ", align " << r.align
        << (r.imported ? ", imported as " + r.cppName : "") << '\n';
    for (const FieldInfo& f : r.fields) out << "  field " << f.name << ": " << f.type->name() << ", offset " << f.offset << '\n';
  }
  for (const OrderInfo& o : program.orders) {
    if (o.kind == OrderInfo::Asc || o.kind == OrderInfo::Desc) continue; // built in, shown where used
    out << "order " << o.name << " on " << o.type->name() << ": ";
    if (o.kind == OrderInfo::Cpp) {
      out << "C++ comparator " << o.cppName;
    } else {
      for (size_t i = 0; i < o.keys.size(); ++i)
        out << (i ? ", " : "") << o.keys[i].text << ": " << o.keys[i].type->name() << (o.keys[i].descending ? " desc" : " asc");
    }
    out << "; sentinels " << (o.hasSentinels ? "yes" : "no (" + o.whyNoSentinels + ")") << '\n';
  }
  if (program.memoryBytes) out << "memory " << *program.memoryBytes << " bytes\n";
  if (program.blockBytes) out << "block " << *program.blockBytes << " bytes\n";
  for (const Symbol& s : program.symbols) {
    switch (s.kind) {
    case Symbol::Param:
      out << "param " << s.name << ": " << s.type->name() << " = " << (s.value ? s.value->str() : "?") << '\n';
      break;
    case Symbol::Stream:
      out << "stream " << s.name << ": " << s.type->name() << '\n';
      if (s.pipeline) pipeline(*s.pipeline, out, "  ");
      consumers(s, out);
      break;
    case Symbol::Vector:
      out << "vector " << s.name << ": " << s.type->name() << '\n';
      if (s.pipeline) pipeline(*s.pipeline, out, "  ");
      consumers(s, out);
      break;
    case Symbol::Queue:
      out << "pq " << s.name << ": " << s.type->name() << " order " << (s.order ? s.order->name : "?") << '\n';
      break;
    case Symbol::Let:
    case Symbol::Var:
      out << (s.kind == Symbol::Let ? "let " : "var ") << s.name << ": " << s.type->name() << " at " << at(s.loc) << '\n';
      break;
    case Symbol::LoopVar:
      out << "loop variable " << s.name << ": " << s.type->name() << " at " << at(s.loc) << '\n';
      break;
    default:
      break;
    }
  }
}

} // namespace flow::sema

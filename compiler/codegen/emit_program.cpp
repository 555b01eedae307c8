// Statements, and the program around them: the plan as a comment, records and orders,
// params as flags, and main() running the statements in order, phase by phase.
#include "codegen/generator.hpp"

#include "ast/ast_printer.hpp"
#include "ast/visit.hpp"
#include "flow/escape.hpp"
#include "plan/memory.hpp"

#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace flow::codegen {

Generator::Generator(const sema::CheckedProgram& program, const plan::Plan& plan, const CodegenOptions& options)
    : program_(program), plan_(plan), codegen_(*this), options_(options) {
  consumers_.resize(plan.nodes.size());
  for (const Node& n : plan.nodes)
    for (int in : n.inputs) consumers_[in].push_back(n.id);
  for (const Node& n : plan.nodes) {
    const ast::Expr* function = n.kind == Node::Generate ? n.get<ast::GenerateSource>()->body.get()
                                : n.kind == Node::Map    ? n.get<ast::MapStage>()->body.get()
                                : n.kind == Node::Filter ? n.get<ast::FilterStage>()->cond.get()
                                                         : nullptr;
    if (function && ast::drawsRand(*function)) randStages_.emplace(n.id, static_cast<int>(randStages_.size()) + 1);
  }
}

void Generator::declareRandStage(const Node& n) {
  if (auto it = randStages_.find(n.id); it != randStages_.end())
    line("flow::rand_stage " + var(n, "rand") + "(" + std::to_string(it->second) + ");");
}

std::string Generator::drawnAt(const Node& n, const std::string& position, const std::string& value) {
  if (!randStages_.count(n.id)) return value;
  const std::string lambda = "[&] { return " + value + "; }";
  return var(n, "rand") + (position.empty() ? ".next(" + lambda + ")" : ".at(" + position + ", " + lambda + ")");
}

const std::vector<std::string>& runtimeHeaders() {
  static const std::vector<std::string> headers = {
      "flow/algo/runs_creator.hpp", "flow/algo/runs_merger.hpp",   "flow/containers/priority_queue.hpp",
      "flow/containers/vector.hpp", "flow/io/typed_file.hpp",      "flow/plan/memory_plan.hpp",
      "flow/stream/merge.hpp",      "flow/stream/transform.hpp",
      "flow/stream/combine.hpp",    "flow/stream/join.hpp",        "flow/stream/hash_join.hpp",
      "flow/stream/reduce.hpp",    "flow/stream/batched_stages.hpp",
      "flow/stream/sources.hpp",    "flow/stream/sequence.hpp",    "flow/ranks/sample_sort.hpp",
      "flow/ranks/spread_reduce.hpp", "flow/ranks/spread_writer.hpp", "flow/program.hpp", "flow/script.hpp"};
  return headers;
}

// The block size of the run (program::block(): --block, the script's `block`, else the
// size for the run's --memory), never the compiler's: containers take it at construction.
std::string Generator::blockBytes() const { return "fl_program.block()"; }

// ------------------------------------------------------------------------- statements

void Generator::hoistAggregates(const Expr& e) { hoistAggregates(ast::aggregatesBefore(e)); }

void Generator::hoistAggregates(const std::vector<const CallExpr*>& calls) {
  // An aggregate runs its pipeline before the statement that uses its value.
  for (const CallExpr* c : calls) {
    const Node* n = plan_.forAggregate(c);
    if (!n || aggregateVars_.count(c)) continue;
    emitOwner(c, atTopLevel());
    aggregateVars_[c] = aggregateVar(*n);
  }
}

bool Generator::hasAggregate(const Expr& e) const { return !ast::aggregatesBefore(e).empty(); }

void Generator::emitStatements(const std::vector<StmtPtr>& body) {
  scopedContainers_.emplace_back();
  for (const StmtPtr& s : body) emitStatement(*s);
  scopedContainers_.pop_back();
}

void Generator::emitStatement(const Stmt& s) {
  bool topLevel = atTopLevel();
  if (options_.lineDirectives && s.loc.valid()) {
    // The statement's own file: the script, or the module a function body comes from.
    const SourceFile* file = s.loc.origin ? sourceOrigin(s.loc.origin).file : nullptr;
    if (!file) file = program_.ast->file;
    if (file) pendingLineDirective_ = "#line " + std::to_string(s.loc.line) + " " + quote(file->path());
  }
  switch (s.kind()) {
  case Stmt::Let:
  case Stmt::Var: {
    auto& l = *s.as<LetStmt>();
    hoistAggregates(*l.init);
    const std::string T = type(l.symbol->type), constness = l.isVar ? "" : "const ";
    if (l.symbol->type->size() <= kLargestStackValue) {
      line(constness + T + " " + name(l.symbol) + " = " + expr(*l.init) + ";");
      return;
    }
    // A large value (an array of millions) lives on the heap, built in place: the stack
    // of a thread holds a few MiB.
    const std::string box = "fl_heap_" + name(l.symbol);
    if (auto* repeat = l.init->as<ArrayRepeatExpr>()) {
      line("const auto " + box + " = std::make_unique<" + T + ">();");
      line(box + "->fill(" + expr(*repeat->value) + ");");
    } else {
      line("const auto " + box + " = std::make_unique<" + T + ">(" + expr(*l.init) + ");");
    }
    line(constness + T + "& " + name(l.symbol) + " = *" + box + ";");
    return;
  }
  case Stmt::Assign: {
    auto& a = *s.as<AssignStmt>();
    if (a.vector) return emitRefill(a);
    hoistAggregates(*a.value);
    std::string target = assignTarget(*a.target), value = expr(*a.value);
    const Type* t = a.target->type;
    std::string T = type(t);
    using ast::BinaryOp;
    if (a.op && needsWrapHelper(t) && wrapHelper(*a.op))
      line(target + " = flow::script::" + wrapHelper(*a.op) + "<" + T + ">(" + target + ", " + value + ");");
    else if ((a.op == BinaryOp::Div || a.op == BinaryOp::Rem) && t->isInteger())
      line(target + " = flow::script::" + (a.op == BinaryOp::Div ? "div" : "mod") + "<" + T + ">(" + target +
           ", static_cast<" + T + ">(" + value + "), " + where(a.loc) + ");");
    else if (a.op == BinaryOp::Shl || a.op == BinaryOp::Shr)
      line(target + " = flow::script::shift_" + (a.op == BinaryOp::Shl ? "left" : "right") + "<" + T + ">(" + target +
           ", " + value + ");");
    else
      line(target + " " + a.spelling() + " " + value + ";");
    return;
  }
  case Stmt::If: {
    const IfStmt* i = s.as<IfStmt>();
    hoistAggregates(*i->cond);
    line("if (" + expr(*i->cond) + ") {");
    {
      Indent in(*this);
      emitStatements(i->then);
    }
    if (!i->elseBranch) {
      line("}");
      return;
    }
    block("} else {", [&] {
      emitStatement(*i->elseBranch);
    });
    return;
  }
  case Stmt::While: {
    auto& w = *s.as<WhileStmt>();
    if (!hasAggregate(*w.cond)) {
      block("while (" + expr(*w.cond) + ") {", [&] {
        loops_.push_back({false, "", true});
        emitStatements(w.body);
        loops_.pop_back();
      });
      return;
    }
    // The condition is tested at the top of every round, aggregates in it included.
    block("while (true) {", [&] {
      loops_.push_back({false, "", true});
      hoistAggregates(*w.cond);
      line("if (!(" + expr(*w.cond) + ")) break;");
      emitStatements(w.body);
      loops_.pop_back();
    });
    return;
  }
  case Stmt::ForIn:
    if (auto& f = *s.as<ForInStmt>(); f.overPieces) {
      emitPiecesLoop(f);
      return;
    }
    [[fallthrough]];
  case Stmt::Write:
  case Stmt::WriteText: emitOwner(&s, topLevel); return;
  case Stmt::Break:
  case Stmt::Continue: {
    const LoopContext& loop = loops_.back();
    bool isBreak = s.kind() == Stmt::Break;
    if (!loop.inLambda) line(isBreak ? "break;" : "continue;");
    else if (isBreak) line(loop.stopFlag + " = true; return;");
    else line("return;");
    return;
  }
  case Stmt::Emit:
    hoistAggregates(*s.as<EmitStmt>()->value);
    line(emitTargets_.back() + "(" + expr(*s.as<EmitStmt>()->value) + ");");
    return;
  case Stmt::Print: {
    auto& p = *s.as<PrintStmt>();
    // Through the program, so a progress bar on the terminal is cleared first.
    // Its values left to right, as the script reads (a call's arguments are not).
    std::vector<const Expr*> values;
    for (const StringPart& part : p.message.parts)
      if (part.expr) {
        hoistAggregates(*part.expr);
        values.push_back(part.expr.get());
      }
    line(leftToRight(values, [&](const std::vector<std::string>& code) {
           std::string args;
           size_t next = 0;
           for (const StringPart& part : p.message.parts)
             args += (args.empty() ? "" : ", ") +
                     (part.expr ? "flow::script::show(" + code[next++] + ")" : quote(part.text));
           return "fl_program.print(" + args + ")";
         }) +
         ";");
    return;
  }
  case Stmt::Evaluate:
    hoistAggregates(*s.as<ExprStmt>()->expr);
    line(expr(*s.as<ExprStmt>()->expr) + ";");
    return;
  case Stmt::Array: emitArray(*s.as<ArrayDecl>()); return;
  case Stmt::Block:
    block("{", [&] {
      emitStatements(s.as<BlockStmt>()->body);
    });
    return;
  default: emitTopLevel(s); return;
  }
}

void Generator::emitPiecesLoop(const ForInStmt& f) {
  // `for w in s.words()`: a C++ range over the pieces of one value, nothing allocated.
  // The value and the separator are held in locals for the loop: a range-for keeps only
  // the range itself alive, not the temporaries it was made from.
  const auto& m = *f.pipeline->source->as<ExprSource>()->expr->as<MethodCallExpr>();
  const ast::StrMethodInfo& info = ast::info(*m.strMethod);
  hoistAggregates(m);
  block("{ // for " + f.var + " in …." + info.name + "(…)", [&] {
    const std::string v = name(f.varSymbol);
    std::string args = v + "_of";
    line("const " + type(m.object->type) + " " + args + " = " + expr(*m.object) + ";");
    for (size_t k = 0; k < m.args.size(); ++k) {
      const std::string a = v + "_arg" + std::to_string(k);
      line("const " + type(m.args[k]->type) + " " + a + " = " + expr(*m.args[k]) + ";");
      args += ", " + a;
    }
    if (info.checked) args += ", " + where(m.loc);
    block("for (const auto& " + v + " : flow::script::" + info.name + "(" + args + ")) {", [&] {
      loops_.push_back({false, "", true});
      emitStatements(f.body);
      loops_.pop_back();
    });
  });
}

void Generator::emitRefill(const AssignStmt& a) {
  // `v = pipeline;`: the new contents are built in a vector of their own (the pipeline
  // may read v) and take v's place once complete, after the pipeline's readers are gone.
  const Node* refill = nullptr;
  for (const Node& n : plan_.nodes)
    if (n.kind == Node::VectorRefill && n.get<AssignStmt>() == &a) refill = &n;
  if (!refill) throw std::logic_error("codegen: a vector refill without its plan node");
  block("{ // " + a.vector->name + " = … (" + describe(a.loc) + ")", [&] {
    compiledApart("flow::containers::vector<" + type(a.vector->type) + ">", kVectorCost);
    line("flow::containers::vector<" + type(a.vector->type) + "> " + var(*refill, "new") + "(" + memoryOf(*refill) + ", " +
         blockBytes() + ");");
    emitOwner(&a, atTopLevel());
    line(name(a.vector) + ".take_elements(" + var(*refill, "new") + ");");
  });
}

void Generator::emitArray(const ArrayDecl& d) {
  hoistAggregates(*d.length);
  if (d.init) hoistAggregates(*d.init);
  const Node* n = plan_.forDeclaration(&d);
  line("// array " + d.name + ": " + d.symbol->type->name() + "[…]" +
       (n && n->counted ? ", " + plan::formatBytes(n->elements * static_cast<double>(n->elementBytes)) + " planned" : ""));
  line("flow::script::heap_array<" + type(d.symbol->type) + "> " + name(d.symbol) + "(" + expr(*d.length) + ", " +
       (d.init ? expr(*d.init) + ", " : std::string()) + quote(d.name) + ", " + where(d.loc) + ");");
}

bool Generator::isTopLevelItem(const Stmt* s) const {
  return std::any_of(program_.ast->items.begin(), program_.ast->items.end(),
                     [&](const StmtPtr& item) { return item.get() == s; });
}

void Generator::emitTopLevel(const Stmt& s) {
  switch (s.kind()) {
  case Stmt::Stream:
    // Aggregates in its arguments (`range(0, count(…))`) run here, once.
    hoistAggregates(ast::aggregatesBefore(*s.as<StreamDecl>()->pipeline));
    line("// stream " + s.as<StreamDecl>()->name + ": runs where it is read");
    return;
  case Stmt::Vector: {
    auto& d = *s.as<VectorDecl>();
    const Node* built = plan_.forDeclaration(&d); // else filled by pushes: two blocks of buffer
    line("");
    line("// vector " + d.name + ": " + d.symbol->type->name());
    compiledApart("flow::containers::vector<" + type(d.symbol->type) + ">", kVectorCost);
    line("flow::containers::vector<" + type(d.symbol->type) + "> " + name(d.symbol) + "(" +
         (built ? memoryOf(*built) : "2 * " + blockBytes()) + ", " + blockBytes() + ");");
    // A vector declared in a block (a loop's body, a function's) has the block cache of its
    // `v[i]` from here to the block's end (a top-level one gets it around each statement
    // that indexes it: run()).
    if (!isTopLevelItem(&d))
      for (const Node& n : plan_.nodes)
        if (n.kind == Node::VectorIndex && n.get<Symbol>() == d.symbol)
          line(name(d.symbol) + ".resize_cache(" + memoryOf(n) + "); // " + n.name);
    if (!scopedContainers_.empty()) scopedContainers_.back().push_back({d.symbol, nullptr, loops_.size()});
    if (d.pipeline) emitOwner(&d, atTopLevel());
    return;
  }
  case Stmt::Pq: {
    auto& d = *s.as<PqDecl>();
    const Node* q = plan_.forDeclaration(&d);
    const bool planned = q && q->memoryBytes; // a queue no phase uses gets 16 blocks
    const uint64_t items = q ? static_cast<uint64_t>(q->elements) : 0;
    line("");
    line("// pq " + d.name + ": " + d.symbol->type->name() + ", smallest first by " + d.order.str() + "; " +
         plan::formatCount(static_cast<double>(items)) + " pushes estimated");
    // Held in an optional so that the statement of its last use can free it (run()).
    const std::string queueType = "flow::containers::priority_queue<" + queueElement(d.symbol->type) + ", " +
                                  orderType(d.order.order) + ">";
    compiledApart(queueType, kQueueCost);
    line("std::optional<" + queueType + "> " + "fl_" + name(d.symbol) + "_storage;");
    line("auto& " + name(d.symbol) + " = " + "fl_" + name(d.symbol) + "_storage.emplace(" + (planned ? memoryOf(*q) : "16 * " + blockBytes()) + ", " +
         (planned ? "static_cast<uint64_t>(fl_nodes[" + std::to_string(q->id) + "].elements)"
                  : std::to_string(items) + "ULL") +
         ", " + blockBytes() + ");");
    if (q && !q->livePhases.empty() && !scopedContainers_.empty())
      scopedContainers_.back().push_back({d.symbol, q, loops_.size()});
    return;
  }
  default: return; // imports, records, orders, params, memory and block are compile-time
  }
}

// ------------------------------------------------------------------------ the program

void Generator::emitParams() {
  // Each param is a flag of the executable. --help shows the default as the script
  // writes it and the comment at the end of its line; a default computed from other
  // params is computed again from the values given on the command line. A param given
  // to flowc with --set has that value as its default (the plan's, for the same params).
  for (const Symbol* s : program_.symbolsOf(Symbol::Param)) {
    auto* d = static_cast<const ParamDecl*>(s->decl);
    const bool set = options_.setParams.count(s->name) > 0;
    if (s->type->kind == sema::Type::Path) { // a file name: --NAME=FILE
      std::string text = set ? plan_.pathValues.at(s)
                             : static_cast<const ParamDecl*>(s->decl)->init->as<StringLitExpr>()->literal.text();
      line("std::string " + name(s) + " = " + quote(text) + ";");
      std::string lineText(program_.ast->file->lineText(d->loc.line));
      std::string description;
      size_t semi = lineText.find(';', d->loc.column - 1);
      size_t comment = semi == std::string::npos ? std::string::npos : lineText.find("//", semi);
      if (comment != std::string::npos) {
        description = lineText.substr(comment + 2);
        description.erase(0, description.find_first_not_of(" \t"));
      }
      if (set)
        description = "set when built (the script's default: \"" +
                      static_cast<const ParamDecl*>(s->decl)->init->as<StringLitExpr>()->literal.text() + "\")" +
                      (description.empty() ? "" : "; " + description);
      line("fl_program.param(" + quote(s->name) + ", " + name(s) + ", \"path\", " + quote(flow::json_string(text)) + ", " +
           quote(description) + ");");
      continue;
    }
    std::string value = s->value ? s->value->str() : "0";
    if (set)
      for (const auto& [param, planned] : plan_.params)
        if (param == s->name) value = planned;
    if (s->type->isInteger()) value += s->type->isSigned() ? "LL" : "ULL";
    if (s->type->isFloat() && value.find_first_of(".e") == std::string::npos && value.find("inf") == std::string::npos)
      value += ".0";
    std::string lineText(program_.ast->file->lineText(d->loc.line));
    std::string defaultText = s->value ? s->value->str() : "";
    size_t eq = lineText.find('=', d->loc.column - 1), semi = lineText.find(';', eq == std::string::npos ? 0 : eq);
    if (eq != std::string::npos && semi != std::string::npos) {
      defaultText = lineText.substr(eq + 1, semi - eq - 1);
      defaultText.erase(0, defaultText.find_first_not_of(" \t"));
      defaultText.erase(defaultText.find_last_not_of(" \t") + 1);
    }

    std::string description;
    size_t comment = semi == std::string::npos ? std::string::npos : lineText.find("//", semi);
    if (comment != std::string::npos) {
      description = lineText.substr(comment + 2);
      description.erase(0, description.find_first_not_of(" \t"));
    }
    if (set) {
      description = "set when built (the script's default: " + defaultText + ")" +
                    (description.empty() ? "" : "; " + description);
      defaultText = value.substr(0, value.find_first_of("UL"));
    }
    line(type(s->type) + " " + name(s) + " = " + value + ";");
    bool literal = set || sema::evaluate(*d->init, [](const Symbol*) { return std::nullopt; }).has_value();
    std::string call = "fl_program.param(" + quote(s->name) + ", " + name(s) + ", " + quote(s->type->name()) + ", " +
                       quote(defaultText) + ", " + quote(description);
    if (literal) line(call + ");");
    else line(call + ", [&] { return " + expr(*d->init) + "; });");
  }
}

void Generator::emitPlanComment() {
  line("// Plan (flowc explain " + (program_.ast->file ? program_.ast->file->path() : std::string("script")) + "):");
  line("//   memory " + plan::formatBytes(static_cast<double>(plan_.memoryBytes)) + ", blocks of " +
       plan::formatBytes(static_cast<double>(plan_.blockBytes)));
  for (const plan::Phase& p : plan_.phases) {
    line("//   phase " + std::to_string(p.id) + ": " + p.label + " (read " + plan::formatBytes(p.readBytes) + ", write " +
         plan::formatBytes(p.writeBytes) + ")");
    for (int id : p.nodes) {
      const Node& n = plan_.nodes[id];
      if (n.phase != p.id) continue;
      line("//     n" + std::to_string(n.id) + " " + n.name + ": " + plan::formatCount(n.elements) + " elements" +
           (n.memoryBytes ? ", memory " + plan::formatBytes(static_cast<double>(n.memoryBytes)) : "") +
           (n.readBytes > 0 ? ", read " + plan::formatBytes(n.readBytes) : "") +
           (n.writeBytes > 0 ? ", write " + plan::formatBytes(n.writeBytes) : ""));
    }
  }
  line("//   total: read " + plan::formatBytes(plan_.total.readBytes) + ", write " +
       plan::formatBytes(plan_.total.writeBytes) + " (materialized: read " +
       plan::formatBytes(plan_.materialized.readBytes) + ", write " + plan::formatBytes(plan_.materialized.writeBytes) +
       ")");
}

namespace {
/// A double as a C++ literal that reads back exactly.
std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string t = buf;
  return t.find_first_of(".e") == std::string::npos ? t + ".0" : t;
}
} // namespace

void Generator::emitMemoryPlan(const plan::Plan& plan, const std::map<int, std::string>& scale, bool calibrated) {
  const std::string nodes = calibrated ? "fl_calibrated_nodes" : "fl_nodes";
  // The planner's split of the budget, made again for this run's params and --memory
  // (the same algorithm, flow/plan/memory_plan.hpp): sorts and queues get the memory
  // the data they will really see calls for. Each row is the planner's own
  // (MemoryPlanner::demands), its counts scaled for this run; fields left out keep
  // memory_node's defaults.
  line("// the memory plan for this run's params and --memory: what each node needs, and how its");
  line("// I/O is priced (flow::plan::memory_node)");
  const std::vector<plan::memory_node> demands = plan::MemoryPlanner::demands(plan);
  std::set<int> joined; // a hash join's inputs: it is priced, and sized, by their counts
  for (const plan::memory_node& d : demands)
    if (d.role == plan::memory_role::hash_join) joined.insert({d.partner, d.probe});
  for (const Node& n : plan.nodes) {
    const plan::memory_node& d = demands[static_cast<size_t>(n.id)];
    if (d.role == plan::memory_role::none && !joined.count(n.id)) continue;
    const std::string& sv = scale.at(n.id);
    std::string live;
    for (int p : d.live_phases) live += (live.empty() ? "" : ", ") + std::to_string(p);
    // A text input's lines: the bytes a line has in the file at start, as explain counts
    // a file present when it runs.
    const bool textInput = n.kind == Node::ReadText && n.scaling.kind == plan::Scaling::InputFile;
    const std::string elementBytes =
        textInput ? "fl_program.input_line_bytes(" + path(n.get<ReadSource>()->path) + ", " +
                        std::to_string(d.element_bytes) + ")"
                  : std::to_string(d.element_bytes);
    std::string row = ".role = flow::plan::memory_role::" + std::string(plan::name(d.role)) +
                      ", .phase = " + std::to_string(d.phase) + (live.empty() ? "" : ", .live_phases = {" + live + "}") +
                      ", .elements = " + number(n.startElements) + " * " + sv + ", .element_bytes = " + elementBytes;
    if (d.keyed) row += ", .keyed = true";
    if (d.partner >= 0) row += ", .partner = " + std::to_string(d.partner);
    if (d.probe >= 0)
      row += ", .probe = " + std::to_string(d.probe) + ", .probe_element_bytes = " + std::to_string(d.probe_element_bytes) +
             ", .build_element_bytes = " + std::to_string(d.build_element_bytes);
    if (d.io != plan::io_rule::none) row += ", .io = flow::plan::io_rule::" + std::string(plan::name(d.io));
    // v[i]'s accesses and writes follow the scales of the loops that make them (those in
    // no loop the node's own).
    auto byLoop = [&](bool writes) {
      std::string sum;
      for (const auto& [loop, counts] : n.accessesByLoop)
        if (const double c = writes ? counts.second : counts.first; c > 0)
          sum += (sum.empty() ? "" : " + ") + number(c) + " * " + (loop < 0 ? sv : scale.at(loop));
      return sum;
    };
    if (d.accesses > 0) row += ", .accesses = " + byLoop(false);
    if (d.writes > 0) row += ", .writes = " + byLoop(true);
    if (d.hashing != plan::reduce_hashing::no)
      row += ", .hashing = flow::plan::reduce_hashing::" + std::string(plan::name(d.hashing));
    if (d.spread) row += ", .spread = true";
    if (d.peak_fraction > 0) row += ", .peak_fraction = " + number(d.peak_fraction); // measured
    if (d.batch_outputs > 1) row += ", .batch_outputs = " + std::to_string(d.batch_outputs);
    line("// n" + std::to_string(n.id) + " " + n.name);
    line(nodes + "[" + std::to_string(n.id) + "] = {" + row + "};");
  }
  // A phase that cannot hold its arrays names them with their sizes for this run.
  std::vector<std::string> arrays;
  for (const Node& n : plan.nodes)
    if (n.memoryRole() == plan::memory_role::reserved && !n.livePhases.empty())
      arrays.push_back("if (fl_short->phase >= " + std::to_string(n.livePhases.front()) + " && fl_short->phase <= " +
                       std::to_string(n.livePhases.back()) + ") fl_arrays.push_back({" + quote(n.name) +
                       ", flow::plan::sat_mul(flow::plan::memory_planner::elements(fl_nodes[" + std::to_string(n.id) +
                       "]), " + std::to_string(n.elementBytes) + ")});");
  if (calibrated) {
    // The run's memory is split by the static plan (above), and its queues and reduces
    // are built as that plan configures them: the calibrated counts are priced with
    // those, as `flowc explain --calibrate` does.
    line("fl_memory.adopt(flow::plan::memory_planner(fl_nodes, fl_program.memory(), fl_program.block()));");
    return;
  }
  if (arrays.empty()) {
    line("if (const auto fl_short = fl_memory.assign())");
    line("  fl_program.memory_too_small(*fl_short, fl_nodes);");
  } else {
    line("if (const auto fl_short = fl_memory.assign()) {");
    line("  std::vector<std::pair<std::string, std::uint64_t>> fl_arrays;");
    for (const std::string& a : arrays) line("  " + a);
    line("  fl_program.memory_too_small(*fl_short, fl_nodes, fl_arrays);");
    line("}");
  }
}

std::string Generator::exactCount(int id) {
  const Node& n = plan_.nodes[id];
  switch (n.traits().count) {
  case plan::Count::exact_at_start: return "true";
  case plan::Count::input_file:
    if (n.get<ReadSource>()->estimate) return "true"; // the script's `~ N` is the count to plan for
    // A file the script also writes is not an input the program checks at start: its
    // size then is not what the read will see.
    if (!plan_.readsInput(*n.get<ReadSource>())) return "false";
    return "fl_program.input_size_known(" + path(n.get<ReadSource>()->path) + ")";
  case plan::Count::each_input:
  case plan::Count::sum_of_inputs: {
    std::string all;
    for (int in : n.inputs) {
      const std::string c = exactCount(in);
      if (c == "false") return "false";
      if (c != "true") all += (all.empty() ? "" : " && ") + c;
    }
    return all.empty() ? "true" : all;
  }
  case plan::Count::store:
  case plan::Count::fraction:
  case plan::Count::pushes:
  case plan::Count::other: return "false";
  }
  return "false";
}

void Generator::emitEstimate(const plan::Plan& plan, bool calibrated) {
  // The plan's estimate for the params the program actually runs with: each source's
  // count relative to the planned one scales everything downstream of it; the budget is
  // split again and every node priced again by the runtime's planner, with the functions
  // `flowc explain` plans and prices with (flow/plan/memory_plan.hpp).
  const std::string nodes = calibrated ? "fl_calibrated_nodes" : "fl_nodes";
  if (calibrated) {
    line("fl_program.calibrated_estimate(" + quote(options_.calibratedBy) + ", [&](flow::estimate& fl_e) {");
    line("  std::vector<flow::plan::memory_node> fl_calibrated_nodes(fl_nodes.size()); // the counts it measured");
  } else {
    line("fl_program.estimate([&](flow::estimate& fl_e) {");
  }
  Indent in(*this);
  line("flow::plan::memory_planner fl_memory(" + nodes + ", fl_program.memory(), fl_program.block());");
  auto phaseLabel = [&](int phase) {
    for (const plan::Phase& p : plan.phases)
      if (p.id == phase) return quote(p.label);
    return quote("");
  };
  // Each node's scale, by the planner's rule (plan::Scaling), in the planner's order.
  std::map<int, std::string> scale;
  // A read's `~ N` (over params) for the params the program runs with.
  auto estimateAtStart = [&](const ast::Estimate& e) { return "static_cast<double>(" + expr(*e.expr) + ")"; };
  for (int id : plan.scalingOrder) {
    const Node& n = plan.nodes[id];
    std::string runtime; // the count when the program runs
    switch (n.scaling.kind) {
    case plan::Scaling::GenerateCount:
      runtime = "static_cast<double>(" + expr(*n.get<GenerateSource>()->count) + ")";
      break;
    case plan::Scaling::RangeBounds:
      runtime = "std::max(0.0, static_cast<double>(" + expr(*n.get<RangeSource>()->end) + ") - static_cast<double>(" +
                expr(*n.get<RangeSource>()->begin) + "))";
      break;
    case plan::Scaling::InputFile: {
      // Standard input, a pipe, or a file the script also writes: no size at start, so
      // the planned count stands; without `~ N` that is "unknown" (0): the sorts it
      // feeds take what their phases leave (memory_planner's rule for uncounted runs).
      // A text file's lines are estimated from its start (program::input_file): with the
      // script's `~ N`, the larger of the two is planned for.
      const ReadSource& r = *n.get<ReadSource>();
      const std::string p = path(r.path);
      const std::string known = "static_cast<double>(fl_program.input_elements(" + p + "))";
      const std::string planned = r.estimate ? estimateAtStart(*r.estimate) : number(n.elements);
      runtime = "(fl_program.input_size_known(" + p + ") ? " +
                (r.text && r.estimate ? "std::max(" + planned + ", " + known + ")" : known) + " : " + planned + ")";
      break;
    }
    case plan::Scaling::ReadEstimate:
      runtime = estimateAtStart(*n.get<ReadSource>()->estimate);
      break;
    case plan::Scaling::ArrayLength:
      runtime = "static_cast<double>(" + expr(*n.get<ArrayDecl>()->length) + ")";
      break;
    case plan::Scaling::Sum: {
      // Each part's planned count at its own scale, over their planned sum.
      double planned = 0;
      for (int b : n.scaling.from) planned += plan.nodes[b].startElements;
      if (planned <= 0) break;
      for (int b : n.scaling.from)
        runtime += (runtime.empty() ? "" : " + ") + number(plan.nodes[b].startElements) + " * " + scale.at(b);
      runtime = "(" + runtime + ") / " + number(planned);
      break;
    }
    case plan::Scaling::Planned:
    case plan::Scaling::From: break;
    }
    std::string sc = "1.0";
    // Relative to the count the program starts from (a read without `~ N`: nominal). A sum
    // of parts none of which is counted takes the largest of their scales, as From does.
    const bool weighted = n.scaling.kind == plan::Scaling::Sum && !runtime.empty();
    if (weighted) sc = "(" + runtime + ")";
    else if (!runtime.empty() && n.startElements > 0) sc = "(" + runtime + " / " + number(n.startElements) + ")";
    for (size_t i = 0; i < n.scaling.from.size() && !weighted; ++i) {
      const std::string& f = scale.at(n.scaling.from[i]);
      sc = i == 0 ? f : "std::max(" + sc + ", " + f + ")";
    }
    const std::string sv = "fl_scale" + std::to_string(n.id);
    // maybe_unused: a node's scale is there for the scales derived from it, and a node
    // without a row in the memory plan uses none (-Wall -Wextra stay quiet on generated code).
    line("[[maybe_unused]] const double " + sv + " = " + sc + ";");
    scale[n.id] = sv;
  }
  emitMemoryPlan(plan, scale, calibrated);
  // Phases in while loops: the rounds planned, for the params this run has.
  for (const plan::Phase& p : plan.phases) {
    if (p.loops.empty()) continue;
    std::string rounds;
    for (const WhileStmt* w : p.loops)
      if (w->rounds) rounds += (rounds.empty() ? "" : " * ") + std::string("static_cast<double>(") + expr(*w->rounds->expr) + ")";
    line("fl_e.rounds(" + std::to_string(p.id) + ", " + phaseLabel(p.id) + ", " + (rounds.empty() ? "1.0" : rounds) +
         (p.roundsAssumed ? ", /*counted_once=*/true" : "") + ");");
  }
  // The nodes --plan lists: every node with a row in the memory plan, a sort's merge
  // after its run formation, queues last (the estimate lists a phase where it first
  // meets it), a queue that lives in no phase (declared in a loop body) not at all.
  std::vector<const Node*> listed;
  for (const Node& n : plan.nodes) {
    const plan::io_rule io = n.traits().io;
    if (n.memoryRole() == plan::memory_role::none || io == plan::io_rule::queue) continue;
    if (io == plan::io_rule::sort_merge || io == plan::io_rule::reduce_merge) continue; // with its run formation
    listed.push_back(&n);
    if (io == plan::io_rule::sort_runs || io == plan::io_rule::reduce_runs) listed.push_back(&plan.nodes[n.partner]);
  }
  for (const Node& n : plan.nodes)
    if (n.traits().io == plan::io_rule::queue && !n.livePhases.empty()) listed.push_back(&n);
  // A phase that neither a while loop nor a listed node's I/O names (a top-level `q.size()`)
  // is in the estimate all the same, so that --stats lists every phase explain does.
  for (const plan::Phase& p : plan.phases)
    if (p.loops.empty() && std::none_of(listed.begin(), listed.end(), [&](const Node* n) { return n->phase == p.id; }))
      line("fl_e.phase(" + std::to_string(p.id) + ", " + phaseLabel(p.id) + ", 0, 0);");
  if (!listed.empty()) {
    line("// Each node's memory and I/O for this run, as `flowc explain` lists them (--plan prints");
    line("// them; a node's I/O adds to its phase's): {node, name, phase of its I/O, phases of its");
    line("// memory, that phase's label}. Every node is priced by flow::plan::memory_planner::cost,");
    line("// the function explain prices it with.");
    line("const flow::estimate::listed_node fl_listed[] = {");
    for (const Node* n : listed) {
      std::string phases;
      for (int p : n->spansPhases() ? n->livePhases : std::vector<int>{n->phase})
        phases += (phases.empty() ? "" : ", ") + std::to_string(p);
      line("    {" + std::to_string(n->id) + ", " + quote(n->name) + ", " + std::to_string(n->phase) + ", {" + phases +
           "}, " + phaseLabel(n->phase) + "},");
    }
    line("};");
    line("for (const flow::estimate::listed_node& fl_n : fl_listed) {");
    line("  const flow::plan::node_cost fl_cost = fl_memory.cost(fl_n.id);");
    line("  fl_e.node({fl_n.id, std::string(fl_n.name), fl_n.phase, fl_n.memory_phases, " + nodes +
         "[fl_n.id].memory, fl_cost.read_bytes, fl_cost.write_bytes,");
    line("             fl_cost.queue ? flow::containers::describe(*fl_cost.queue) : std::string()},");
    line("            fl_n.phase_label);");
    line("}");
    if (std::any_of(listed.begin(), listed.end(), [](const Node* n) { return n->kind == Node::HashJoin; }))
      line("fl_program.warn_hash_join_passes(fl_memory, " + nodes + ", fl_listed);");
  }
  // A sort's runs are all on disk when run formation ends, and an intermediate merge adds
  // its output (sort_cost::disk_peak): a --disk SIZE below that is an error before any
  // work (flow::program::disk_need), when the count is exact and the sort surely runs:
  // its statement is a top-level one (not in an `if`, a loop body or an aggregate call,
  // which may not run).
  for (const Node* np : listed) {
    const Node& n = *np;
    if (calibrated || n.traits().io != plan::io_rule::sort_runs) continue;
    bool topLevel = false;
    if (const auto* owner = std::get_if<const ast::Stmt*>(&n.owner))
      for (const auto& item : program_.ast->items) topLevel = topLevel || item.get() == *owner;
    if (const std::string exact = exactCount(n.inputs[0]); topLevel && exact != "false")
      line("if (" + exact + ") fl_program.disk_need(" + std::to_string(n.phase) + ", " + phaseLabel(n.phase) +
           ", fl_memory.cost(" + std::to_string(n.id) + ").sort.disk_peak); // " + n.name);
  }
  --indent_;
  line("});");
  ++indent_;
}

namespace {
/// The standard headers every generated translation unit includes.
constexpr const char* kStandardHeaders[] = {"array", "cstdint", "iostream", "limits", "memory", "optional", "vector"};
} // namespace

void Generator::compiledApart(const std::string& cls, double cost, std::vector<std::string> uses) {
  for (const auto& known : partClasses_)
    if (known.name == cls) return;
  partClasses_.push_back({cls, std::move(uses), cost});
}

void Generator::emitPartClasses() {
  if (partClasses_.empty()) return;
  line("// Compiled apart: flowc build compiles the runtime classes below apart from this file (the");
  line("// script's types and `template class …;`), keeps each one's object in its cache for every");
  line("// script with the same types, and compiles this file with -DFLOW_PARTS, which makes fl_run");
  line("// use those objects (docs/install.md, \"How flowc build compiles a program\").");
  line("// Without FLOW_PARTS this file is the whole program.");
  line("#if defined(FLOW_PARTS)");
  line("using namespace fl_script;");
  for (const PartClass& c : partClasses_) line("extern template class " + c.name + ";");
  line("#endif");
  line("");
}

GeneratedCpp Generator::run() {
  // The body first: it decides which helper types (text fields) the namespace needs.
  std::ostringstream header;
  std::swap(out_, header);
  indent_ = 1; // in fl_run
  // the planner's block size (its I/O model assumes it) and the --threads of the run
  // (maybe_unused: a program without a sort has it too)
  line("[[maybe_unused]] const flow::algo::sort_options fl_sort_options{.block_bytes = fl_program.block(), .threads = fl_program.threads()};");
  for (const Node& n : plan_.nodes) codeOf(n).programState(n);
  std::vector<const Symbol*> topVectors; // declared so far
  scopedContainers_.emplace_back(); // the top-level queues
  for (const StmtPtr& s : program_.ast->items) {
    // `v[i]` of a top-level vector gets the block cache the planner sized for this
    // statement, and the vector its own budget back after it (a vector declared inside
    // the statement gets its cache where it is declared: emitTopLevel).
    std::vector<const Node*> caches;
    for (const Node& n : plan_.nodes)
      if (n.kind == Node::VectorIndex && n.owner == plan::Owner(static_cast<const Stmt*>(s.get())) &&
          isTopLevelItem(n.get<Symbol>()->decl))
        caches.push_back(&n);
    for (const Node* c : caches)
      line(name(c->get<Symbol>()) + ".resize_cache(" + memoryOf(*c) + "); // " + c->name);
    emitStatement(*s);
    for (const Node* c : caches) line(name(c->get<Symbol>()) + ".restore_cache();");
    // Top-level vectors give their cached blocks back after each statement: the plan
    // counts a vector's buffers only in the phases that use it.
    if (s->kind() == Stmt::Vector) topVectors.push_back(s->as<VectorDecl>()->symbol);
    for (const Symbol* v : topVectors) line(name(v) + ".release_cache();");
    // A top-level queue gives its memory back as its last phase ends (freeAfterPhase),
    // or, where that phase is in a loop, after the statement of its last use: later
    // phases are planned without it.
    std::vector<ScopedContainer>& topQueues = scopedContainers_.front();
    for (auto q = topQueues.begin(); q != topQueues.end();) {
      if (q->queue && q->queue->lastUse == s.get()) {
        line("fl_" + name(q->symbol) + "_storage.reset(); // " + q->queue->name + ": last used above");
        q = topQueues.erase(q);
      } else {
        ++q;
      }
    }
  }
  std::string body = out_.str();
  std::swap(out_, header);
  out_.str("");
  indent_ = 0;

  std::string script = program_.ast->file ? program_.ast->file->path() : "script";
  line("// Generated by flowc " FLOW_VERSION " from " + script + ". Edit the script, not this file.");
  line("//");
  emitPlanComment();
  // Every program includes all but the headers of the node kinds it lacks.
  std::set<std::string> used(runtimeHeaders().begin(), runtimeHeaders().end());
  for (size_t k = 0; k < plan::kNodeKinds; ++k)
    for (const std::string& h : codegen_.headers(static_cast<Node::Kind>(k))) used.erase(h);
  for (const Node& n : plan_.nodes)
    for (const std::string& h : codegen_.headers(n.kind)) used.insert(h);
  for (const std::string& h : runtimeHeaders())
    if (used.count(h)) line("#include \"" + h + "\"");
  // Open MPI's mpi.h, which only an MPI build has: after the precompiled runtime.
  if (options_.mpi) line("#include \"flow/ranks/mpi.hpp\"");
  for (const auto& h : program_.headers) line("#include " + quote(h->path));
  line("");
  for (const char* h : kStandardHeaders) line(std::string("#include <") + h + ">");
  line("");
  // The script's hash tells which version of it a program was built from (--version).
  const std::string hash = hex64(fnv1a(program_.ast->file ? program_.ast->file->text() : std::string_view()));
  line("// Marks the executable as flowc's (flowc build -o replaces only a file that holds it)");
  line("// and is what --version prints.");
  line("[[gnu::used]] static const char fl_built_by[] = " +
       quote(std::string(kBuiltByMarker) + FLOW_VERSION " from " + script + ", script hash " + hash) + ";");
  line("");
  const size_t typesStart = out_.tellp();
  line("namespace fl_script {");
  line("");
  emitStrType();
  emitRecords();
  emitOrders();
  emitTextFields();
  emitCsvFields();
  line("} // namespace fl_script");
  line("");
  const std::string types = out_.str().substr(typesStart);
  // Classes compiled apart may not meet a C++ header's non-inline functions twice.
  if (!program_.headers.empty()) partClasses_.clear();
  emitPartClasses();
  if (!counted_.empty()) {
    // One counter per node: what it hands on (a queue: pushes and peak size), for
    // --stats=json and flowc explain --calibrate. At a fixed address, so that an increment
    // is one instruction; inline, so that main() and fl_run compiled apart share it.
    line("inline flow::node_count fl_counts[] = {");
    for (const Node& n : plan_.nodes)
      line("    {.id = " + std::to_string(n.id) + ", .name = " + quote(n.name) +
           ", .counted = " + (counted_.count(n.id) ? "true" : "false") + (n.kind == Node::Queue ? ", .queue = true" : "") +
           "},");
    line("};");
    line("");
  }
  // The script's statements get what main() decided before they run: the program (its
  // budget, block size, threads), the plan's memory for each node and the params' values.
  std::string runParams = "flow::program& fl_program, std::vector<flow::plan::memory_node>& fl_nodes";
  std::string runArguments = "fl_program, fl_nodes";
  for (const Symbol* s : program_.symbolsOf(Symbol::Param)) {
    runParams += ", [[maybe_unused]] const " +
                 (s->type->kind == sema::Type::Path ? std::string("std::string&") : type(s->type)) + " " + name(s);
    runArguments += ", " + name(s);
  }
  line("// The script's statements, which main() (below) runs once it has read the command line");
  line("// and checked the plan. With a job free, flowc build compiles this function and main()");
  line("// apart, at once (-DFLOW_ONLY_RUN, -DFLOW_ONLY_MAIN); without them the file is whole.");
  line("#if defined(FLOW_ONLY_MAIN)");
  line("void fl_run(" + runParams + ");");
  line("#else");
  block("void fl_run(" + runParams + ") {", [&] {
    line("using namespace fl_script;");
    out_ << body;
  });
  line("#endif");
  line("");
  line("#if !defined(FLOW_ONLY_RUN)");
  block("int main(int argc, char** argv) {", [&] {
    line("using namespace fl_script;");
    if (options_.mpi) line("flow::ranks::mpi_world fl_ranks(argc, argv); // the ranks mpirun started (one without it)");
    // --help says how long a str may be: a longer line or value stops the program.
    const std::string strNote = plan_.strCapacity ? ", " + quote("its str values hold at most " +
                                                                 std::to_string(plan_.strCapacity) +
                                                                 " bytes (flowc --max-str BYTES when built)")
                                                  : "";
    line("flow::program fl_program(" + quote(options_.programName) + strNote + ");");
    line("fl_program.origin(fl_built_by);");
    emitParams();
    line("fl_program.memory_default(" + std::to_string(plan_.memoryBytes) + "ULL);");
    // The script's `block` (or flowc's --block); without one the program sizes blocks
    // for the budget it runs with, as the planner does (flow::block_size).
    if (!plan_.blockDefaulted) line("fl_program.block_default(" + std::to_string(plan_.blockBytes) + "ULL);");
    // Files the script reads are checked before any work, unless the script writes them
    // itself first: the planner knows the literals; a path param's file is compared with
    // the files written when the program starts (output_file).
    for (const Node& n : plan_.nodes)
      if (n.traits().io == plan::io_rule::reads_file && plan_.readsInput(*n.get<ReadSource>())) {
        const ast::PathRef& p = n.get<ReadSource>()->path;
        // A text file is any number of bytes (its lines are checked as they are read); its
        // lines are planned at the bytes a line takes in the plan (n.elementBytes).
        const bool text = n.kind == Node::ReadText;
        line("fl_program.input_file(" + (p.isParam() ? "[&] { return " + name(p.symbol) + "; }" : quote(p.literal.text())) +
             ", " + std::to_string(n.elementBytes) + ", " +
             quote(text ? "text" : n.get<ReadSource>()->elementType->name()) + ");");
      }
    for (const Node& n : plan_.nodes)
      if (n.traits().io == plan::io_rule::writes_file) {
        const ast::PathRef& p = n.get<WriteStmt>()->path;
        // Every output is checked at start (its directory exists and is writable).
        if (p.isParam()) line("fl_program.output_file([&] { return " + name(p.symbol) + "; });");
        else if (p.literal.text() != "-") line("fl_program.output_file(" + quote(p.literal.text()) + ");");
      }
    line("std::vector<flow::plan::memory_node> fl_nodes(" + std::to_string(plan_.nodes.size()) +
         "); // what each node of the plan needs and gets");
    emitEstimate(plan_, false);
    if (options_.calibrated) emitEstimate(*options_.calibrated, true);
    if (!counted_.empty()) line("fl_program.count_nodes(fl_counts);");
    line("return fl_program.run(argc, argv, [&] { fl_run(" + runArguments + "); });");
  });
  line("#endif");
  GeneratedCpp result;
  // A class's translation unit: every runtime header (whichever nodes the script has, so
  // that its text, and the cache's key, change only with the types) and the types.
  std::string& prelude = result.partPrelude;
  prelude = "// Compiled by flowc apart from the program's main(): runtime classes of the script's types.\n";
  for (const std::string& h : runtimeHeaders()) prelude += "#include \"" + h + "\"\n";
  prelude += "\n";
  for (const char* h : kStandardHeaders) prelude += std::string("#include <") + h + ">\n";
  prelude += "\n";
  result.partTypes = typeBlocks(types);
  result.partClasses = partClasses_;
  for (PartClass& c : result.partClasses) // only the classes compiled apart too are extern
    std::erase_if(c.uses, [&](const std::string& u) {
      return std::none_of(partClasses_.begin(), partClasses_.end(), [&](const PartClass& o) { return o.name == u; });
    });
  std::string code = out_.str();
  // Of -O2 with the precompiled runtime (gcc 12): main() 0.8 s for mis.flow; main() and
  // fl_run in one unit 1.8 s for mis.flow's 280 lines, 2.1 s for bfs.flow's 1000.
  result.mainCost = 0.8;
  result.runCost = 0.8 + 0.001 * static_cast<double>(std::count(code.begin(), code.end(), '\n')) + classesInRunCost_;
  result.runApart = program_.headers.empty();
  result.code = format(code);
  return result;
}

namespace {
std::vector<std::string> identifiers(std::string_view text) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      ids.emplace_back(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return ids;
}
} // namespace

std::vector<GeneratedCpp::TypeBlock> Generator::typeBlocks(const std::string& types) {
  // Each definition starts with a comment at the line's start ("// record Edge: …",
  // "// order by_src …", "// str: …"); the lines inside one are indented. A block
  // defines the names after `struct` and `using` at its lines' start.
  std::vector<GeneratedCpp::TypeBlock> blocks;
  std::istringstream in(types);
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with("namespace fl_script") || l.starts_with("} // namespace fl_script")) continue;
    if (l.starts_with("//") || blocks.empty()) blocks.emplace_back();
    blocks.back().text += l + "\n";
    for (const char* word : {"struct ", "using "})
      if (l.starts_with(word)) {
        const std::vector<std::string> ids = identifiers(std::string_view(l).substr(std::string_view(word).size()));
        if (!ids.empty()) blocks.back().defines.push_back(ids.front());
      }
  }
  // One blank line after each, wherever it was in the section (a cache key).
  for (GeneratedCpp::TypeBlock& b : blocks) {
    while (b.text.ends_with("\n\n")) b.text.pop_back();
    b.text += "\n";
  }
  return blocks;
}

std::vector<size_t> GeneratedCpp::typeBlocksOf(const std::vector<const PartClass*>& classes) const {
  // The blocks that define a name the classes mention, then those their text mentions.
  std::set<std::string> wanted;
  for (const PartClass* c : classes) {
    for (const std::string& id : identifiers(c->name)) wanted.insert(id);
    for (const std::string& u : c->uses)
      for (const std::string& id : identifiers(u)) wanted.insert(id);
  }
  std::vector<bool> picked(partTypes.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t b = 0; b < partTypes.size(); ++b) {
      if (picked[b]) continue;
      const auto& d = partTypes[b].defines;
      if (std::none_of(d.begin(), d.end(), [&](const std::string& n) { return wanted.count(n); })) continue;
      picked[b] = grew = true;
      for (const std::string& id : identifiers(partTypes[b].text)) wanted.insert(id);
    }
  }
  std::vector<size_t> blocks;
  for (size_t b = 0; b < partTypes.size(); ++b)
    if (picked[b]) blocks.push_back(b);
  return blocks;
}

bool GeneratedCpp::sameInEveryScript(size_t b) const {
  for (const std::string& n : partTypes[b].defines)
    if (!n.starts_with("fl_asc_") && !n.starts_with("fl_desc_")) return false;
  const std::set<std::string> mentioned = [&] {
    const auto ids = identifiers(partTypes[b].text);
    return std::set<std::string>(ids.begin(), ids.end());
  }();
  for (size_t other = 0; other < partTypes.size(); ++other)
    if (other != b)
      for (const std::string& n : partTypes[other].defines)
        if (mentioned.count(n)) return false;
  return true;
}

std::string GeneratedCpp::partSource(const std::vector<const PartClass*>& classes) const {
  std::vector<std::string> names;
  for (const PartClass* c : classes) names.push_back(c->name);
  std::string source = partPrelude + "namespace fl_script {\n\n";
  for (size_t b : typeBlocksOf(classes)) source += partTypes[b].text;
  source += "} // namespace fl_script\n\nusing namespace fl_script;\n";
  for (const PartClass* c : classes) source += c->instantiation(names);
  return source;
}

std::string Generator::format(const std::string& code) const {
  if (!options_.format) return code;
  // Code nested deeper than any hand-written code stays as generated (already indented):
  // clang-format's time grows with the square of the nesting (a pipeline of 5,000 maps,
  // one block each, took 7 s of a 7.3 s emit).
  if (deepestIndent_ > kFormatNestingLimit) return code;
  // Formatted by clang-format's library so it reads like hand-written code. The lines
  // are already broken where they should be; with no column limit clang-format does not
  // search for line breaks, a search whose time grows exponentially with nested lambdas
  // (a script with nested for stages took seconds).
  clang::format::FormatStyle style = clang::format::getLLVMStyle();
  style.ColumnLimit = 0;
  style.AllowShortFunctionsOnASingleLine = clang::format::FormatStyle::SFS_Inline;
  clang::tooling::Range all(0, static_cast<unsigned>(code.size()));
  clang::tooling::Replacements fixes = clang::format::reformat(style, code, {all}, "generated.cpp");
  auto formatted = clang::tooling::applyAllReplacements(code, fixes);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

GeneratedCpp generateCpp(const sema::CheckedProgram& program, const plan::Plan& plan, const CodegenOptions& options) {
  return Generator(program, plan, options).run();
}

} // namespace flow::codegen

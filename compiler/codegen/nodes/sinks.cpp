// Sinks: writes of binary and text files, a vector built from a pipeline or refilled
// (`v = pipeline;`), a stream written out for the statements that read it again, the
// aggregates count, sum, min and max, and a `for x in pipeline` loop's body.
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

/// Files the script writes: completed (flushed, then renamed into place) as their
/// segment ends.
struct WriterCodegen : NodeCodegen {
  void element(const Node& n, const std::string& in, const Segment&) override {
    g->line(g->var(n, "out") + ".push(" + in + ");");
  }
  void finish(const Node& n) override { g->line(g->var(n, "out") + ".finish();"); }
};

struct WriteFileCodegen : WriterCodegen {
  static constexpr Node::Kind kind = Node::WriteFile;
  void declare(const Node& n) override {
    auto& w = *n.get<WriteStmt>();
    const std::string T = g->type(w.pipeline->elementType);
    const std::string memory = "flow::io::typed_file_memory<" + T + ">(" + g->memoryOf(n) + ")";
    if (n.spread) // the ranks' parts, gathered in rank order
      g->line("flow::ranks::spread_writer<" + T + "> " + g->var(n, "out") + "(" + g->path(w.path) + ", " + memory +
              ", " + g->blockBytes() + ");");
    else
      g->line("flow::io::file_writer<" + T + "> " + g->var(n, "out") + "(" + g->path(w.path) + ", " + memory + ");");
  }
};

struct WriteTextCodegen : WriterCodegen {
  static constexpr Node::Kind kind = Node::WriteText;
  void declare(const Node& n) override {
    auto& w = *n.get<WriteStmt>();
    if (w.csv) {
      g->line("flow::script::csv_writer<" + g->type(w.pipeline->elementType) + ", " + g->csvFields(w.pipeline->elementType) +
              "> " + g->var(n, "out") + "(" + g->path(w.path) + ", " + g->csvOptions(w.csvOptions) + ");");
      return;
    }
    if (w.lines) {
      g->line("flow::script::line_writer<" + g->type(w.pipeline->elementType) + "> " + g->var(n, "out") + "(" +
              g->path(w.path) + ");");
      return;
    }
    g->line("flow::script::text_writer<" + g->type(w.pipeline->elementType) + ", " +
            g->textFields(w.pipeline->elementType) + "> " + g->var(n, "out") + "(" + g->path(w.path) + ");");
  }
};

/// `vector v = pipeline;` (the vector is declared by its statement, emitTopLevel).
struct VectorBuildCodegen : KindCodegen<Node::VectorBuild> {
  void element(const Node& n, const std::string& in, const Segment&) override {
    g->line(g->name(n.get<VectorDecl>()->symbol) + ".push_back(" + in + ");");
  }
  void finish(const Node& n) override {
    // Built: its cached blocks go back (the plan gives them to this phase only; a vector
    // built in a loop body would hold them through the round's later phases).
    g->line(g->name(n.get<VectorDecl>()->symbol) + ".release_cache(); // written, its buffers go back");
  }
};

/// Elements written to a vector of the program's own, g->var(n, vector): pushed, and the
/// last block flushed as the segment ends, so that its writes count in the phase.
struct VectorWriterCodegen : NodeCodegen {
  explicit VectorWriterCodegen(const char* vector) : vector(vector) {}
  void element(const Node& n, const std::string& in, const Segment&) override {
    g->line(g->var(n, vector) + ".push_back(" + in + ");");
  }
  void finish(const Node& n) override { g->line(g->var(n, vector) + ".flush(); // written within the phase"); }
  const char* vector;
};

/// `v = pipeline;`: the new contents go to a vector of their own (emitRefill), which
/// takes v's place once the pipeline, which may read v, is done.
struct VectorRefillCodegen : VectorWriterCodegen {
  static constexpr Node::Kind kind = Node::VectorRefill;
  VectorRefillCodegen() : VectorWriterCodegen("new") {}
};

/// A stream read by later statements: written to a vector declared at the start of the
/// program, anew each time its statement runs.
struct MaterializeCodegen : VectorWriterCodegen {
  static constexpr Node::Kind kind = Node::Materialize;
  MaterializeCodegen() : VectorWriterCodegen("mat") {}
  void programState(const Node& n) override {
    const Symbol& stream = *n.get<Symbol>();
    const std::string vector = "flow::containers::vector<" + g->type(stream.type) + ">";
    g->compiledApart(vector, kVectorCost);
    g->line(vector + " " + g->var(n, "mat") + "(" + g->memoryOf(n) + ", " + g->blockBytes() + "); // stream " + stream.name +
            ", written once, read back later");
  }
  void beforeStatement(const Node& n) override { g->line(g->var(n, "mat") + ".clear();"); }
};

/// count, sum, min, max of a stream: the result lives beyond the statement's block, for
/// the expression that called it.
struct AggregateCodegen : KindCodegen<Node::Aggregate> {
  void beforeStatement(const Node& n) override {
    const CallExpr& call = *n.get<CallExpr>();
    const std::string T = g->type(call.type), result = g->aggregateVar(n);
    switch (*call.builtin) {
    case Builtin::Count: g->line("uint64_t " + result + " = 0;"); break;
    case Builtin::Sum: g->line(T + " " + result + " = 0;"); break;
    default:
      g->line(T + " " + result + "{};");
      g->line("bool " + g->var(n, "any") + " = false;");
    }
  }
  void element(const Node& n, const std::string& in, const Segment&) override {
    const CallExpr& call = *n.get<CallExpr>();
    const std::string result = g->aggregateVar(n);
    switch (*call.builtin) {
    case Builtin::Count: g->line("++" + result + ";"); break;
    case Builtin::Sum:
      if (call.type->isInteger()) // wraps around, like all integer arithmetic
        g->line(result + " = flow::script::add<" + g->type(call.type) + ">(" + result + ", " + in + ");");
      else
        g->line(result + " += " + in + ";");
      break;
    default: {
      const bool min = *call.builtin == Builtin::Min;
      const std::string any = g->var(n, "any");
      g->line("if (!" + any + " || " +
              (min ? Generator::keyLess(call.type, in, result) : Generator::keyLess(call.type, result, in)) + ") {");
      g->line("  " + result + " = " + in + ";");
      g->line("  " + any + " = true;");
      g->line("}");
    }
    }
  }
  void finish(const Node& n) override {
    const Builtin fn = *n.get<CallExpr>()->builtin;
    if (n.spread) // the ranks' counts or sums added
      g->line(g->aggregateVar(n) + " = flow::ranks::sum(" + g->aggregateVar(n) + ");");
    if (fn == Builtin::Min || fn == Builtin::Max)
      g->line("if (!" + g->var(n, "any") + ") throw flow::script::script_error(std::string(" + g->where(n.loc) +
              ") + \": " + ast::info(fn).name + " of an empty stream\");");
  }
};

/// `for x in pipeline { … }`: the body runs per element. In a lambda (its pipeline has a
/// for stage), `break` sets the flag its source loop tests and `continue` returns.
struct LoopCodegen : KindCodegen<Node::Loop> {
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    auto& f = *n.get<ForInStmt>();
    g->block("{", [&] {
      g->line("const auto& " + g->name(f.varSymbol) + " = " + in + ";");
      const bool inLambda = g->downstreamOfLambda(n, segment.nodes);
      g->loops_.push_back({inLambda, inLambda ? g->var(n, "stop") : ""});
      g->emitStatements(f.body);
      g->loops_.pop_back();
    });
  }
};

} // namespace

void addSinkCodegen(NodeCodegenTable& table) {
  table.add<WriteFileCodegen>({"flow/ranks/spread_writer.hpp"});
  table.add<WriteTextCodegen, VectorBuildCodegen, VectorRefillCodegen, MaterializeCodegen, AggregateCodegen, LoopCodegen>();
}

} // namespace flow::codegen

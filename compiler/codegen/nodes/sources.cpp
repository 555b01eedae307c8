// Sources: generate and range (loops of their own, or pull nodes when read side by
// side), reads of binary and text files, scans of vectors, and re-reads of a stream
// written out for later readers.
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct GenerateCodegen : KindCodegen<Node::Generate> {
  bool declarePulled(const Node& n) override {
    auto& gen = *n.get<GenerateSource>();
    const std::string i = g->name(gen.indexSymbol), T = g->type(gen.elementType);
    if (n.spread) { // this rank's share of the indexes, from its first
      const std::string share = g->var(n, "share");
      g->line("const auto " + share + " = flow::ranks::share<uint64_t>(0, " + g->expr(*gen.count) + ");");
      g->declareRandStage(n);
      g->line("auto " + g->var(n, "in") + " = flow::stream::generate(" + share + ".second - " + share +
              ".first, [&](uint64_t fl_k) -> " + T + " { const uint64_t " + i + " = " + share +
              ".first + fl_k; return " + g->drawnAt(n, i, g->expr(*gen.body)) + "; });");
      return true;
    }
    g->declareRandStage(n);
    g->line("auto " + g->var(n, "in") + " = flow::stream::generate(" + g->expr(*gen.count) + ", [&](uint64_t " + i +
            ") -> " + T + " { return " + g->drawnAt(n, i, g->expr(*gen.body)) + "; });");
    return true;
  }
  std::string count(const Node& n) override { return g->pulled_.count(n.id) ? g->var(n, "in") + ".remaining()" : ""; }
  void loop(const Node& n, const Segment& segment) override {
    auto& gen = *n.get<GenerateSource>();
    const std::string i = g->name(gen.indexSymbol), v = g->var(n, "v");
    std::string first = "0", end = g->var(n, "n"); // the indexes this rank takes: [first, end)
    if (n.spread) { // its share of them
      first = g->var(n, "first");
      end = g->var(n, "end");
      g->line("const auto [" + first + ", " + end + "] = flow::ranks::share<uint64_t>(0, " + g->expr(*gen.count) + ");");
      if (segment.phase) g->line("fl_program.expect(" + end + " - " + first + ");");
    } else {
      g->line("const uint64_t " + end + " = " + g->expr(*gen.count) + ";");
      if (segment.phase) g->line("fl_program.expect(" + end + ");");
    }
    g->declareRandStage(n);
    g->block("for (uint64_t " + i + " = " + first + "; " + i + " < " + end + "; ++" + i + ") {", [&] {
      g->stopChecks(segment.stops);
      g->line("const " + g->type(gen.elementType) + " " + v + " = " + g->drawnAt(n, i, g->expr(*gen.body)) + ";");
      g->consume(n, v, segment);
    });
  }
};

struct RangeCodegen : KindCodegen<Node::Range> {
  bool declarePulled(const Node& n) override {
    auto& r = *n.get<RangeSource>();
    const std::string T = g->type(r.elementType);
    if (n.spread) { // this rank's share of the indexes
      const std::string share = g->var(n, "share");
      g->line("const auto " + share + " = flow::ranks::share<" + T + ">(" + g->expr(*r.begin) + ", " + g->expr(*r.end) +
              ");");
      g->line("auto " + g->var(n, "in") + " = flow::stream::range<" + T + ">(" + share + ".first, " + share + ".second);");
      return true;
    }
    g->line("auto " + g->var(n, "in") + " = flow::stream::range<" + T + ">(" + g->expr(*r.begin) + ", " +
            g->expr(*r.end) + ");");
    return true;
  }
  void loop(const Node& n, const Segment& segment) override {
    auto& r = *n.get<RangeSource>();
    const std::string T = g->type(r.elementType), v = g->var(n, "v"), begin = g->var(n, "begin"), end = g->var(n, "end");
    if (n.spread) { // this rank's share of the indexes
      g->line("const auto [" + begin + ", " + end + "] = flow::ranks::share<" + T + ">(" + g->expr(*r.begin) + ", " +
              g->expr(*r.end) + ");");
    } else {
      g->line("const " + T + " " + begin + " = " + g->expr(*r.begin) + ";");
      g->line("const " + T + " " + end + " = " + g->expr(*r.end) + ";");
    }
    if (segment.phase)
      g->line("fl_program.expect(" + begin + " < " + end + " ? static_cast<uint64_t>(" + end +
              ") - static_cast<uint64_t>(" + begin + ") : 0);");
    g->block("for (" + T + " " + v + " = " + begin + "; " + v + " < " + end + "; ++" + v + ") {", [&] {
      g->stopChecks(segment.stops);
      g->consume(n, v, segment);
    });
  }
};

/// The readers of files, vectors and stored streams: the plan gives their buffers to the
/// phases after their own, while the reader object lives to the end of the statement.
struct ReaderCodegen : NodeCodegen {
  void finish(const Node& n) override {
    g->line(g->var(n, "in") + ".close(); // its buffers go back as its phase ends");
  }
};

struct ReadFileCodegen : ReaderCodegen {
  static constexpr Node::Kind kind = Node::ReadFile;
  void declare(const Node& n) override {
    auto& r = *n.get<ReadSource>();
    const std::string T = g->type(r.elementType);
    // `where` names the script line when standard input ends inside an element.
    // Its buffers are the plan's (flow::io::typed_file_memory: at least one chunk).
    // Spread over the ranks: each reads its share of the elements.
    g->line("flow::io::file_reader<" + T + "> " + g->var(n, "in") + "(" + g->path(r.path) +
            ", flow::io::typed_file_memory<" + T + ">(" + g->memoryOf(n) + "), true, " + g->where(r.loc) +
            (n.spread ? ", /*shared=*/true" : "") + ");");
  }
  std::string count(const Node& n) override {
    return g->var(n, "in") + ".size()"; // 0 for standard input or a pipe: unknown
  }
};

struct ReadTextCodegen : KindCodegen<Node::ReadText> {
  void declare(const Node& n) override {
    auto& r = *n.get<ReadSource>();
    const std::string shared = n.spread ? ", /*shared=*/true" : ""; // this rank's lines (or records)
    if (r.csv) {
      g->line("flow::script::csv_reader<" + g->type(r.elementType) + ", " + g->csvFields(r.elementType) + "> " +
              g->var(n, "in") + "(" + g->path(r.path) + ", " + g->csvOptions(r.csvOptions) + shared + ");");
      return;
    }
    if (r.lines) {
      g->line("flow::script::line_reader<" + g->type(r.elementType) + "> " + g->var(n, "in") + "(" + g->path(r.path) +
              shared + ");");
      return;
    }
    g->line("flow::script::text_reader<" + g->type(r.elementType) + ", " + g->textFields(r.elementType) + "> " +
            g->var(n, "in") + "(" + g->path(r.path) + shared + ");");
  }
};

struct ScanVectorCodegen : ReaderCodegen {
  static constexpr Node::Kind kind = Node::ScanVector;
  void declare(const Node& n) override {
    // The vector's symbol is the scan's source (scan(v) or a bare vector name).
    g->line("auto " + g->var(n, "in") + " = " + g->name(n.get<Symbol>()) + ".scan();");
  }
  std::string count(const Node& n) override { return g->name(n.get<Symbol>()) + ".size()"; }
};

struct RereadCodegen : ReaderCodegen {
  static constexpr Node::Kind kind = Node::Reread;
  void declare(const Node& n) override {
    g->line("auto " + g->var(n, "in") + " = " + g->var(g->plan_.nodes[n.inputs[0]], "mat") + ".scan();");
  }
  std::string count(const Node& n) override { return g->var(g->plan_.nodes[n.inputs[0]], "mat") + ".size()"; }
};

struct QueueBelowCodegen : KindCodegen<Node::QueueBelow> {
  void declare(const Node& n) override {
    // q.pop_below(limit): the queue's items before the limit, in bulks of its buffer.
    const auto& m = *n.get<MethodCallExpr>();
    g->line("auto " + g->var(n, "in") + " = flow::stream::queue_below(" + g->name(m.container) + ", " +
            g->expr(*m.args[0]) + ", " + g->memoryOf(n) + ", " + g->where(m.loc) + ");");
  }
  void finish(const Node& n) override {
    g->line(g->var(n, "in") + ".close(); // items before the limit not taken stay in the queue");
  }
};

} // namespace

void addSourceCodegen(NodeCodegenTable& table) {
  table.add<GenerateCodegen, RangeCodegen, QueueBelowCodegen>({"flow/stream/sources.hpp"});
  table.add<ReadFileCodegen, ReadTextCodegen, ScanVectorCodegen, RereadCodegen>();
}

} // namespace flow::codegen

// Stages that look at an element's position (flow/stream/sequence.hpp): window N (the
// last N elements as an array), sample F (a Bernoulli sample decided by --seed, the
// stage's node number and the position), enumerate (each element with its position).
#include "codegen/generator.hpp"

namespace flow::codegen {

namespace {

struct WindowCodegen : KindCodegen<Node::Window> {
  bool declarePulled(const Node& n) override {
    return pullNode(n, "window<" + length(n) + ">");
  }
  void declare(const Node& n) override {
    const sema::Type* array = n.get<NamedStage>()->elementType;
    g->line("flow::stream::last_n<" + g->type(array->element) + ", " + length(n) + "> " + g->var(n, "window") + ";");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    const std::string v = g->var(n, "v");
    g->block("if (" + g->var(n, "window") + ".push(" + in + ")) { // from the " + length(n) + "th element on", [&] {
      g->line("const " + g->type(n.get<NamedStage>()->elementType) + " " + v + " = " + g->var(n, "window") + ".last();");
      g->consume(n, v, segment);
    });
  }

private:
  static std::string length(const Node& n) { return std::to_string(n.get<NamedStage>()->constantArgument); }
};

struct SampleCodegen : KindCodegen<Node::Sample> {
  bool declarePulled(const Node& n) override {
    return pullNode(n, "sample", rule(n));
  }
  void declare(const Node& n) override { g->line("flow::stream::bernoulli_sample " + g->var(n, "sample") + " = " + rule(n) + ";"); }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    passIf(n, g->var(n, "sample") + ".admit()", in, segment);
  }

private:
  /// The sampling rule: the fraction, checked when the stage starts (it may come from
  /// params), the run's --seed and the node's number, which tells two samples apart.
  std::string rule(const Node& n) {
    const std::string fraction = g->var(n, "fraction");
    g->line("const double " + fraction + " = " + g->expr(*n.get<NamedStage>()->argument) + ";");
    g->line("if (!(" + fraction + " >= 0 && " + fraction + " <= 1))");
    g->line("  throw flow::script::script_error(std::string(" + g->where(n.loc) +
            ") + \": sample's fraction must be between 0 and 1, not \" + flow::script::show(" + fraction + "));");
    return "flow::stream::bernoulli_sample(" + fraction + ", fl_program.seed(), " + std::to_string(n.id) + ")";
  }
};

struct EnumerateCodegen : KindCodegen<Node::Enumerate> {
  bool declarePulled(const Node& n) override {
    declareMake(n);
    return pullNode(n, "enumerate", g->var(n, "make"));
  }
  void declare(const Node& n) override {
    declareMake(n);
    g->line("uint64_t " + g->var(n, "index") + " = 0;");
  }
  void element(const Node& n, const std::string& in, const Segment& segment) override {
    const std::string v = g->var(n, "v");
    g->line("const " + g->type(n.get<NamedStage>()->elementType) + " " + v + " = " + g->var(n, "make") + "(" +
            g->var(n, "index") + "++, " + in + ");");
    g->consume(n, v, segment);
  }

private:
  /// `[](uint64_t i, const T& x) -> Indexed<T>`: the record of a position and an element.
  void declareMake(const Node& n) {
    const sema::Type* record = n.get<NamedStage>()->elementType;
    const std::string R = g->type(record);
    g->line("auto " + g->var(n, "make") + " = [](uint64_t i, const " + g->type(record->record->field("value")->type) +
            "& x) -> " + R + " {");
    g->line("  " + R + " r{};");
    g->line("  r." + Generator::fieldName(record, "index") + " = i;");
    g->line("  r." + Generator::fieldName(record, "value") + " = x;");
    g->line("  return r;");
    g->line("};");
  }
};

} // namespace

void addSequenceCodegen(NodeCodegenTable& table) {
  table.add<WindowCodegen, SampleCodegen, EnumerateCodegen>({"flow/stream/sequence.hpp"});
}

} // namespace flow::codegen

#pragma once
// One home per plan node kind in code generation. Everything a kind generates — the
// state declared before its segment's loops, the loop of a segment that starts at it,
// its code for each element that reaches it, what ends with its segment, the runtime
// headers it needs — is one class in codegen/nodes/, a file per family of kinds. The
// Generator (emit_pipeline.cpp) only walks segments in flow order and asks each node's
// class; it lists no kinds.
//
// Each class says which kind it generates (`static constexpr Node::Kind kind`); each
// family file adds its classes to the table (addSourceCodegen, …), and the Generator
// checks when it starts that every row of plan/node_kinds.def has one.
#include "plan/plan.hpp"

#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace flow::codegen {

class Generator;
using plan::Node;

/// What a node's code may need of the segment it is generated in.
struct Segment {
  const std::set<int>& nodes;            // the segment's nodes
  const std::vector<std::string>& stops; // flags a `break` downstream of a lambda sets
  bool phase;                            // a phase of its own: it tells the program its count
};

class NodeCodegen {
public:
  virtual ~NodeCodegen() = default;

  /// State that lives through the whole program, declared at the start of fl_run (a
  /// stream written once and read back by later statements, anywhere after it).
  virtual void programState(const Node&) {}
  /// Code before the statement's block, each time the statement runs (an aggregate's
  /// result, which the statement's expression reads after the block).
  virtual void beforeStatement(const Node&) {}
  /// Its state, declared before the loops of its segment (a sorter, a writer, a table).
  virtual void declare(const Node&) {}
  /// Its state when a merge, join or zip pulls it (a pull node of the runtime): true when
  /// declared so, false for a kind declared the same way pulled or not (declare()).
  virtual bool declarePulled(const Node&) { return false; }
  /// The pull stream a consumer reads it from (after declare or declarePulled).
  virtual std::string pullSource(const Node& n) const;
  /// The elements it will put out, as C++ evaluated once its segment's nodes exist
  /// (for the progress of a phase that starts at it); "" when not known before the end.
  virtual std::string count(const Node&) { return ""; }
  /// Whether it puts elements out from more than one place (an emit per site, an end
  /// block, several inputs): its downstream is then generated once, as a lambda it calls,
  /// taking elements of outputType().
  virtual bool downstreamLambda(const Node&) const { return false; }
  virtual const sema::Type* outputType(const Node& n) const;
  /// The loop of a segment that starts at it: by default over its pull stream.
  virtual void loop(const Node& n, const Segment& segment);
  /// Its code for one element `in` handed to it.
  virtual void element(const Node& n, const std::string& in, const Segment& segment);
  /// What ends with its segment: the last runs written, a file completed, buffers given back.
  virtual void finish(const Node&) {}

protected:
  /// declarePulled's usual form: `auto fl_inN = flow::stream::CALL(input[, ARGS]);`.
  bool pullNode(const Node& n, const std::string& call, const std::string& args = "");
  /// element()'s usual form for a stage that passes some elements on: `if (CONDITION) { … }`.
  void passIf(const Node& n, const std::string& condition, const std::string& in, const Segment& segment);

  /// The generator it writes with (NodeCodegenTable sets it).
  Generator* g = nullptr;

private:
  friend class NodeCodegenTable;
};

/// The base of the class of node kind K.
template <Node::Kind K> struct KindCodegen : NodeCodegen {
  static constexpr Node::Kind kind = K;
  using Payload = plan::PayloadOf<K>;
  /// A stage's or a source's elements are of its AST node's elementType.
  const sema::Type* outputType(const Node& n) const override {
    if constexpr (requires(const Payload& p) { p.elementType; }) return n.get<Payload>()->elementType;
    else return NodeCodegen::outputType(n);
  }
};

/// The class of each node kind, by Node::Kind, and the runtime headers its code needs.
class NodeCodegenTable {
public:
  explicit NodeCodegenTable(Generator& g);
  NodeCodegen& operator[](Node::Kind kind) const { return *classes_[kind]; }
  /// Runtime headers a program with a node of the kind includes beyond every program's
  /// (codegen.hpp: runtimeHeaders lists them all).
  const std::vector<std::string>& headers(Node::Kind kind) const { return headers_[kind]; }
  /// Adds classes C…, each for its C::kind, whose code needs `headers`.
  template <class... C> void add(const std::vector<std::string>& headers = {}) {
    (put(C::kind, std::make_unique<C>(), headers), ...);
  }
  /// Kinds that generate nothing in a segment (NodeCodegen's defaults).
  void addPlain(std::initializer_list<Node::Kind> kinds);

private:
  void put(Node::Kind kind, std::unique_ptr<NodeCodegen> c, const std::vector<std::string>& headers);
  Generator& g_;
  std::vector<std::unique_ptr<NodeCodegen>> classes_;
  std::vector<std::vector<std::string>> headers_;
};

// The family files (codegen/nodes/*.cpp).
void addSourceCodegen(NodeCodegenTable& table);
void addSortCodegen(NodeCodegenTable& table);
void addReduceCodegen(NodeCodegenTable& table);
void addCombineCodegen(NodeCodegenTable& table);
void addStageCodegen(NodeCodegenTable& table);
void addSequenceCodegen(NodeCodegenTable& table);
void addSinkCodegen(NodeCodegenTable& table);
void addContainerCodegen(NodeCodegenTable& table);

} // namespace flow::codegen

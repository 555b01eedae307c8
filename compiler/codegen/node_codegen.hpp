#pragma once
// One home per plan node kind in code generation. Everything a kind generates — the
// state declared before its segment's loops, the loop of a segment that starts at it,
// its code for each element that reaches it, what ends with its segment, the runtime
// headers it needs — is one class in codegen/nodes/, a file per family of kinds. The
// Generator (emit_pipeline.cpp) only walks segments in flow order and asks each node's
// class; it lists no kinds.
//
// Each row of plan/node_kinds.def needs its make<Kind>Codegen below: a kind added to the
// table without its class does not link.
#include "plan/plan.hpp"

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
  explicit NodeCodegen(Generator& g) : g(g) {}
  virtual ~NodeCodegen() = default;

  /// Runtime headers a program with such a node includes beyond every program's
  /// (codegen.hpp: runtimeHeaders lists them all).
  virtual std::vector<std::string> headers() const { return {}; }
  /// State that lives through the whole program, declared at the start of main() (a
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
  Generator& g;
};

#define FLOW_NODE(Kind, ...) std::unique_ptr<NodeCodegen> make##Kind##Codegen(Generator& g);
#include "plan/node_kinds.def"
#undef FLOW_NODE

} // namespace flow::codegen

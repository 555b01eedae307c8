#pragma once
// The plan of a checked script: its flow graph (sources, stages, sorts split into run
// formation and merging, queues, vectors, files, loops), the phases in which nodes are
// active together, the memory each node gets, and the element counts and I/O volume of
// every node — computed before the program runs. `flowc explain` prints it; the code
// generator sizes sorters and queues with it; executables compare it with measurement.
#include "ast/diagnostics.hpp"
#include "plan/node_kinds.hpp"
#include "sema/symbols.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace flow::plan {

/// What a node stands for, typed by its kind: the AST node or symbol the code generator
/// needs to generate it (see Node::Kind for which kind holds which).
using Payload = std::variant<std::monostate, const ast::GenerateSource*, const ast::RangeSource*,
                             const ast::ReadSource*, const ast::MergeSource*, const ast::MapStage*,
                             const ast::FilterStage*, const ast::UniqueStage*, const ast::TakeStage*,
                             const ast::ForStage*, const ast::SortStage*, const ast::WriteStmt*,
                             const ast::VectorDecl*, const ast::PqDecl*, const ast::CallExpr*,
                             const ast::ForInStmt*, const sema::Symbol*, const ast::JoinSource*,
                             const ast::ZipSource*, const ast::ConcatSource*, const ast::ReduceStage*,
                             const ast::AssignStmt*, const ast::ArrayDecl*, const ast::NamedStage*,
                             const ast::MethodCallExpr*>;

/// How a node's element count follows the params and input files a program runs with:
/// its planned count times a scale. A source whose count the program can compute at
/// start (generate's count or range's bounds from params, the size of an input file) has
/// the scale "count at run time / planned count"; any other node takes the largest scale
/// of the nodes listed in `from` (its inputs; for a scan the vector's builders; for a
/// queue or a push the loop that pushes), or 1 when there are none. Generated programs
/// evaluate these at start, in Plan::scalingOrder, to plan memory and price estimates.
/// The count a generated program's scaling starts from for a read of an input file
/// without `~ N` (Node::startElements): at start the scale is "the file's elements /
/// this", so every node downstream is planned for the file's size. A round number
/// rather than 1 keeps such a read comparable with counted inputs where their scales
/// meet (the larger scale wins: merge, join, concat).
inline constexpr double kNominalInputElements = 1 << 20;

struct Scaling {
  // ReadEstimate: a read of a file the script writes first (no size at start) counted by
  // its `~ N`, an expression over params evaluated at start. Sum: a count that is the sum
  // of those in `from` (a vector's builders' pushes, a concat's or merge's inputs): their
  // scales weighted by their planned counts.
  enum Kind { Planned, GenerateCount, RangeBounds, InputFile, ReadEstimate, From, Sum, ArrayLength } kind = Planned;
  std::vector<int> from;
};

/// The statement, or the aggregate call inside an expression, whose code runs a node.
using Owner = std::variant<std::monostate, const ast::Stmt*, const ast::CallExpr*>;

/// What a run of the script's program at a small scale measured, for `flowc explain
/// --calibrate`: per node id, the fraction that replaces the planner's assumption.
struct Calibration {
  struct Measured {
    /// Filter, unique, reduce (its merge or fold), for stage, join: elements put out /
    /// elements of its input. Queue and vector pushes: pushes / pushes planned.
    double fraction = 1;
    double elements = 0;     // the node's elements (a queue: pushes) in the small run
    double peakFraction = 0; // a queue: the most items at once / its pushes
  };
  std::map<int, Measured> nodes;
  std::vector<std::pair<std::string, std::string>> params; // the small run's params
  std::vector<std::string> scaled;                         // the params scaled down
  double seconds = 0;                                      // of the small run
};

struct Node {
  // The kinds, and every fact about each (its payload: the AST node or symbol the code
  // generator needs), are the table in plan/node_kinds.def.
  //
  // A reduce is a Fold (a streaming fold) when its input is already in key order, else a
  // sort that combines equal keys: ReduceRuns (run formation, or a hash table that spills
  // sorted runs) and ReduceMerge, partners like SortRuns and SortMerge.
  enum Kind {
#define FLOW_NODE(Kind, ...) Kind,
#include "plan/node_kinds.def"
#undef FLOW_NODE
  };
  int id = 0;
  Kind kind;
  std::string name;             // what the script calls it: "sort by src_dst", "pq depend"
  SourceLoc loc;
  int phase = 0;
  double elements = 0;          // elements put out (a queue: pushes; a loop: iterations)
  // The count a generated program scales at start (Scaling): `elements`, except where
  // it comes from a read of an input file without `~ N` — planned with no count, it is
  // counted from kNominalInputElements there, which the file's size replaces at start.
  double startElements = 0;
  bool counted = true;          // false when no count or estimate was available
  // Counted from an input file as it is when flowc runs (explain): a count the program
  // has only at start, so no choice made when it is built (a hash join) rests on it.
  bool countedNow = false;
  uint64_t elementBytes = 0;
  uint64_t memoryBytes = 0;     // buffers this node holds during its phase
  int passes = 0;               // sorts: merge passes over the data on disk (0: in memory)
  double readBytes = 0, writeBytes = 0;                 // pipelined, as planned
  double materializedRead = 0, materializedWrite = 0;   // if every stream were materialized
  // What the node keeps on the temporary disk (sort runs and a merge's second level, a
  // queue's external part, a vector's or a stored stream's blocks) from its phase to
  // phase tempDiskUntil (a vector: the last phase reading it); a queue: its live phases.
  double tempDiskBytes = 0;
  int tempDiskUntil = 0;
  std::vector<int> inputs;
  Payload payload;
  std::string note;             // a caveat shown by explain (e.g. "count unknown: add ~ N")
  /// What a calibration run measured for this node (explain --calibrate), if anything:
  /// its count (or a queue's I/O) is then from the measurement, not an assumption.
  std::optional<Calibration::Measured> calibrated;
  std::string queue;            // a queue's configuration (flow::containers::describe)
  // Sorts: the run formation and the merge of one sort point at each other.
  int partner = -1;
  uint64_t runs = 0;
  uint64_t fanIn = 0;
  bool inMemory = false;
  /// Spread over the ranks of an MPI program (plan/spread.cpp): each rank holds a
  /// contiguous part of its elements, the parts in rank order being the whole; false:
  /// every rank computes all of them.
  bool spread = false;
  /// Spread: the bytes it sends between ranks, all ranks together (a sort's exchange, a
  /// write's gathering), for Plan::ranks ranks and keys spread evenly.
  double networkBytes = 0;
  /// Not spread in an MPI program: the node that cannot be spread and so made this one
  /// whole (itself, or one its stream feeds or is fed by), and why (explain --ranks).
  int wholeCause = -1;
  std::string whyWhole;
  bool keyed = false;           // the order has a radix key (how the sorter divides memory)
  bool hashed = false;          // ReduceRuns: combines in a hash table (the distinct keys fit)
  uint64_t hashPartitions = 0;  // ReduceRuns, hashed: the table's partitions
  /// Maps and filters (or a for stage) in a stretch that runs in batches on the program's
  /// threads (plan/batches.cpp): the stretch's first and last node; -1 on one thread.
  int batchFirst = -1, batchLast = -1;
  /// The first node of such a stretch holds its batch buffers: the bytes of an element
  /// into the stretch plus the room for what it puts out (0 for every other node).
  uint64_t batchElementBytes = 0;
  /// That room, in elements out per element in: 1 for maps and filters, more for a for
  /// stage (a stretch of its own), which may emit several.
  uint64_t batchOutputs = 1;
  /// A reduce's runs, not spread over ranks, whose input comes out of a batched stretch in
  /// its phase: its hash table is filled on the phase's thread, the stretch's batches
  /// keeping the others busy (flow::algo::sort_options::inserts_on_caller); its spills
  /// still sort on all threads.
  bool insertsOnCaller = false;
  /// A batched stretch's first node: the reduce's runs (a hash table) that its last node
  /// feeds and whose combine is associative — each chunk's outputs are folded by that
  /// reduce's key on the thread that computed them (plan/batches.cpp); -1: not folded.
  int batchFoldsInto = -1;
  /// In a pipeline that runs once per element of a loop around it (a loop body's).
  bool perElement = false;
  // Queues, arrays and vector caches: the phases the node lives through.
  std::vector<int> livePhases;
  // VectorIndex: the reads and writes of `v[i]` (each an upper bound of one block) by the
  // innermost loop that makes them (-1: none), whose count a program scales them by
  // (those of no loop by the node's own), and in all.
  std::map<int, std::pair<double, double>> accessesByLoop;
  double accesses() const {
    double sum = 0;
    for (const auto& [loop, counts] : accessesByLoop) sum += counts.first;
    return sum;
  }
  double writes() const {
    double sum = 0;
    for (const auto& [loop, counts] : accessesByLoop) sum += counts.second;
    return sum;
  }
  /// The facts node_kinds.def states about the kind.
  const NodeTraits& traits() const { return traitsOf(kind); }
  static const NodeTraits& traitsOf(Kind kind);
  /// Whether the node holds memory over several phases (livePhases) rather than its own.
  bool spansPhases() const { return traits().spansPhases(); }
  /// Where its runtime node works: its kind's threads, but a hash table of one partition
  /// is filled on one thread.
  Threads threads() const {
    if (batchFirst >= 0) return Threads::all;
    return hashed && hashPartitions <= 1 ? Threads::one : traits().threads;
  }
  /// What it asks of the budget: its kind's, but a batched stretch's first node holds the
  /// stretch's batch buffers.
  flow::plan::memory_role memoryRole() const {
    return batchElementBytes > 0 ? flow::plan::memory_role::batches : traits().memory;
  }
  // Queues declared at the top level: the top-level statement of their last use, after
  // which the program frees them (the plan gives them no memory in later phases).
  const ast::Stmt* lastUse = nullptr;
  // What made this node, for the code generator: the top-level statement, or the nested
  // loop, write or aggregate call (inside a loop body) whose pipeline it belongs to.
  Owner owner;
  Scaling scaling;

  /// The payload as the type its kind holds (a wrong type is a bug: it throws).
  template <class T> const T* get() const { return std::get<const T*>(payload); }
  const char* kindName() const { return traits().label; }
  /// Whether `payload` is what a node of `kind` holds (node_kinds.def's Payload column).
  static bool holdsPayloadOf(Kind kind, const Payload& payload);
  /// The vector or stored stream whose blocks this node writes (a vector built from a
  /// pipeline, `v = …`, pushes, a stream materialized), or reads (a scan, `v[i]`, a
  /// reread); null for other nodes.
  const sema::Symbol* storeWritten() const;
  const sema::Symbol* storeRead() const;
};

/// How many kinds node_kinds.def has.
inline constexpr size_t kNodeKinds = 0
#define FLOW_NODE(Kind, ...) +1
#include "plan/node_kinds.def"
#undef FLOW_NODE
    ;

/// What a node of kind K holds (node_kinds.def's Payload column): Node::get<PayloadOf<K>>().
template <Node::Kind K> struct PayloadOfKind;
#define FLOW_NODE(Kind, label, Payload, ...)                                                                            \
  template <> struct PayloadOfKind<Node::Kind> {                                                                       \
    using type = Payload;                                                                                              \
  };
#include "plan/node_kinds.def"
#undef FLOW_NODE
template <Node::Kind K> using PayloadOf = typename PayloadOfKind<K>::type;

struct Phase {
  int id = 0;
  std::string label;   // "for loop at 18:1", "write to \"mis.bin\""
  SourceLoc loc;
  // A phase in the body of top-level while loops runs once per round: `rounds` is the
  // product of their `~ N` (1 for a loop without one: `roundsAssumed`). Its nodes' counts
  // and I/O are per round; the totals multiply them.
  std::vector<const ast::WhileStmt*> loops; // the enclosing while loops, outermost first
  double rounds = 1;
  bool roundsAssumed = false;
  std::vector<int> nodes;
  uint64_t memoryBytes = 0; // assigned in this phase
  double readBytes = 0, writeBytes = 0;
  double tempDiskBytes = 0; // at most on the temporary disk during the phase (Node::tempDiskBytes)
};

struct Totals {
  double readBytes = 0, writeBytes = 0;
};

struct Plan {
  std::string script;
  std::vector<std::pair<std::string, std::string>> params; // name, value used
  uint64_t memoryBytes = 0;
  bool memoryDefaulted = false;
  uint64_t strCapacity = 0;     // the bytes a str holds (flowc --max-str); 0: the script has no str
  uint64_t blockBytes = 0;
  bool blockDefaulted = false;
  unsigned ranks = 0;           // explain --ranks P (PlanOptions::ranks)
  std::vector<Node> nodes;
  std::vector<int> scalingOrder; // every node after the nodes its Scaling takes from
  /// Files the script writes itself: a read of one is not an input known at start.
  /// `-` (standard output) is not among them. Path params the script writes go in
  /// writtenPathParams; which files they name is known only at run time.
  std::set<std::string> writtenFiles;
  std::set<const sema::Symbol*> writtenPathParams;
  /// The value of each path param the plan is for (its default or --set).
  std::map<const sema::Symbol*, std::string> pathValues;
  /// Whether a read is of an input file known at start (not one the script writes:
  /// by the same literal, or by the same path param; a program also skips the check of
  /// an input that a different param or literal names at run time, see
  /// flow::program::output_file).
  bool readsInput(const ast::ReadSource& read) const;
  /// The path the plan is for: a literal's text, a path param's value ("" if it has none).
  std::string pathValue(const ast::PathRef& path) const;
  /// A path as explain shows it: `"edges.bin"`, or `input="edges.bin"` for a param.
  std::string pathLabel(const ast::PathRef& path) const;
  std::vector<Phase> phases;
  Totals total, materialized;
  std::optional<Calibration> calibration; // explain --calibrate: the run the plan is calibrated by
  /// The nodes of vector and queue declarations, and of aggregate calls.
  std::map<const ast::Stmt*, int> declarationNode;
  std::map<const ast::CallExpr*, int> aggregateNode;
  const Node* forDeclaration(const ast::Stmt* decl) const;
  const Node* forAggregate(const ast::CallExpr* call) const;
};

struct PlanOptions {
  std::map<std::string, std::string> setParams; // --set name=value
  std::optional<uint64_t> memoryBytes;          // --memory
  std::optional<uint64_t> blockBytes;           // --block
  /// explain --calibrate: measured fractions in place of the planner's assumptions
  /// (filters pass everything, every key distinct, every push runs, a queue holds all
  /// its pushes at once).
  const Calibration* calibration = nullptr;
  /// explain: a read of an input file without `~ N` is counted from the file as it is
  /// now, as the program will count it when it starts (its size; a text file's lines
  /// estimated from its first MiB), where that file exists. Not for programs: what they
  /// are built with must not depend on the files beside the build.
  bool inputFilesNow = false;
  /// With a calibration: the static plan of the same script and params, whose memory
  /// split the program (built without calibration) makes (MemoryPlanner::adopt).
  const Plan* programPlan = nullptr;
  /// flowc build --mpi: mark the nodes a program run as several ranks spreads over them
  /// (Node::spread).
  bool spreadOverRanks = false;
  /// explain --ranks P: the ranks the plan's network bytes are for (0: not given).
  unsigned ranks = 0;
};

/// Marks the nodes whose elements an MPI program spreads over its ranks (plan/spread.cpp):
/// before the memory plan, which gives a spread sort its exchange buffers.
void spreadOverRanks(Plan& plan, unsigned ranks);
/// Prices what the spread nodes send for Plan::ranks ranks: after the memory plan, which
/// says which reduces fold in a hash table.
void priceNetwork(Plan& plan);

/// Chooses the stretches of maps and filters that run in batches on the program's threads
/// (plan/batches.cpp): before the memory plan, which gives them their buffers.
void batchStages(Plan& plan);
/// Marks the batched stretches that fold each chunk's outputs by the key of the hash
/// table reduce they feed, where its combine is associative (plan/batches.cpp): after the
/// memory plan, which says which reduces fold in a hash table.
void foldBatchesIntoReduces(Plan& plan);

/// Plans a checked program. Reports problems (a --set value that does not parse, a plan
/// that cannot fit the memory budget) to `diags` and returns nullopt after them.
std::optional<Plan> makePlan(const sema::CheckedProgram& program, const PlanOptions& options,
                             DiagnosticEngine& diags);

/// `flowc explain` output.
void printText(const Plan& plan, std::ostream& out);
void printJson(const Plan& plan, std::ostream& out);
void printDot(const Plan& plan, std::ostream& out);

/// "1.5 GiB", "200 B": a byte count as a person reads it.
std::string formatBytes(double bytes);
/// "1.05 M", "4 G", "17": a count as a person reads it.
std::string formatCount(double count);

} // namespace flow::plan

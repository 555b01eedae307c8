#pragma once
// The Flow AST: what the script says, with a source location on every node and no types
// yet (sema adds those). Built by compiler/parse, printed by ast_printer for --dump-ast.
//
// Node families: TypeRef (types as written), Expr, Source and Stage (the two halves of a
// pipeline), and Stmt (statements; declarations are statements too, as in C++).
// Each family has a Kind enum and `as<T>()` for checked downcasts.
#include "ast/builtins.hpp"
#include "ast/operators.hpp"
#include "ast/source.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flow::sema {
struct Type;
struct Symbol;
struct OrderInfo;
} // namespace flow::sema

namespace flow::ast {

template <class Base> struct Node {
  SourceLoc loc;
  template <class T> T* as() { return this->kindOf() == T::kKind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* as() const {
    return this->kindOf() == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
  virtual ~Node() = default;
  virtual int kindOf() const = 0;
};

/// The base of one kind of node of a family (Expr, Stmt, …): the kind as `kKind`, which
/// as<T>() compares, and as kind(). A node that stands for two kinds (`read` and
/// `read_text`, `let` and `var`) is one type: its kKind is the first, and it overrides
/// kind() to say which of the two it is.
template <class Family, typename Family::Kind K> struct NodeKind : Family {
  static constexpr int kKind = K;
  typename Family::Kind kind() const override { return K; }
  int kindOf() const final { return K; }
};

/// `a::b::c` — a name, possibly qualified (imported C++ names start with `cpp::`).
struct QualifiedName {
  std::vector<std::string> parts;
  SourceLoc loc;
  std::string str() const;
};

// ----------------------------------------------------------------------------- types

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct TypeRef : Node<TypeRef> {
  enum Kind { Named, Array };
  virtual Kind kind() const = 0;
  const sema::Type* resolved = nullptr; // set by sema
};
using TypeRefPtr = std::unique_ptr<TypeRef>;

struct NamedType : NodeKind<TypeRef, TypeRef::Named> {
  QualifiedName name;
};

struct ArrayType : NodeKind<TypeRef, TypeRef::Array> {
  TypeRefPtr element;
  ExprPtr length;
};

/// The order of a queue, merge or sort: built-in `asc` / `desc`, or a declared order.
struct OrderRef {
  enum Kind { Asc, Desc, Named } kind = Asc;
  QualifiedName name; // for Named
  SourceLoc loc;
  const sema::OrderInfo* order = nullptr; // set by sema
  std::string str() const;
};

/// One key of an order or a join: a field path, ascending unless `desc`.
struct OrderKey {
  ExprPtr key;
  bool descending = false;
  SourceLoc loc;
};

// ------------------------------------------------------------------------ pipelines

struct Source;
struct Stage;
using SourcePtr = std::unique_ptr<Source>;
using StagePtr = std::unique_ptr<Stage>;

/// `source | stage | stage …`
struct Pipeline {
  SourcePtr source;
  std::vector<StagePtr> stages;
  SourceLoc loc;
  const sema::Type* elementType = nullptr; // set by sema: the type of what comes out
};
using PipelinePtr = std::unique_ptr<Pipeline>;

/// A `~ expr` annotation: an element count (files, joins), a selectivity (filter, unique,
/// reduce) or a number of rounds (while); a constant expression over params.
struct Estimate {
  double value = 0;   // with the params' defaults (set by the builder for a number, else by sema)
  std::string text;   // as written
  SourceLoc loc;
  std::shared_ptr<Expr> expr; // the planner evaluates it with the params it plans for
};

// ---------------------------------------------------------------------- expressions

/// One piece of a string literal: literal text, or an interpolated `{expr}`.
struct StringPart {
  std::string text; // decoded text, when expr is null
  ExprPtr expr;
};

struct StringLiteral {
  std::string raw; // as written, with quotes
  std::vector<StringPart> parts;
  SourceLoc loc;
  bool isInterpolated() const;
  /// The decoded text; only meaningful when !isInterpolated().
  std::string text() const;
};

/// Where a read or write goes: a string literal (`"edges.bin"`, `"-"`), or the name of a
/// param of type path (`read(input)`), whose value the program gets at run time.
struct PathRef {
  StringLiteral literal;                // when param is empty
  std::string param;                    // the name of a path param
  SourceLoc loc;
  const sema::Symbol* symbol = nullptr; // the param, set by sema
  bool isParam() const { return !param.empty(); }
};

struct Expr : Node<Expr> {
  enum Kind {
    IntLit, FloatLit, SizeLit, StringLit, BoolLit, Name, Call, MethodCall, Field, Index,
    Unary, Binary, Cast, RecordInit, ArrayRepeat, ArrayList, PipelineArg, IfElse
  };
  virtual Kind kind() const = 0;
  /// Set by sema: the expression's type (never an untyped literal type after sema).
  const sema::Type* type = nullptr;
};

struct IntLitExpr : NodeKind<Expr, Expr::IntLit> {
  uint64_t value = 0;
  std::string text;
};

struct FloatLitExpr : NodeKind<Expr, Expr::FloatLit> {
  double value = 0;
  std::string text;
};

/// `256 MiB`: a byte count.
struct SizeLitExpr : NodeKind<Expr, Expr::SizeLit> {
  uint64_t bytes = 0;
  std::string text;
};

struct StringLitExpr : NodeKind<Expr, Expr::StringLit> {
  StringLiteral literal;
};

struct BoolLitExpr : NodeKind<Expr, Expr::BoolLit> {
  bool value = false;
};

struct NameExpr : NodeKind<Expr, Expr::Name> {
  QualifiedName name;
  const sema::Symbol* symbol = nullptr; // set by sema
};

/// `f(a, b)`, `cpp::ns::f(a)`, and builtins such as `rand(n)`, `min(a, b)`, `count(s)`.
struct CallExpr : NodeKind<Expr, Expr::Call> {
  QualifiedName callee;
  std::vector<ExprPtr> args;
  const sema::Symbol* symbol = nullptr; // set by sema: a builtin or an imported function
  std::optional<Builtin> builtin;       // set by sema for a call of a builtin
  bool aggregate = false;               // set by sema: count, sum, min or max of a stream
  /// Set by sema for a call of a script function with an expression body and value
  /// parameters: the body, expanded, reading the arguments through `params` (one per
  /// argument, each evaluated once).
  ExprPtr inlined;
  std::vector<const sema::Symbol*> params;
};

/// `q.push(x)`, `v.size()`.
struct MethodCallExpr : NodeKind<Expr, Expr::MethodCall> {
  ExprPtr object;
  std::string method;
  SourceLoc methodLoc;
  std::vector<ExprPtr> args;
  std::optional<Method> methodId;       // set by sema
  std::optional<StrMethod> strMethod;   // set by sema: a method of a str value
  const sema::Symbol* container = nullptr; // set by sema: the queue or vector
};

struct FieldExpr : NodeKind<Expr, Expr::Field> {
  ExprPtr object;
  std::string field;
  SourceLoc fieldLoc;
};

struct IndexExpr : NodeKind<Expr, Expr::Index> {
  ExprPtr object;
  ExprPtr index;
};

struct UnaryExpr : NodeKind<Expr, Expr::Unary> {
  UnaryOp op = UnaryOp::Neg;
  ExprPtr operand;
};

struct BinaryExpr : NodeKind<Expr, Expr::Binary> {
  BinaryOp op = BinaryOp::Add;
  ExprPtr lhs, rhs;
};

struct CastExpr : NodeKind<Expr, Expr::Cast> {
  ExprPtr operand;
  TypeRefPtr target;
};

struct FieldInit {
  std::string field;
  SourceLoc loc;
  ExprPtr value;
};

/// `Edge { src: a, dst: b }`
struct RecordInitExpr : NodeKind<Expr, Expr::RecordInit> {
  QualifiedName recordName;
  std::vector<FieldInit> fields;
};

/// `[0; 10]`
struct ArrayRepeatExpr : NodeKind<Expr, Expr::ArrayRepeat> {
  ExprPtr value;
  ExprPtr count;
};

/// `[a, b, c]`
struct ArrayListExpr : NodeKind<Expr, Expr::ArrayList> {
  std::vector<ExprPtr> elements;
};

/// A call argument that is a pipeline rather than a plain expression:
/// `count(graph | filter e => e.a > 0)`, `sum(range(0, 10))`.
struct PipelineArgExpr : NodeKind<Expr, Expr::PipelineArg> {
  PipelinePtr pipeline;
};

/// `if c { a } else { b }` as an expression; `else if` chains nest in `otherwise`.
/// `otherwise` is null only in a script with an error (reported by the AST builder).
struct IfExpr : NodeKind<Expr, Expr::IfElse> {
  ExprPtr cond, then, otherwise;
};

/// `(a, b) => expr`: the function of a reduce, join or zip, one parameter per input.
struct Lambda {
  struct Param {
    std::string name;
    SourceLoc loc;
    const sema::Symbol* symbol = nullptr; // set by sema
  };
  std::vector<Param> params;
  ExprPtr body;
  SourceLoc loc;
};

/// The key of one side of a join: a key list `(cust, day desc)`, or an order (`asc`,
/// `desc`, or a declared order with keys).
struct JoinKey {
  std::vector<OrderKey> keys; // a key list, or
  std::optional<OrderRef> order;
  SourceLoc loc;
  const sema::OrderInfo* resolved = nullptr; // set by sema: the order this side is read in
};

// -------------------------------------------------------------------------- sources

struct Source : Node<Source> {
  enum Kind { Generate, Range, Read, ReadText, Scan, Merge, Join, Zip, Concat, ExprSrc };
  virtual Kind kind() const = 0;
  const sema::Type* elementType = nullptr; // set by sema
};

/// `generate(count) { expr }` — expr may use `i` and `rand()`.
struct GenerateSource : NodeKind<Source, Source::Generate> {
  const sema::Symbol* indexSymbol = nullptr; // `i`, set by sema
  ExprPtr count;
  ExprPtr body;
};

/// `range(a, b)`: a, a+1, …, b-1.
struct RangeSource : NodeKind<Source, Source::Range> {
  ExprPtr begin, end;
};

/// How a CSV file is read or written: `read_csv(p, sep: "\t", header: false) as T`.
struct CsvOptions {
  char sep = ',';
  bool header = true;       // false: columns by position
  bool emptyAsZero = false; // an empty number field reads as 0 (else it is an error)
};

/// `read("path") as T ~ n`, `read_text("path") as T ~ n` and `read_lines("path") ~ n`
/// (a read_text whose every line is one str: its type is `str`, made by the parser).
struct ReadSource : NodeKind<Source, Source::Read> {
  Kind kind() const override { return text ? ReadText : Read; }
  bool text = false;
  bool lines = false; // read_lines (text too)
  bool csv = false;   // read_csv (text too)
  CsvOptions csvOptions;
  PathRef path;
  TypeRefPtr type;
  std::optional<Estimate> estimate;
};

/// `scan(v)`
struct ScanSource : NodeKind<Source, Source::Scan> {
  std::string vector;
  SourceLoc vectorLoc;
  const sema::Symbol* symbol = nullptr; // set by sema
};

/// `merge(s1, s2, … by O)`
struct MergeSource : NodeKind<Source, Source::Merge> {
  std::vector<PipelinePtr> inputs;
  OrderRef order;
};

/// `join(p1 by K1, p2 by K2) (a, b) => e ~ n` and `left_join(…) (a, b, found) => e`.
/// Sema appends a sort to an input that is not already read in its key's order.
struct JoinSource : NodeKind<Source, Source::Join> {
  bool left = false; // left_join
  PipelinePtr inputs[2];
  JoinKey keys[2];
  Lambda fn;
  std::optional<Estimate> estimate;
  /// Set by sema: nothing that reads the output depends on its order (a reduce reads it,
  /// through maps and filters), and its keys hash, so a hash join may compute it; the
  /// planner decides by the sizes.
  bool orderFree = false;
  /// Set by sema where a reduce reads the output but the join is not order free: why a
  /// hash join cannot compute it (explain says so: "a merge join: …").
  std::string mergeOnly;
};

/// `zip(p1, p2, …) (a, b, …) => e`
struct ZipSource : NodeKind<Source, Source::Zip> {
  std::vector<PipelinePtr> inputs;
  Lambda fn;
};

/// `concat(p1, p2, …)`
struct ConcatSource : NodeKind<Source, Source::Concat> {
  std::vector<PipelinePtr> inputs;
};

/// Any other expression as a source; in a valid script, a named stream or vector.
struct ExprSource : NodeKind<Source, Source::ExprSrc> {
  ExprPtr expr;
};

// --------------------------------------------------------------------------- stages

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

/// The variable that names each element in turn: `x` in `map x => …`, `filter x => …`,
/// `for x { … }` and `for x in pipeline { … }`.
struct ElementVar {
  std::string var;
  SourceLoc varLoc;
  const sema::Symbol* varSymbol = nullptr; // set by sema
};

struct Stage : Node<Stage> {
  enum Kind { Map, Filter, Sort, Unique, Take, For, Reduce, Named };
  virtual Kind kind() const = 0;
  const sema::Type* elementType = nullptr; // set by sema: the type this stage puts out
};

/// `map x => expr`
struct MapStage : NodeKind<Stage, Stage::Map>, ElementVar {
  ExprPtr body;
};

/// `filter x => cond ~ selectivity`
struct FilterStage : NodeKind<Stage, Stage::Filter>, ElementVar {
  ExprPtr cond;
  std::optional<Estimate> estimate;
};

/// `sort` or `sort by O`, or a sort sema inserted before a join that needs it.
struct SortStage : NodeKind<Stage, Stage::Sort> {
  std::optional<OrderRef> order;
  std::string insertedFor; // "join at 12:3" for an inserted sort; empty for the script's
};

/// `unique` (whole element) or `unique (key, …)`
struct UniqueStage : NodeKind<Stage, Stage::Unique> {
  std::vector<ExprPtr> keys;
  std::optional<Estimate> estimate;
};

/// `take n`
struct TakeStage : NodeKind<Stage, Stage::Take> {
  ExprPtr count;
};

/// A stage named by a word, with at most one argument: `window 3`, `sample 0.1`,
/// `enumerate` (the STAGE rows of ast/builtins.def).
struct NamedStage : NodeKind<Stage, Stage::Named> {
  std::string name;
  ExprPtr argument;              // null when none is given
  std::optional<StageId> id;     // set by sema: the stage the name names
  uint64_t constantArgument = 0; // set by sema for a constant_count argument (window's N)
};

/// `for x { … emit e; … } end { … }` — a stateful stage; the end block runs once after
/// the last element.
struct ForStage : NodeKind<Stage, Stage::For>, ElementVar {
  std::vector<StmtPtr> body;
  bool hasEnd = false;
  SourceLoc endLoc;
  std::vector<StmtPtr> end;
  std::optional<Estimate> estimate; // `~ R`: the elements it emits per element it takes
};

/// `reduce (k, …) with (a, b) => e ~ f`: one element per key, folded with the lambda.
struct ReduceStage : NodeKind<Stage, Stage::Reduce> {
  std::vector<ExprPtr> keys;
  Lambda fn;
  std::optional<Estimate> estimate;
  const sema::OrderInfo* keyOrder = nullptr; // set by sema: the keys, ascending
  bool inputSorted = false; // set by sema: the input is already in keyOrder (a streaming fold)
};

// ----------------------------------------------------------------------- statements

struct Stmt : Node<Stmt> {
  enum Kind {
    // declarations
    Import, Param, Memory, BlockSize, Record, Order, Fn, Use, Stream, Vector, Pq,
    // statements
    Let, Var, If, While, ForIn, Break, Continue, Emit, Print, Write, WriteText, Assign,
    Evaluate, Block,
    // an in-memory array (a declaration that may stand in a block)
    Array,
    // the end of a function's block body
    Return
  };
  virtual Kind kind() const = 0;
  bool isDeclaration() const { return kind() <= Pq; }
  const sema::Symbol* symbol = nullptr; // set by sema for declarations, let and var
};

struct ImportDecl : NodeKind<Stmt, Stmt::Import> {
  StringLiteral path;
};

struct ParamDecl : NodeKind<Stmt, Stmt::Param> {
  std::string name;
  TypeRefPtr type;
  ExprPtr init;
};

/// `memory SIZE;` and `block SIZE;`
struct SizeDecl : NodeKind<Stmt, Stmt::Memory> {
  Kind kind() const override { return isBlock ? BlockSize : Memory; }
  bool isBlock = false;
  uint64_t bytes = 0;
  std::string text;
  SourceLoc sizeLoc;
};

struct FieldDecl {
  std::string name;
  SourceLoc loc;
  TypeRefPtr type;
};

struct RecordDecl : NodeKind<Stmt, Stmt::Record> {
  std::string name;
  std::vector<FieldDecl> fields;
};

/// `order O on T = (k asc, …);` or `order O on T = cpp::functor;`
struct OrderDecl : NodeKind<Stmt, Stmt::Order> {
  std::string name;
  TypeRefPtr type;
  std::vector<OrderKey> keys;       // key order, or
  std::optional<QualifiedName> cpp; // an imported comparator
};

/// `stream s = pipeline;` or `stream s: T = pipeline;` (then the pipeline must give T).
struct StreamDecl : NodeKind<Stmt, Stmt::Stream> {
  std::string name;
  TypeRefPtr type; // may be null
  PipelinePtr pipeline;
};

/// A parameter or the result of a function: a value, or a stream, vector, array or
/// order of `type`.
struct FnParam {
  enum Kind { Value, Stream, Vector, Array, Order, Queue } kind = Value;
  std::string name; // empty for a result
  SourceLoc loc;
  TypeRefPtr type;
};

/// `fn name<T, …>(p: P, …) -> R = pipeline;` or `fn name(…) -> R { …; return e; }`.
/// Checked and planned where it is called, once per call (sema expands it there).
struct FnDecl : NodeKind<Stmt, Stmt::Fn> {
  std::string name;
  std::vector<std::pair<std::string, SourceLoc>> typeParams;
  std::vector<FnParam> params;
  std::optional<FnParam> result; // none: the function returns nothing
  PipelinePtr exprBody;          // `= pipeline;`, or
  std::vector<StmtPtr> body;     // a block body (ends with a ReturnStmt if it returns)
  bool hasBlock = false;
};

/// `use std.graph;` or `use "lib/mine.flow" as mine;`
struct UseDecl : NodeKind<Stmt, Stmt::Use> {
  std::string module;   // "std.graph", or
  StringLiteral path;   // a file, when module is empty
  std::string alias;    // the name its declarations are used by ("graph", "mine")
  SourceLoc aliasLoc;
};

/// `return e;` or `return;` at the end of a function's block body.
struct ReturnStmt : NodeKind<Stmt, Stmt::Return> {
  PipelinePtr value; // may be null
};

/// `vector v: T;` or `vector v = pipeline;`
struct VectorDecl : NodeKind<Stmt, Stmt::Vector> {
  std::string name;
  TypeRefPtr type;       // or
  PipelinePtr pipeline;
};

struct PqDecl : NodeKind<Stmt, Stmt::Pq> {
  std::string name;
  TypeRefPtr type;
  OrderRef order;
};

/// `let x = e;` and `var x: T = e;`
struct LetStmt : NodeKind<Stmt, Stmt::Let> {
  Kind kind() const override { return isVar ? Var : Let; }
  bool isVar = false;
  std::string name;
  TypeRefPtr type; // may be null
  ExprPtr init;
};

struct IfStmt : NodeKind<Stmt, Stmt::If> {
  ExprPtr cond;
  std::vector<StmtPtr> then;
  StmtPtr elseBranch; // an IfStmt (else if) or a BlockStmt, or null
};

/// `while cond ~ rounds { … }`
struct WhileStmt : NodeKind<Stmt, Stmt::While> {
  ExprPtr cond;
  std::optional<Estimate> rounds; // expected rounds, for the estimates
  std::vector<StmtPtr> body;
};

/// `for x in pipeline { … }`
struct ForInStmt : NodeKind<Stmt, Stmt::ForIn>, ElementVar {
  PipelinePtr pipeline;
  /// Set by sema: the pipeline is `s.words()` or `s.split(sep)` of a str, a loop in
  /// memory (no plan node) over the pieces of one value.
  bool overPieces = false;
  std::vector<StmtPtr> body;
};

/// `break;` and `continue;`
struct JumpStmt : NodeKind<Stmt, Stmt::Break> {
  Kind kind() const override { return isContinue ? Continue : Break; }
  bool isContinue = false;
};

struct EmitStmt : NodeKind<Stmt, Stmt::Emit> {
  ExprPtr value;
};

struct PrintStmt : NodeKind<Stmt, Stmt::Print> {
  StringLiteral message;
};

/// `write p to "path";`, `write_text p to "path";` and `write_lines p to "path";`
struct WriteStmt : NodeKind<Stmt, Stmt::Write> {
  Kind kind() const override { return text ? WriteText : Write; }
  bool text = false;
  bool lines = false; // write_lines: str elements, one per line (text too)
  bool csv = false;   // write_csv (text too)
  CsvOptions csvOptions;
  PipelinePtr pipeline;
  PathRef path;
};

/// `x = e`, `x += e`, …, and `v = pipeline` (a vector refilled).
struct AssignStmt : NodeKind<Stmt, Stmt::Assign> {
  std::optional<BinaryOp> op; // `x op= e`; none for `x = e`
  std::string spelling() const { return op ? std::string(ast::spelling(*op)) + "=" : "="; }
  ExprPtr target, value;
  PipelinePtr pipeline;                  // the right side when it is a pipeline (then no value)
  const sema::Symbol* vector = nullptr; // set by sema for `v = pipeline`: the vector refilled
};

struct ExprStmt : NodeKind<Stmt, Stmt::Evaluate> {
  ExprPtr expr;
};

struct BlockStmt : NodeKind<Stmt, Stmt::Block> {
  std::vector<StmtPtr> body;
};

/// `array a: T[n];` or `array a: T[n] = value;` — an in-memory array on the heap whose
/// length is computed when the declaration is reached.
struct ArrayDecl : NodeKind<Stmt, Stmt::Array> {
  std::string name;
  TypeRefPtr element;
  ExprPtr length;
  ExprPtr init; // may be null: zeros
};

/// A whole script: its top-level declarations and statements, in program order.
struct Program {
  const SourceFile* file = nullptr;
  std::vector<StmtPtr> items;
};

} // namespace flow::ast

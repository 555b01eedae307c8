#include "format/formatter.hpp"

#include "ast/builtins.hpp"
#include "parse/parser.hpp"

#include "FlowLexer.h"
#include <antlr4-runtime.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

namespace flow::format {

namespace {

using grammar::FlowLexer;

constexpr int kIndent = 4;        // a block's or bracket's contents
constexpr int kStageIndent = 2;   // `| stage` lines, beyond the line they continue
constexpr int kCommentGap = 2;    // the least space before a trailing `//` comment

struct Token {
  size_t type = 0;
  std::string text;
  size_t line = 0;    // where it starts
  size_t endLine = 0; // where it ends (a block comment may span lines)
  bool comment() const { return type == FlowLexer::LINE_COMMENT || type == FlowLexer::BLOCK_COMMENT; }
};

/// Every token of `text` but white space, comments included, in order.
std::vector<Token> lex(const std::string& text) {
  antlr4::ANTLRInputStream input(text);
  FlowLexer lexer(&input);
  lexer.removeErrorListeners();
  std::vector<Token> tokens;
  for (auto t = lexer.nextToken(); t->getType() != antlr4::Token::EOF; t = lexer.nextToken()) {
    Token token{t->getType(), t->getText(), t->getLine(), t->getLine()};
    // A line comment's trailing white space is white space too (`// x   `).
    if (token.type == FlowLexer::LINE_COMMENT) token.text.erase(token.text.find_last_not_of(" \t\r") + 1);
    token.endLine += static_cast<size_t>(std::count(token.text.begin(), token.text.end(), '\n'));
    tokens.push_back(std::move(token));
  }
  return tokens;
}

bool isWord(const Token& t) {
  return !t.text.empty() && (std::isalpha(static_cast<unsigned char>(t.text[0])) || t.text[0] == '_');
}
bool isKeyword(const Token& t) { return isWord(t) && t.type != FlowLexer::IDENT; }

/// Sources written as calls (`read(p)`, `join(a by …)`: ast::sourceNames) take no space
/// before their parenthesis; other keywords do (`reduce (k)`, `unique (a, b)`, `if (a) {`).
bool callKeyword(const std::string& word) {
  const auto names = ast::sourceNames();
  return std::find(names.begin(), names.end(), word) != names.end();
}
/// Keywords that end an operand, so that `-` or `~` after them is binary: `unique ~ 0.5`.
const std::set<std::string> kEndsOperand = {"true", "false", "unique", "sort", "asc", "desc"};
/// Statements whose block is their body.
const std::set<std::string> kBodyKeywords = {"if", "while", "for", "fn"};
/// Keywords followed by a type argument: `stream<Edge>`, `pq<T>`.
const std::set<std::string> kGenericKeywords = {"stream", "vector", "array", "order", "pq"};

/// One line of the output being laid out.
struct Line {
  int indent = 0;
  std::string code;    // the tokens, spaced
  std::string comment; // a trailing `// …`, if any
  bool blankBefore = false;
};

/// What is open where a line starts: the file, a block or a bracket.
struct Context {
  std::string opener;  // "" for the file, else "{", "(" or "["
  bool block = false;  // a `{` that ends its line: its contents are statements or fields
  int openerIndent = 0;
  int contentIndent = 0;
  bool inStatement = false; // the last code token at this level did not end a statement
  bool afterBrace = false; // that token was a `}`
  int statementIndent = 0;  // where the statement (or a bracket's argument) starts
  int pipeAnchor = -1;      // the indent its `| stage` lines hang from, once it has one
  std::string statementKeyword; // the statement's first token (`for`, `if`, `stream`, …)
};

class Layout {
public:
  explicit Layout(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  std::string run() {
    contexts_.push_back(Context{});
    std::vector<Line> lines;
    for (size_t i = 0; i < tokens_.size();) {
      size_t end = i + 1; // the tokens of one source line: until one starts below the last's end
      while (end < tokens_.size() && tokens_[end].line <= tokens_[end - 1].endLine) ++end;
      Line line;
      line.blankBefore = i > 0 && tokens_[i].line > tokens_[i - 1].endLine + 1;
      layOut(i, end, line);
      lines.push_back(std::move(line));
      i = end;
    }
    return print(lines);
  }

private:
  /// Indents the line of tokens [begin, end) and spaces its tokens, updating what is open.
  void layOut(size_t begin, size_t end, Line& line) {
    const Token& first = tokens_[begin];
    if (first.comment()) {
      // A comment line is indented as the code line after it (the comment is about it),
      // or as the contents of the bracket that line closes.
      commentLines_.push_back(indents_.size()); // this line's number
    } else {
      line.indent = indentOf(begin);
    }
    std::string code;
    for (size_t i = begin; i < end; ++i) {
      const Token& t = tokens_[i];
      if (t.type == FlowLexer::LINE_COMMENT && i > begin) {
        line.comment = t.text;
        continue;
      }
      if (i > begin) code += spaceBefore(i) ? " " : "";
      code += t.text;
      if (!t.comment()) step(i, line.indent);
    }
    line.code = std::move(code);
    indents_.push_back(first.comment() ? -1 : line.indent);
    closerLine_.push_back(!first.comment() && isCloser(first.text));
  }

  static bool isCloser(const std::string& s) { return s == "}" || s == ")" || s == "]"; }

  /// Whether a line that starts with `t` continues an expression or pipeline: `| stage`,
  /// `~ n`, `to path`, an operator, … (a statement starts with a keyword or a name, and
  /// `else` after `}` lines up with its `if`).
  static bool continues(const Token& t) {
    static const std::set<std::string> words = {"to", "end", "by", "with", "as", "(", "[", ".", "=>", "->", "=",
                                                "{", "|", "~"};
    if (words.count(t.text)) return true;
    return !isWord(t) && t.type != FlowLexer::STRING && t.type != FlowLexer::INT && t.type != FlowLexer::FLOAT &&
           t.type != FlowLexer::SIZE && !isCloser(t.text); // an operator
  }

  /// The indent of the line that starts with token `i` (code, not a comment).
  int indentOf(size_t i) {
    const Token& first = tokens_[i];
    Context& c = contexts_.back();
    if (isCloser(first.text) && contexts_.size() > 1) return c.openerIndent;
    const bool inBrackets = !c.block && !c.opener.empty();
    const bool stage = first.text == "|"; // always continues, also after a block's `}`
    if (!inBrackets && !stage && (!c.inStatement || (c.afterBrace && !continues(first)))) {
      c.pipeAnchor = -1; // a new statement (its first token sets statementKeyword)
      c.inStatement = c.afterBrace = false;
      c.statementIndent = c.contentIndent;
      return c.contentIndent;
    }
    if (stage || (first.text == "to" && c.pipeAnchor >= 0)) {
      if (c.pipeAnchor < 0) c.pipeAnchor = c.statementIndent;
      return c.pipeAnchor + kStageIndent;
    }
    if (c.pipeAnchor >= 0) return c.pipeAnchor + kStageIndent + kIndent; // a stage's own continuation
    const int indent = inBrackets ? c.contentIndent : c.contentIndent + kIndent;
    // After `stream s =` (or `fn f(…) =`) at a line's end the pipeline starts on this
    // line: its stages hang from it.
    const size_t p = previousCode(i);
    if (p < tokens_.size() && tokens_[p].text == "=") c.statementIndent = indent;
    return indent;
  }

  /// The index of the next code token after `i`, or tokens_.size().
  size_t nextCode(size_t i) const {
    for (++i; i < tokens_.size(); ++i)
      if (!tokens_[i].comment()) return i;
    return tokens_.size();
  }
  /// The index of the code token before `i`, or tokens_.size() if none.
  size_t previousCode(size_t i) const {
    while (i-- > 0)
      if (!tokens_[i].comment()) return i;
    return tokens_.size();
  }

  /// Tracks brackets and statements after code token `i` of a line indented `indent`.
  void step(size_t i, int indent) {
    const Token& t = tokens_[i];
    const std::string& s = t.text;
    if (s == "{" || s == "(" || s == "[") {
      const size_t next = nextCode(i);
      Context c;
      c.opener = s;
      c.block = s == "{" && (next == tokens_.size() || tokens_[next].line > t.endLine);
      c.openerIndent = indent;
      // The body of `if`, `while`, `for … in` or `fn` opened on a continuation line
      // (`  | filter x => x > 0 {`) belongs to the statement: its lines and its `}` line
      // up with the statement, not with the line the `{` ends.
      const Context& outer = contexts_.back();
      if (c.block && (outer.block || outer.opener.empty()) && indent != outer.contentIndent &&
          kBodyKeywords.count(outer.statementKeyword) && !stageBlock(i))
        c.openerIndent = outer.contentIndent;
      c.contentIndent = c.openerIndent + kIndent;
      c.statementIndent = c.contentIndent;
      contexts_.push_back(c);
      return;
    }
    if (isCloser(s)) {
      if (contexts_.size() > 1) contexts_.pop_back();
      // After a `}` the next line tells whether the statement goes on (`| stage`,
      // `to path`, `~ 0.5` after a stage's block or a record) or a new one starts
      // (`record R { … }`, `if … { … }`, `} else {`).
      contexts_.back().inStatement = true;
      contexts_.back().afterBrace = s == "}";
      return;
    }
    Context& c = contexts_.back();
    if (s == ";" || (s == "," && (c.block || c.opener.empty()))) {
      c.inStatement = false;
      if (s == ";") c.pipeAnchor = -1;
      return;
    }
    if (s == ",") c.pipeAnchor = -1; // the next argument of a call has `| stage` lines of its own
    if (!c.inStatement) c.statementKeyword = s;
    c.inStatement = true;
    c.afterBrace = false;
  }

  /// Whether the `{` at `i` opens a stage's block: `| for e {` or `} end {`.
  bool stageBlock(size_t i) const {
    const size_t a = previousCode(i);
    if (a == tokens_.size()) return false;
    if (tokens_[a].text == "end") return true;
    const size_t b = previousCode(a), c = b == tokens_.size() ? b : previousCode(b);
    return tokens_[a].type == FlowLexer::IDENT && b < tokens_.size() && tokens_[b].text == "for" &&
           c < tokens_.size() && tokens_[c].text == "|";
  }

  /// Whether one space goes between code token `i` and the token before it on its line.
  bool spaceBefore(size_t i) {
    const Token& next = tokens_[i];
    const Token& prev = tokens_[i - 1];
    if (next.comment() || prev.comment()) return true;
    const std::string& a = prev.text;
    const std::string& b = next.text;
    const size_t before = previousCode(i - 1); // the token before `prev`
    const bool prevIsMember = before < tokens_.size() && tokens_[before].text == ".";
    // Type arguments: `stream<Edge>`, `fn top<T>(…)`, `pq<pq<T>>` is not Flow.
    if (b == "<" && ((kGenericKeywords.count(a) && !prevIsMember) ||
                     (prev.type == FlowLexer::IDENT && before < tokens_.size() && tokens_[before].text == "fn"))) {
      genericOpen_.insert(i);
      ++genericDepth_;
      return false;
    }
    if (genericOpen_.count(i - 1)) return false;
    if (genericDepth_ > 0 && b == ">") {
      --genericDepth_;
      genericClose_.insert(i);
      return false;
    }
    if (a == "(" || a == "[" || a == "." || a == "::") return false;
    if (b == ")" || b == "]" || b == "," || b == ";" || b == "." || b == "::" || b == ":") return false;
    if (unary(i - 1)) return false;
    if (b == "(") {
      if (prev.type == FlowLexer::IDENT || genericClose_.count(i - 1)) return false;
      if (isKeyword(prev)) return !(prevIsMember || callKeyword(a));
      return true;
    }
    if (b == "[") return !(prev.type == FlowLexer::IDENT || a == ")" || a == "]" || (isKeyword(prev) && prevIsMember));
    if (a == "{" && b == "}") return false;
    return true;
  }

  /// Whether code token `i` is a prefix operator (`-x`, `!done`, `~mask`).
  bool unary(size_t i) const {
    const std::string& s = tokens_[i].text;
    if (s != "-" && s != "!" && s != "~") return false;
    const size_t p = previousCode(i);
    if (p == tokens_.size()) return true;
    const Token& before = tokens_[p];
    const bool value = before.type == FlowLexer::IDENT || before.type == FlowLexer::INT ||
                       before.type == FlowLexer::FLOAT || before.type == FlowLexer::SIZE ||
                       before.type == FlowLexer::STRING || isCloser(before.text) || genericClose_.count(p) || kEndsOperand.count(before.text) ||
                       (isKeyword(before) && p > 0 && previousCode(p) < tokens_.size() &&
                        tokens_[previousCode(p)].text == ".");
    return !value;
  }

  /// The lines, comment lines indented as the code after them, trailing comments lined up.
  std::string print(std::vector<Line>& lines) {
    for (size_t n : commentLines_) {
      size_t next = n + 1;
      while (next < lines.size() && indents_[next] < 0) ++next;
      if (next == lines.size()) lines[n].indent = 0;
      else lines[n].indent = indents_[next] + (closerLine_[next] ? kIndent : 0);
    }
    // No blank line at the start, after a block's `{` or before a `}`.
    for (size_t n = 0; n < lines.size(); ++n) {
      if (n == 0) lines[n].blankBefore = false;
      const std::string& code = lines[n].code;
      if (n > 0 && !lines[n - 1].code.empty() && lines[n - 1].code.back() == '{')
        lines[n].blankBefore = false;
      if (closerLine_[n] && code[0] == '}') lines[n].blankBefore = false;
    }
    // Trailing comments of consecutive lines start in one column.
    for (size_t n = 0; n < lines.size();) {
      if (lines[n].comment.empty()) {
        ++n;
        continue;
      }
      size_t end = n;
      size_t column = 0;
      while (end < lines.size() && !lines[end].comment.empty() && (end == n || !lines[end].blankBefore)) {
        column = std::max(column, static_cast<size_t>(lines[end].indent) + lines[end].code.size() + kCommentGap);
        ++end;
      }
      for (size_t k = n; k < end; ++k) {
        const size_t width = static_cast<size_t>(lines[k].indent) + lines[k].code.size();
        lines[k].code += std::string(column - width, ' ') + lines[k].comment;
        lines[k].comment.clear();
      }
      n = end;
    }
    std::string out;
    for (const Line& line : lines) {
      if (line.blankBefore) out += '\n';
      out += std::string(static_cast<size_t>(line.indent), ' ') + line.code + '\n';
    }
    return out;
  }

  std::vector<Token> tokens_;
  std::vector<Context> contexts_;
  std::set<size_t> genericOpen_, genericClose_;
  int genericDepth_ = 0;
  std::vector<size_t> commentLines_; // lines that start with a comment
  std::vector<int> indents_;         // per line: its indent (-1 for a comment line)
  std::vector<bool> closerLine_;     // per line: starts with `}`, `)` or `]`
};

bool sameTokens(const std::vector<Token>& a, const std::vector<Token>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].text != b[i].text) return false;
  return true;
}

} // namespace

std::optional<std::string> formatScript(const SourceFile& file, DiagnosticEngine& diags) {
  if (!parse::parseProgram(file, diags)) return std::nullopt;
  std::vector<Token> tokens = lex(file.text());
  std::string out = Layout(tokens).run();
  // The layout only moves white space: anything else would be a bug here, and a script
  // rewritten wrongly is worse than one left as it was.
  if (!sameTokens(tokens, lex(out)))
    throw std::logic_error("flowc fmt: the formatted text of " + file.path() + " does not lex to the same tokens");
  return out;
}

} // namespace flow::format

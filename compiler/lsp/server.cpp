#include "lsp/server.hpp"

#include "ast/diagnostics.hpp"
#include "format/formatter.hpp"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

namespace flow::lsp {

namespace json = llvm::json;

namespace {

// JSON-RPC error codes (LSP specification).
constexpr int kParseError = -32700;
constexpr int kMethodNotFound = -32601;
constexpr int kServerNotInitialized = -32002;
constexpr int kInvalidRequest = -32600;
constexpr unsigned long long kMaxMessageBytes = 1ULL << 30; // a script's text is far smaller

/// `file:///a%20b/c.flow` -> `/a b/c.flow`; other schemes are kept as they are (an
/// unsaved buffer's `untitled:1` checks as a script without a folder).
std::string pathOfUri(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  std::string path;
  for (size_t i = 7; i < uri.size(); ++i) {
    // A '%' not followed by two hexadecimal digits is kept as it is (a client's mistake
    // names a file that does not exist, an error the editor shows; never a crash).
    if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      path += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

std::string uriOfPath(const std::string& given) {
  static const char* hex = "0123456789ABCDEF";
  // The file itself, not a link to it (the build tree's stdlib links to the source's).
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(given, ec);
  const std::string path = ec ? given : real.string();
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') uri += static_cast<char>(c);
    else uri += std::string("%") + hex[c >> 4] + hex[c & 15];
  }
  return uri;
}

json::Value toJson(Position p) { return json::Object{{"line", p.line}, {"character", p.character}}; }
json::Value toJson(const Range& r) { return json::Object{{"start", toJson(r.start)}, {"end", toJson(r.end)}}; }

std::optional<Position> positionOf(const json::Object* params) {
  const json::Object* p = params ? params->getObject("position") : nullptr;
  if (!p) return std::nullopt;
  auto line = p->getInteger("line"), character = p->getInteger("character");
  if (!line || !character || *line < 0 || *character < 0) return std::nullopt;
  return Position{static_cast<uint32_t>(*line), static_cast<uint32_t>(*character)};
}

std::string uriOf(const json::Object* params) {
  const json::Object* doc = params ? params->getObject("textDocument") : nullptr;
  auto uri = doc ? doc->getString("uri") : llvm::None;
  return uri ? uri->str() : "";
}

/// The LSP CompletionItemKind of each of ours.
int lspKind(CompletionItem::Kind kind) {
  switch (kind) {
  case CompletionItem::Keyword: return 14;
  case CompletionItem::Variable: return 6;
  case CompletionItem::Field: return 5;
  case CompletionItem::Method: return 2;
  case CompletionItem::Function: return 3;
  case CompletionItem::Record: return 22; // Struct
  case CompletionItem::Module: return 9;
  }
  return 1;
}

class Server {
public:
  Server(std::istream& in, std::ostream& out, const AnalysisOptions& options)
      : in_(in), out_(out), options_(options) {}

  int run() {
    std::string body;
    while (read(body)) {
      llvm::Expected<json::Value> message = json::parse(body);
      if (!message) {
        llvm::consumeError(message.takeError());
        replyError(nullptr, kParseError, "the message is not JSON");
        continue;
      }
      const json::Object* object = message->getAsObject();
      if (!object) {
        replyError(nullptr, kInvalidRequest, "the message is not a JSON object");
        continue;
      }
      handle(*object);
      if (exit_) break;
    }
    return shutdown_ ? 0 : 1;
  }

private:
  struct Document {
    std::shared_ptr<const Analysis> analysis; // of the editor's text now
    std::shared_ptr<const Analysis> lastClean; // the last version that checked: completion while typing
  };

  /// One message's body; false at the end of the input.
  bool read(std::string& body) {
    size_t length = 0;
    bool haveLength = false;
    std::string header;
    while (std::getline(in_, header)) {
      if (!header.empty() && header.back() == '\r') header.pop_back();
      if (header.empty()) {
        if (haveLength) break;
        continue;
      }
      const std::string name = "Content-Length:";
      if (header.compare(0, name.size(), name) == 0) {
        // Without a length the next message cannot be found: the stream is unusable, and
        // the server ends (exit 1) saying why, as it does at the input's end.
        const std::string value = header.substr(name.size());
        const size_t digits = value.find_first_not_of(' ');
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = digits == std::string::npos ? 0 : std::strtoull(value.c_str() + digits, &end, 10);
        if (digits == std::string::npos || !std::isdigit(static_cast<unsigned char>(value[digits])) || errno != 0 ||
            value.find_first_not_of(' ', static_cast<size_t>(end - value.c_str())) != std::string::npos ||
            n > kMaxMessageBytes) {
          std::cerr << "flowc lsp: a message header says 'Content-Length:" << value
                    << "', not a length of at most " << kMaxMessageBytes << " bytes; stopping\n";
          return false;
        }
        length = static_cast<size_t>(n);
        haveLength = true;
      }
    }
    if (!haveLength) return false;
    body.assign(length, '\0');
    in_.read(body.data(), static_cast<std::streamsize>(length));
    return static_cast<size_t>(in_.gcount()) == length;
  }

  void send(json::Value message) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << message;
    os.flush();
    out_ << "Content-Length: " << text.size() << "\r\n\r\n" << text;
    out_.flush();
  }
  void reply(const json::Value* id, json::Value result) {
    send(json::Object{{"jsonrpc", "2.0"}, {"id", id ? *id : json::Value(nullptr)}, {"result", std::move(result)}});
  }
  void replyError(const json::Value* id, int code, std::string message) {
    send(json::Object{{"jsonrpc", "2.0"},
                      {"id", id ? *id : json::Value(nullptr)},
                      {"error", json::Object{{"code", code}, {"message", std::move(message)}}}});
  }
  void notify(std::string method, json::Value params) {
    send(json::Object{{"jsonrpc", "2.0"}, {"method", std::move(method)}, {"params", std::move(params)}});
  }

  void handle(const json::Object& message) {
    const json::Value* id = message.get("id");
    const std::string method = message.getString("method").getValueOr("").str();
    const json::Object* params = message.getObject("params");
    if (method == "initialize") {
      initialized_ = true;
      reply(id, json::Object{
                    {"capabilities",
                     json::Object{{"textDocumentSync", 1}, // the whole text on every change
                                  {"hoverProvider", true},
                                  {"definitionProvider", true},
                                  {"documentFormattingProvider", true},
                                  {"documentSymbolProvider", true},
                                  {"completionProvider", json::Object{{"triggerCharacters", json::Array{".", "|"}}}}}},
                    {"serverInfo", json::Object{{"name", "flowc lsp"}, {"version", FLOW_VERSION}}}});
      return;
    }
    if (method == "exit") {
      exit_ = true;
      return;
    }
    if (!initialized_) {
      if (id) replyError(id, kServerNotInitialized, "initialize first");
      return;
    }
    if (method == "shutdown") {
      shutdown_ = true;
      reply(id, nullptr);
    } else if (method == "textDocument/didOpen" || method == "textDocument/didChange") {
      std::string text;
      if (method == "textDocument/didOpen") {
        const json::Object* doc = params ? params->getObject("textDocument") : nullptr;
        text = doc ? doc->getString("text").getValueOr("").str() : "";
      } else if (const json::Array* changes = params ? params->getArray("contentChanges") : nullptr;
                 changes && !changes->empty()) {
        const json::Object* last = changes->back().getAsObject();
        text = last ? last->getString("text").getValueOr("").str() : "";
      }
      update(uriOf(params), std::move(text));
    } else if (method == "textDocument/didClose") {
      const std::string uri = uriOf(params);
      documents_.erase(uri);
      notify("textDocument/publishDiagnostics", json::Object{{"uri", uri}, {"diagnostics", json::Array{}}});
    } else if (method == "textDocument/hover") {
      hover(id, params);
    } else if (method == "textDocument/definition") {
      definition(id, params);
    } else if (method == "textDocument/completion") {
      completion(id, params);
    } else if (method == "textDocument/formatting") {
      formatting(id, params);
    } else if (method == "textDocument/documentSymbol") {
      documentSymbols(id, params);
    } else if (id && method.rfind("$/", 0) != 0) {
      replyError(id, kMethodNotFound, "flowc lsp does not answer " + method);
    }
    // Other notifications (initialized, didSave, $/cancelRequest, …) need nothing.
  }

  void update(const std::string& uri, std::string text) {
    Document& doc = documents_[uri];
    doc.analysis = std::make_shared<const Analysis>(pathOfUri(uri), std::move(text), options_);
    if (doc.analysis->clean()) doc.lastClean = doc.analysis;
    json::Array diagnostics;
    for (const Diagnostic& d : doc.analysis->diagnostics())
      diagnostics.push_back(json::Object{{"range", toJson(d.range)},
                                         {"severity", d.error ? 1 : 2},
                                         {"source", "flowc"},
                                         {"message", d.message}});
    notify("textDocument/publishDiagnostics", json::Object{{"uri", uri}, {"diagnostics", std::move(diagnostics)}});
  }

  /// The analysis that answers a question at `at`: this version's if it checked, else the
  /// last one that did, if the line asked about is the same there (its places still hold).
  const Analysis* answering(const std::string& uri, Position at) const {
    auto it = documents_.find(uri);
    if (it == documents_.end() || !it->second.analysis) return nullptr;
    const Document& doc = it->second;
    if (doc.analysis->clean() || !doc.lastClean) return doc.analysis.get();
    return doc.lastClean->lineText(at.line) == doc.analysis->lineText(at.line) ? doc.lastClean.get() : doc.analysis.get();
  }

  void hover(const json::Value* id, const json::Object* params) {
    const std::optional<Position> at = positionOf(params);
    const Analysis* analysis = at ? answering(uriOf(params), *at) : nullptr;
    const std::optional<std::string> text = analysis ? analysis->hover(*at) : std::nullopt;
    if (!text) return reply(id, nullptr);
    reply(id, json::Object{{"contents", json::Object{{"kind", "markdown"}, {"value", *text}}}});
  }

  void definition(const json::Value* id, const json::Object* params) {
    const std::optional<Position> at = positionOf(params);
    const Analysis* analysis = at ? answering(uriOf(params), *at) : nullptr;
    const std::optional<Location> where = analysis ? analysis->definition(*at) : std::nullopt;
    if (!where) return reply(id, nullptr);
    reply(id, json::Object{{"uri", uriOfPath(where->path)}, {"range", toJson(where->range)}});
  }

  void completion(const json::Value* id, const json::Object* params) {
    const std::optional<Position> at = positionOf(params);
    auto it = documents_.find(uriOf(params));
    if (!at || it == documents_.end() || !it->second.analysis) return reply(id, json::Array{});
    const Document& doc = it->second;
    const Analysis& analysis = doc.analysis->clean() || !doc.lastClean ? *doc.analysis : *doc.lastClean;
    json::Array items;
    for (const CompletionItem& item : analysis.completion(*at, doc.analysis->lineText(at->line)))
      items.push_back(json::Object{{"label", item.label}, {"kind", lspKind(item.kind)}, {"detail", item.detail}});
    reply(id, std::move(items));
  }

  void documentSymbols(const json::Value* id, const json::Object* params) {
    auto it = documents_.find(uriOf(params));
    json::Array symbols;
    if (it != documents_.end() && it->second.analysis)
      for (const Analysis::Declaration& d : it->second.analysis->declarations())
        symbols.push_back(json::Object{{"name", d.name},
                                       {"detail", d.detail},
                                       {"kind", d.kind},
                                       {"range", toJson(d.line)},
                                       {"selectionRange", toJson(d.name_)}});
    reply(id, std::move(symbols));
  }

  void formatting(const json::Value* id, const json::Object* params) {
    auto it = documents_.find(uriOf(params));
    if (it == documents_.end() || !it->second.analysis) return reply(id, json::Array{});
    const std::string& text = it->second.analysis->text();
    std::ostringstream quiet;
    DiagnosticEngine diags(quiet);
    diags.setQuiet(true);
    const SourceFile file(pathOfUri(it->first), text);
    const std::optional<std::string> formatted = format::formatScript(file, diags);
    if (!formatted || *formatted == text) return reply(id, json::Array{}); // a script with errors stays as it is
    // One edit that replaces the whole text: from its start to its end (after the last
    // line break, or at the end of a last line without one).
    uint32_t lines = 0;
    for (char c : text) lines += c == '\n';
    const size_t lastLine = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    const Position end{lines, toUtf16(std::string_view(text).substr(lastLine), 1u << 30)};
    reply(id, json::Array{json::Object{{"range", toJson(Range{{0, 0}, end})}, {"newText", *formatted}}});
  }

  std::istream& in_;
  std::ostream& out_;
  AnalysisOptions options_;
  std::map<std::string, Document> documents_;
  bool initialized_ = false, shutdown_ = false, exit_ = false;
};

} // namespace

int serve(std::istream& in, std::ostream& out, const AnalysisOptions& options) {
  return Server(in, out, options).run();
}

} // namespace flow::lsp

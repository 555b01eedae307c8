#pragma once
// CSV files of records (read_csv, write_csv): RFC 4180 with a chosen separator, a column
// per field of the record, named in a header line or taken by position. The compiler
// generates each record's `Fields`: its field names in order, its count and type name,
// read(csv_row&, T&) calling row.read(member, i) per field and write(csv_line&, const T&)
// calling line.field(member) per field. The path `-` is standard input or output, as for
// text files (flow/script/text_files.hpp), whose buffered line reader, atomic output,
// record length bound and I/O statistics these files share.
//
// A field is one scalar (flow/script/text_scalars.hpp): a str takes its bytes exactly, a
// number or bool its text exactly (no white space trimmed: " 5" is not a number). Quoting
// follows RFC 4180: a field that starts with '"' ends at the next lone '"', `""` inside is
// one quote, and separators and line breaks inside are part of the value. A '"' inside an
// unquoted field is taken as it is (as most writers of sloppy CSV mean it). The writer
// quotes exactly the fields that would not read back otherwise, so everything it writes
// reads back as the same records.
//
// The ranks of an MPI program share a CSV file by record starts (csv_share below): rank r
// of P reads the records that start in its share of the bytes, [size·r/P, size·(r+1)/P)
// — where a record starts is found exactly, also where quoted fields hold line breaks.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "flow/edit_distance.hpp"
#include "flow/excerpt.hpp"
#include "flow/io/error.hpp"
#include "flow/script/str.hpp"
#include "flow/script/text_files.hpp"
#include "flow/script/text_scalars.hpp"

namespace flow::script {

/// read_csv's and write_csv's options, as the script gives them.
struct csv_options {
  char sep = ',';             // never '"', '\r' or '\n' (the compiler checks)
  bool header = true;         // false: columns by position, no header line
  bool empty_as_zero = false; // an empty number or bool field reads as 0 or false, not as an error
};

namespace detail {
class csv_records;

/// What messages say after "the header has no column 'x'" or a wrong field count when the
/// whole line was one field: the separator the line seems to use instead.
inline std::string csv_separator_hint(std::string_view record, char sep) {
  for (const char c : {',', ';', '\t', '|'}) {
    if (c == sep || record.find(c) == std::string_view::npos) continue;
    const std::string shown = c == '\t' ? "\\t" : std::string(1, c);
    return "; is the separator '" + shown + "'? read_csv(…, sep: \"" + shown + "\") reads it";
  }
  return "";
}

/// Where the records of a CSV file start, found from the middle of the file: the states
/// of csv_records::parse between two bytes, and the one a byte leads to. `line_start`: a
/// record may start here (a line break outside quotes before it, or the file's start).
enum class csv_state : std::uint8_t {
  line_start, field_start, unquoted, quoted, quote_in_quoted, cr_after_quote, broken
};
inline constexpr std::size_t csv_states = 7;

inline csv_state csv_next_state(csv_state s, char c, char sep) noexcept {
  using enum csv_state;
  switch (s) {
  case line_start:
  case field_start: return c == '"' ? quoted : c == sep ? field_start : c == '\n' ? line_start : unquoted;
  case unquoted: return c == sep ? field_start : c == '\n' ? line_start : unquoted; // a '"' in it is a byte
  case quoted: return c == '"' ? quote_in_quoted : quoted; // line breaks and separators are the value's
  case quote_in_quoted: // "" is a quote; a lone one closes the field
    return c == '"' ? quoted : c == sep ? field_start : c == '\n' ? line_start : c == '\r' ? cr_after_quote : broken;
  case cr_after_quote: return c == '\n' ? line_start : broken;
  case broken: return broken; // parse stops with an error in the record before
  }
  return broken;
}

/// What a rank's bytes [from, to) do, for each state it may start in: the state they
/// end in, and the first record start in [from, to) (`none` if there is none).
struct csv_span_effect {
  static constexpr std::uint64_t none = UINT64_MAX;
  std::array<csv_state, csv_states> end{};
  std::array<std::uint64_t, csv_states> first_record{};
};

/// Runs the byte states over [from, to) of the file from each possible start at once, in
/// 64 KiB reads: starts whose states meet go on as one, so a file usually costs two table
/// lookups a byte (outside quotes, inside them).
inline csv_span_effect csv_scan_span(text_line_reader& file, std::uint64_t from, std::uint64_t to, char sep) {
  std::array<std::array<csv_state, 256>, csv_states> next{};
  for (std::size_t s = 0; s < csv_states; ++s)
    for (int c = 0; c < 256; ++c) next[s][c] = csv_next_state(static_cast<csv_state>(s), static_cast<char>(c), sep);
  csv_span_effect effect;
  effect.first_record.fill(csv_span_effect::none);
  if (from < to) effect.first_record[static_cast<std::size_t>(csv_state::line_start)] = from;
  // machine[k]'s state, and the start states it stands for
  std::array<csv_state, csv_states> machine{};
  std::array<std::size_t, csv_states> of{};
  std::size_t machines = csv_states;
  for (std::size_t s = 0; s < csv_states; ++s) machine[s] = static_cast<csv_state>(s), of[s] = s;
  std::unique_ptr<char[]> chunk(new char[text_buffer_bytes]);
  for (std::uint64_t at = from; at < to;) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(text_buffer_bytes, to - at));
    const std::size_t got = file.read_at(at, chunk.get(), want);
    if (got == 0) break; // the file shrank: what is left reads as it is
    for (std::size_t k = 0; k < machines; ++k) {
      csv_state s = machine[k];
      for (std::size_t i = 0; i < got; ++i) {
        s = next[static_cast<std::size_t>(s)][static_cast<unsigned char>(chunk[i])];
        if (s == csv_state::line_start && at + i + 1 < to) [[unlikely]] {
          for (std::size_t start = 0; start < csv_states; ++start)
            if (of[start] == k && effect.first_record[start] == csv_span_effect::none)
              effect.first_record[start] = at + i + 1;
        }
      }
      machine[k] = s;
    }
    at += got;
    // Machines in the same state go on alike: keep one of them.
    std::array<std::size_t, csv_states> merged_into{};
    std::size_t kept = 0;
    for (std::size_t k = 0; k < machines; ++k) {
      std::size_t same = kept;
      for (std::size_t j = 0; j < kept; ++j)
        if (machine[j] == machine[k]) same = j;
      if (same == kept) machine[kept++] = machine[k];
      merged_into[k] = same;
    }
    for (std::size_t s = 0; s < csv_states; ++s) of[s] = merged_into[of[s]];
    machines = kept;
  }
  for (std::size_t s = 0; s < csv_states; ++s) effect.end[s] = machine[of[s]];
  return effect;
}

/// This rank's records of a CSV file the ranks share: the lines [start, stop) that begin
/// a record, found from every rank's effect on its bytes (exchanged once); no record
/// starts before `after` (the header's end).
inline std::pair<std::uint64_t, std::uint64_t> csv_share(text_line_reader& file, char sep, std::uint64_t after) {
  const std::uint64_t size = file.file_size(), p = static_cast<std::uint64_t>(ranks::size()),
                      r = static_cast<std::uint64_t>(ranks::rank());
  const auto byte_share = [&](std::uint64_t k) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(size) * k / p);
  };
  std::uint64_t from = byte_share(r);
  const std::uint64_t to = byte_share(r + 1);
  if (r == 0) { // a byte order mark is no part of the first field (parse drops it)
    char bom[3] = {};
    if (file.read_at(0, bom, 3) == 3 && std::string_view(bom, 3) == "\xEF\xBB\xBF")
      from = std::min<std::uint64_t>(3, to);
  }
  const csv_span_effect mine = csv_scan_span(file, from, to, sep);
  const std::vector<std::byte> all =
      ranks::world().all_gather(std::span(reinterpret_cast<const std::byte*>(&mine), sizeof mine));
  std::vector<csv_span_effect> effects(p);
  std::memcpy(effects.data(), all.data(), p * sizeof(csv_span_effect));
  // The state at each rank's first byte, then each rank's first record start (the next
  // rank's when its bytes start none).
  std::vector<csv_state> state(p + 1, csv_state::line_start);
  for (std::uint64_t k = 0; k < p; ++k) state[k + 1] = effects[k].end[static_cast<std::size_t>(state[k])];
  std::vector<std::uint64_t> first(p + 1, size);
  for (std::uint64_t k = p; k-- > 0;) {
    const std::uint64_t f = effects[k].first_record[static_cast<std::size_t>(state[k])];
    first[k] = f == csv_span_effect::none ? first[k + 1] : f;
  }
  return {std::max(first[r], after), std::max(first[r + 1], after)};
}

} // namespace detail

/// One record of a CSV file, as a generated Fields::read sees it: read(x, i) reads the
/// column of the record's field number i into x, checked as a value of x's type.
class csv_row {
public:
  template <class X> void read(X& x, std::size_t field) {
    const span& f = fields_[columns_[field]];
    const std::string_view v = value(f);
    if constexpr (!detail::is_str<X>::value) {
      if (v.empty()) [[unlikely]] {
        if (!empty_as_zero_) fail_empty(field, f.line, scalar_type_name<X>());
        x = X{};
        return;
      }
    }
    const std::string why = parse_scalar(v, x);
    if (!why.empty()) [[unlikely]] {
      // A str's reason says all: it quotes the start of the field that is too long.
      fail(f.line, describe(field) + " (" + scalar_type_name<X>() + "): " +
                       (detail::is_str<X>::value ? why : "cannot parse '" + excerpt(v) + "': " + why));
    }
  }

private:
  friend class detail::csv_records;

  /// A field's value: bytes of the record's text, or, once its doubled quotes are undone,
  /// of scratch_; and the line it starts on, for messages.
  struct span {
    std::size_t offset, size;
    std::uint64_t line;
    bool in_scratch;
  };

  std::string_view value(const span& f) const noexcept {
    return f.in_scratch ? std::string_view(scratch_).substr(f.offset, f.size)
                                   : std::string_view(text_ + f.offset, f.size);
  }
  std::string describe(std::size_t field) const {
    if (header_) return "column '" + std::string(names_[field]) + "'";
    return "column " + std::to_string(field + 1) + " (" + names_[field] + ")";
  }
  [[noreturn]] void fail(std::uint64_t line, const std::string& what) const {
    throw file_format_error(*file_ + ":" + std::to_string(line) + ": " + what, *file_);
  }
  [[noreturn]] void fail_empty(std::size_t field, std::uint64_t line, const std::string& type) const {
    fail(line, describe(field) + " (" + type + ") is empty; read_csv(…, empty_as_zero: true) reads an empty " +
                   (type == "bool" ? "bool as false" : "number as 0"));
  }

  const std::string* file_ = nullptr;
  const char* const* names_ = nullptr; // the record's field names
  bool header_ = true, empty_as_zero_ = false;
  std::vector<std::size_t> columns_; // field number -> column number
  std::vector<span> fields_;         // the record's columns
  const char* text_ = nullptr;       // the record's bytes, while it is the current one
  std::string scratch_;              // the values of quoted fields with doubled quotes
};

namespace detail {

/// The records of a CSV file, parsed into a csv_row, and its header. What does not depend
/// on the record type, so that it is compiled once per program, not once per record type.
class csv_records {
public:
  /// `shared`: this rank's records of a file the ranks share (csv_share; a stream, as a
  /// /proc file, is the first rank's alone). Every rank reads the header.
  csv_records(const std::string& path, const csv_options& opt, const char* const* names, std::size_t count,
              const char* type_name, std::size_t max_record, bool shared)
      : lines_(path, max_record, long_line, 0, shared ? text_sharing::by_caller : text_sharing::whole),
        sep_(opt.sep), max_record_(max_record), count_(count), type_name_(type_name) {
    row_.file_ = &lines_.name();
    row_.names_ = names;
    row_.header_ = opt.header;
    row_.empty_as_zero_ = opt.empty_as_zero;
    row_.columns_.resize(count);
    const bool several = shared && ranks::size() > 1;
    if (several && !lines_.seekable() && ranks::rank() > 0) return; // a stream is the first rank's
    if (!opt.header) {
      for (std::size_t i = 0; i < count; ++i) row_.columns_[i] = i;
    } else {
      if (!parse()) throw file_format_error(lines_.name() + ": the file is empty: no header line", lines_.name());
      read_header(names);
    }
    if (!several || !lines_.seekable()) return;
    const auto [start, stop] = csv_share(lines_, sep_, opt.header ? lines_.next_line_start() : 0);
    if (ranks::rank() == 0) {
      lines_.stop_at(stop);
      return;
    }
    lines_.read_range(start, stop);
    first_line_ = false; // its first line is no file's first: a byte order mark there is data
  }

  /// Parses the next record into row(); false at the end of the file.
  bool next() {
    if (!parse()) return false;
    const std::size_t want = row_.header_ ? header_.size() : count_;
    if (row_.fields_.size() != want) [[unlikely]] {
      const std::string hint =
          row_.fields_.size() == 1 && want > 1 ? csv_separator_hint(row_.value(row_.fields_[0]), sep_) : "";
      fail(record_line_, "the record has " + std::to_string(row_.fields_.size()) + " field" +
                             (row_.fields_.size() == 1 ? "" : "s") + ", " +
                             (row_.header_ ? std::string("the header has ") : std::string(type_name_) + " has ") +
                             std::to_string(want) + hint);
    }
    return true;
  }
  csv_row& row() noexcept { return row_; }

private:
  static std::string long_line(std::size_t max_line, std::string_view start) {
    return "the line is longer than " + std::to_string(max_line) + " bytes, the longest read_csv takes (it starts '" +
           excerpt(start) + "'); is this a CSV file?";
  }
  [[noreturn]] void fail(std::uint64_t line, const std::string& what) const {
    throw file_format_error(lines_.name() + ":" + std::to_string(line) + ": " + what, lines_.name());
  }
  /// "file:line:column: ", a column counted in bytes from 1, as compilers name a place.
  [[noreturn]] void fail_at(std::uint64_t line, std::size_t column, const std::string& what) const {
    throw file_format_error(
        lines_.name() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what, lines_.name());
  }

  static char lower_ascii(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

  /// Maps each of the record's fields to its column of the header just parsed.
  void read_header(const char* const* names) {
    const std::uint64_t line = record_line_;
    header_.clear();
    for (const csv_row::span& f : row_.fields_) header_.emplace_back(row_.value(f));
    for (std::size_t i = 0; i < count_; ++i) {
      const std::string_view name = names[i];
      std::size_t found = header_.size();
      for (std::size_t c = 0; c < header_.size(); ++c) {
        if (header_[c] != name) continue;
        // Twice is ambiguous only for a column that is read: others are skipped anyway.
        if (found != header_.size())
          fail(line, "the header names column '" + excerpt(name) + "' twice (columns " + std::to_string(found + 1) +
                         " and " + std::to_string(c + 1) + ")");
        found = c;
      }
      if (found == header_.size())
        fail(line, "the header has no column '" + excerpt(name) + "' " + columns_list(name, names));
      row_.columns_[i] = found;
    }
  }
  std::string columns_list(std::string_view missing, const char* const* names) const {
    std::string list;
    const std::size_t shown = std::min<std::size_t>(header_.size(), 20);
    for (std::size_t c = 0; c < shown; ++c) list += (c ? ", " : "") + excerpt(header_[c]);
    if (shown < header_.size()) list += ", … (" + std::to_string(header_.size()) + " in all)";
    std::string out = "(its columns are " + list + ")";
    // A column the record reads as another field is no typo of this one, and for short
    // names a different case is nearer than one edit ("x" is one edit from "n" too).
    std::vector<std::string_view> others;
    for (const std::string& c : header_)
      if (std::find(names, names + count_, c) == names + count_) others.push_back(c);
    const auto same_but_case = [&](std::string_view c) {
      return c.size() == missing.size() && std::equal(c.begin(), c.end(), missing.begin(), [](char a, char b) {
               return lower_ascii(a) == lower_ascii(b);
             });
    };
    const auto it = std::find_if(others.begin(), others.end(), same_but_case);
    const std::string near = it != others.end() ? std::string(*it) : nearest_name(missing, others);
    if (!near.empty()) out += "; did you mean '" + excerpt(near) + "'?";
    else if (header_.size() == 1) out += csv_separator_hint(header_[0], sep_);
    return out;
  }

  /// Parses the next record that is not a blank line into row_.fields_; false at the end
  /// of the file. A record is one line, unless a quoted field holds line breaks: then its
  /// lines are joined in joined_, bounded by max_record_.
  bool parse() {
    std::string_view line;
    do {
      if (!lines_.next(line)) return false;
    } while (line.empty() || line == "\r");
    if (first_line_) {
      // A UTF-8 byte order mark (Excel writes one) is no part of the first column's name.
      first_line_ = false;
      if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    }
    record_line_ = line_number_ = lines_.line_number();
    text_ = line;
    joined_lines_ = false;
    line_start_ = 0;
    row_.fields_.clear();
    row_.scratch_.clear();
    std::size_t pos = 0;
    for (;;) {
      const std::uint64_t field_line = line_number_;
      if (pos < text_.size() && text_[pos] == '"') {
        const std::size_t open_column = pos - line_start_ + 1;
        const std::size_t content = pos + 1;
        bool doubled = false;
        std::size_t close;
        for (std::size_t from = content;;) {
          const void* q = std::memchr(text_.data() + from, '"', text_.size() - from);
          if (q == nullptr) {
            from = text_.size();
            if (!join_next_line()) {
              fail_at(field_line, open_column,
                      "the quoted field that starts here has no closing quote: the file ends inside it");
            }
            continue;
          }
          const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(q) - text_.data());
          if (at + 1 < text_.size() && text_[at + 1] == '"') {
            doubled = true;
            from = at + 2;
            continue;
          }
          close = at;
          break;
        }
        if (doubled) {
          const std::size_t start = row_.scratch_.size();
          for (std::size_t i = content; i < close; ++i) {
            row_.scratch_ += text_[i];
            if (text_[i] == '"') ++i; // the second of a pair
          }
          row_.fields_.push_back({start, row_.scratch_.size() - start, field_line, true});
        } else {
          row_.fields_.push_back({content, close - content, field_line, false});
        }
        pos = close + 1;
        if (pos == text_.size() || (pos + 1 == text_.size() && text_[pos] == '\r')) break;
        if (text_[pos] == sep_) {
          ++pos;
          continue;
        }
        fail_at(line_number_, pos - line_start_ + 1,
                "'" + excerpt(text_.substr(pos)) + "' follows the closing quote of a field, where '" +
                    excerpt(std::string_view(&sep_, 1)) +
                    "' or the end of the line belongs (a quote inside a quoted field is written twice: \"\")");
      }
      // Unquoted: up to the separator, or to the end of the line. The line is the last of
      // text_: a record only goes on after a line break inside quotes.
      const void* s = std::memchr(text_.data() + pos, sep_, text_.size() - pos);
      if (s != nullptr) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(s) - text_.data());
        row_.fields_.push_back({pos, at - pos, line_number_, false});
        pos = at + 1;
        continue;
      }
      std::size_t end = text_.size();
      if (end > pos && text_[end - 1] == '\r') --end;
      row_.fields_.push_back({pos, end - pos, line_number_, false});
      break;
    }
    row_.text_ = text_.data();
    return true;
  }

  /// Appends the next line to the record (its line break, "\n", is part of the quoted
  /// field; a '\r' before it stays at the end of the line before); false at the end of
  /// the file.
  bool join_next_line() {
    if (!joined_lines_) {
      // Before the next line replaces it in the reader's buffer. Offsets into the line
      // stay offsets into joined_.
      joined_.assign(text_);
      joined_lines_ = true;
    }
    std::string_view line;
    if (!lines_.next(line)) return false;
    if (joined_.size() + 1 + line.size() > max_record_) {
      fail(record_line_, "the record is longer than " + std::to_string(max_record_) +
                             " bytes, the longest read_csv takes (it starts '" + excerpt(joined_) +
                             "'); does a quoted field miss its closing quote?");
    }
    joined_ += '\n';
    line_start_ = joined_.size();
    joined_ += line;
    text_ = joined_;
    line_number_ = lines_.line_number();
    return true;
  }

  text_line_reader lines_;
  char sep_;
  std::size_t max_record_;
  std::size_t count_;
  const char* type_name_;
  csv_row row_;
  std::vector<std::string> header_; // the header's column names
  bool first_line_ = true;
  // The record being parsed: its text (a line in the reader's buffer, or joined_), the
  // line it starts on, the line being parsed and where that line starts in text_.
  std::string_view text_;
  std::string joined_;
  bool joined_lines_ = false;
  std::uint64_t record_line_ = 0, line_number_ = 0;
  std::size_t line_start_ = 0;
};

} // namespace detail

/// A CSV file of records, pulled like text_reader. Every error names the file and the
/// line (and the column): a missing or repeated header column at construction, a record
/// with the wrong number of fields, a value not of its field's type, a quote left open.
/// `max_record`: the longest record in bytes (a bound on what the reader holds).
template <class T, class Fields> class csv_reader {
public:
  using value_type = T;
  /// `shared`: this rank's records of a file the ranks of an MPI program share.
  explicit csv_reader(const std::string& path, csv_options opt = {}, bool shared = false,
                      std::size_t max_record = text_line_limit)
      : records_(path, opt, Fields::names, Fields::count, Fields::type_name, max_record, shared) {
    next();
  }
  bool empty() const { return done_; }
  const T& operator*() const { return current_; }
  csv_reader& operator++() {
    next();
    return *this;
  }

private:
  void next() {
    if (!records_.next()) {
      done_ = true;
      return;
    }
    Fields::read(records_.row(), current_);
  }

  detail::csv_records records_;
  T current_{};
  bool done_ = false;
};

/// One line of a CSV file being written, as a generated Fields::write makes it: field(x)
/// appends x after a separator (but the first), quoted where it would not read back as
/// it is.
class csv_line {
public:
  csv_line(std::string& out, char sep) noexcept : out_(out), sep_(sep) {}

  template <class X> void field(const X& x) {
    if constexpr (detail::is_str<X>::value) {
      text(x.view());
    } else {
      separate();
      const std::size_t at = out_.size();
      append_scalar(out_, x);
      // Only an odd separator ('.', '-', 'e') can meet a number's text.
      if (needs_quotes(std::string_view(out_).substr(at))) {
        const std::string v = out_.substr(at);
        out_.resize(at);
        quote(v);
      }
    }
  }
  /// A field of these bytes (a header's column name).
  void text(std::string_view s) {
    separate();
    if (needs_quotes(s)) quote(s);
    else out_.append(s);
  }

private:
  void separate() {
    if (!first_) out_ += sep_;
    first_ = false;
  }
  /// RFC 4180's cases, and a leading byte order mark, which the reader drops at the start
  /// of a file.
  bool needs_quotes(std::string_view s) const noexcept {
    for (const char c : s)
      if (c == sep_ || c == '"' || c == '\n' || c == '\r') return true;
    return s.starts_with("\xEF\xBB\xBF");
  }
  void quote(std::string_view s) {
    out_ += '"';
    for (const char c : s) {
      if (c == '"') out_ += '"';
      out_ += c;
    }
    out_ += '"';
  }

  std::string& out_;
  char sep_;
  bool first_ = true;
};

/// Writes records as CSV through a text_output (atomically, or to standard output for
/// `-`): with opt.header, the header line first, also when no record follows.
template <class T, class Fields> class csv_writer {
public:
  explicit csv_writer(const std::string& path, csv_options opt = {})
      : out_(path), sep_(opt.sep), header_pending_(opt.header) {}

  void push(const T& x) {
    if (header_pending_) [[unlikely]]
      write_header();
    std::string& out = out_.line();
    const std::size_t start = out.size();
    csv_line line(out, sep_);
    Fields::write(line, x);
    // A record of one empty str would be a blank line, which the reader skips.
    if (out.size() == start) out += "\"\"";
    out_.end_line();
  }
  /// Writes what is buffered, closes the file and puts it in place.
  void finish() {
    if (header_pending_) write_header();
    out_.finish();
  }

private:
  // Written with the first record, not at construction, so that on standard output it
  // keeps its place next to the records among print()'s lines.
  void write_header() {
    header_pending_ = false;
    csv_line line(out_.line(), sep_);
    for (std::size_t i = 0; i < Fields::count; ++i) line.text(Fields::names[i]);
    out_.end_line();
  }

  text_output out_;
  char sep_;
  bool header_pending_;
};

} // namespace flow::script

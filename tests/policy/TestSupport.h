// TestSupport.h - helpers shared by the policy tests: scoped environment variables, temporary
// folders and files, and a minimal JSON reader for diagnostics records.
#ifndef DPK_TESTS_POLICY_TESTSUPPORT_H
#define DPK_TESTS_POLICY_TESTSUPPORT_H

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace dpk::test {

/// Sets or unsets environment variables and restores them when destroyed.
class ScopedEnvironment {
public:
  ScopedEnvironment() {
    // A developer's own settings must not leak into the tests.
    for (const char *name : {"DPK_CONFIG", "DPK_DEVICE_SELECTOR", "DPK_FALLBACK", "DPK_DIAGNOSTICS",
                             "DPK_DIAGNOSTICS_FILE", "DPK_DUMP_DIR", "DPK_CACHE_DIR",
                             "DPK_CACHE_MODE", "DPK_MIXED_DEVICES", "XDG_CONFIG_HOME"})
      unset(name);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
    }
  }
  void set(const char *name, const std::string &value) {
    save(name);
    ::setenv(name, value.c_str(), 1);
  }
  void unset(const char *name) {
    save(name);
    ::unsetenv(name);
  }

private:
  void save(const char *name) {
    const char *old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

/// A fresh folder under $TMPDIR (not removed: tests leave it for inspection on failure).
inline std::string makeTempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/dpk-policy-test-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  char *dir = ::mkdtemp(buffer.data());
  return dir ? dir : "";
}

inline void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line))
    out.push_back(line);
  return out;
}

/// A JSON value reduced to what diagnostics records hold: flat objects of strings, numbers,
/// booleans and null. `parseJsonObject` rejects anything else, so a record that is not valid
/// JSON (bad escaping, trailing comma) fails the test.
struct JsonValue {
  enum class Kind { String, Number, Bool, Null } kind = Kind::Null;
  std::string string; // String; the literal text for Number and Bool
  double number = 0;
};

class JsonReader {
public:
  explicit JsonReader(const std::string &text) : text_(text) {}

  /// Keys in order of appearance and values; nullopt when the text is not one flat object.
  std::optional<std::vector<std::pair<std::string, JsonValue>>> object() {
    std::vector<std::pair<std::string, JsonValue>> out;
    skip();
    if (!eat('{'))
      return std::nullopt;
    skip();
    if (eat('}'))
      return finish(out);
    while (true) {
      skip();
      std::optional<std::string> key = string();
      if (!key)
        return std::nullopt;
      skip();
      if (!eat(':'))
        return std::nullopt;
      skip();
      std::optional<JsonValue> value = scalar();
      if (!value)
        return std::nullopt;
      out.emplace_back(*key, *value);
      skip();
      if (eat('}'))
        return finish(out);
      if (!eat(','))
        return std::nullopt;
    }
  }

private:
  std::optional<std::vector<std::pair<std::string, JsonValue>>>
  finish(std::vector<std::pair<std::string, JsonValue>> &out) {
    skip();
    if (pos_ != text_.size())
      return std::nullopt;
    return out;
  }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    if (!eat('"'))
      return std::nullopt;
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        return std::nullopt; // control characters must be escaped
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        return std::nullopt;
      char e = text_[pos_++];
      switch (e) {
      case '"': case '\\': case '/': out += e; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        if (pos_ + 4 > text_.size())
          return std::nullopt;
        unsigned code = std::stoul(text_.substr(pos_, 4), nullptr, 16);
        pos_ += 4;
        if (code >= 0x80)
          return std::nullopt; // records only escape control characters
        out += static_cast<char>(code);
        break;
      }
      default:
        return std::nullopt;
      }
    }
    return std::nullopt;
  }
  std::optional<JsonValue> scalar() {
    JsonValue value;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      std::optional<std::string> s = string();
      if (!s)
        return std::nullopt;
      value.kind = JsonValue::Kind::String;
      value.string = *s;
      return value;
    }
    for (const char *word : {"true", "false", "null"}) {
      if (text_.compare(pos_, std::string(word).size(), word) == 0) {
        pos_ += std::string(word).size();
        value.kind = word[0] == 'n' ? JsonValue::Kind::Null : JsonValue::Kind::Bool;
        value.string = word;
        return value;
      }
    }
    size_t start = pos_;
    if (eat('-')) {
    }
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    if (pos_ == start)
      return std::nullopt;
    value.kind = JsonValue::Kind::Number;
    value.string = text_.substr(start, pos_ - start);
    size_t used = 0;
    value.number = std::stod(value.string, &used);
    if (used != value.string.size())
      return std::nullopt;
    return value;
  }

  std::string text_;
  size_t pos_ = 0;
};

/// A parsed record: ordered keys plus lookup.
struct JsonRecord {
  std::vector<std::string> keys;
  std::map<std::string, JsonValue> values;
  bool has(const std::string &key) const { return values.count(key) != 0; }
  std::string str(const std::string &key) const {
    auto it = values.find(key);
    return it == values.end() ? "<missing>" : it->second.string;
  }
  double num(const std::string &key) const {
    auto it = values.find(key);
    return it == values.end() ? -1 : it->second.number;
  }
};

inline std::optional<JsonRecord> parseRecord(const std::string &line) {
  auto object = JsonReader(line).object();
  if (!object)
    return std::nullopt;
  JsonRecord record;
  for (auto &entry : *object) {
    record.keys.push_back(entry.first);
    record.values[entry.first] = entry.second;
  }
  return record;
}

} // namespace dpk::test

#endif // DPK_TESTS_POLICY_TESTSUPPORT_H

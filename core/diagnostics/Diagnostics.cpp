// Diagnostics.cpp - the process-wide diagnostics sink: formatting (text and JSON lines), the
// file or stderr sink, the C callback and C++ hook, level-4 stage dumps, once-per-key warnings.
#include "diagnostics/Diagnostics.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace dpk::diag {

namespace detail {
std::atomic<int> CurrentLevel{0};
} // namespace detail

namespace {

struct SinkState {
  std::mutex mutex;
  Settings settings;
  std::FILE *file = nullptr; // owned; nullptr means stderr
  Callback callback = nullptr;
  void *payload = nullptr;
  std::shared_ptr<Hook> hook;
  std::set<std::string> onceKeys;
  unsigned dumpSequence = 0;
};

SinkState &state() {
  // Leaked on purpose: records may be emitted from other static destructors at exit.
  static SinkState *sink = new SinkState;
  return *sink;
}

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
    case '"':
      out += "\\\"";
      continue;
    case '\\':
      out += "\\\\";
      continue;
    case '\n':
      out += "\\n";
      continue;
    case '\t':
      out += "\\t";
      continue;
    case '\r':
      out += "\\r";
      continue;
    }
    if (u < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
      out += buffer;
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

std::string formatDouble(double value) {
  if (!std::isfinite(value))
    return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  return buffer;
}

/// Human wording of the events in docs/diagnostics.md: "{key}" is replaced by the field's text.
/// An event may have several templates; the first whose fields are all present is used. Fields a
/// template does not use follow as " key=value". Without a usable template a "message" field
/// becomes the sentence, and otherwise every field prints as key=value.
std::vector<const char *> textTemplates(std::string_view event) {
  struct Entry {
    const char *event;
    const char *text;
  };
  static const Entry templates[] = {
      {"plugin.load", "{backend} loaded from {path} ({devices} devices)"},
      {"plugin.skip", "{backend} not loaded ({path}): {reason}"},
      {"policy.load", "policy from {source}"},
      {"policy.decision", "{device} [{name}]: {reason} (rule: {rule})"},
      {"policy.decision", "{subject}: {decision} by {rule}"},
      {"device.select", "'{filter}' -> {device} [{name}]: {reason}"},
      {"device.select", "{kernel} -> {device} by {rule}"},
      {"kernel.compile", "{kernel} for {device} ({target}) in {time_ms} ms"},
      {"kernel.compile", "{kernel} for {device} in {time_ms} ms"},
      {"cache.hit", "{kernel} for {device} from {layer} in {time_ms} ms"},
      {"cache.hit", "{kernel} for {device} in {time_ms} ms"},
      {"cache.miss", "{kernel} for {device} in {time_ms} ms"},
      {"kernel.launch", "{kernel} on {device} [{name}]"},
      {"kernel.launch", "{kernel} on {device}"},
      {"transfer", "{bytes} bytes {direction} on {device} in {time_ms} ms"},
      {"transfer", "{bytes} bytes {direction} on {device}"},
      {"fallback", "{kernel}: {reason} on {from}, ran on {to}"},
      // Emitted by the Python frontend when a mixed-device launch migrates an array.
      {"placement.migrate", "{kernel}: argument {argument} {direction} {from} -> {to} ({bytes} bytes)"},
      {"dump", "{kernel} {stage} -> {path}"},
  };
  std::vector<const char *> found;
  for (const Entry &entry : templates)
    if (event == entry.event)
      found.push_back(entry.text);
  found.push_back("{message}"); // any event: a message field reads as the sentence
  return found;
}

const Field *findField(const Fields &fields, std::string_view key) {
  for (const Field &field : fields)
    if (field.key == key)
      return &field;
  return nullptr;
}

/// Renders a template; false when it names a field that is absent.
bool renderTemplate(const char *text, const Fields &fields, std::string &out,
                    std::set<std::string> &used) {
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t open = rest.find('{');
    if (open == std::string_view::npos) {
      out += rest;
      break;
    }
    out += rest.substr(0, open);
    size_t close = rest.find('}', open);
    std::string key(rest.substr(open + 1, close - open - 1));
    const Field *field = findField(fields, key);
    if (!field)
      return false;
    out += field->value.text();
    used.insert(key);
    rest.remove_prefix(close + 1);
  }
  return true;
}

/// A multi-line value (a build log) stays visibly one record: later lines are indented.
std::string indentContinuationLines(std::string text) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 3))
    text.replace(at, 1, "\n  ");
  return text;
}

int64_t nowMicroseconds() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

bool makeDirectories(const std::string &path) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty())
      continue;
    if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

std::string fileNamePart(std::string_view text) {
  std::string out;
  for (char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c
                                                                                            : '_';
  return out.empty() ? "_" : out;
}

} // namespace

std::string FieldValue::text() const {
  switch (kind_) {
  case Kind::String:
    return string_;
  case Kind::Int:
    return std::to_string(int_);
  case Kind::Uint:
    return std::to_string(uint_);
  case Kind::Double:
    return formatDouble(double_);
  case Kind::Bool:
    return bool_ ? "true" : "false";
  }
  return "";
}

std::string FieldValue::json() const {
  if (kind_ == Kind::String)
    return jsonEscape(string_);
  return text();
}

std::string formatText(int level, std::string_view event, const Fields &fields) {
  std::string line;
  const Field *message = findField(fields, "message");
  if (level == 0 && message) {
    // Warnings read as sentences; the structured fields are in the JSON form.
    line = "dpk warning: " + message->value.text();
    return indentContinuationLines(line);
  }
  line = "dpk[" + std::to_string(level) + "] " + std::string(event) + ":";
  std::string body;
  std::set<std::string> used;
  for (const char *text : textTemplates(event)) {
    if (renderTemplate(text, fields, body, used))
      break;
    body.clear();
    used.clear();
  }
  if (!body.empty())
    line += " " + body;
  for (const Field &field : fields) {
    if (used.count(field.key))
      continue;
    std::string value = field.value.text();
    bool quote = value.empty() || value.find(' ') != std::string::npos;
    line += " " + field.key + "=" + (quote ? jsonEscape(value) : value);
  }
  return indentContinuationLines(line);
}

std::string formatJson(int level, std::string_view event, const Fields &fields, int64_t timeUs,
                       long pid) {
  std::string line = "{\"level\":" + std::to_string(level) + ",\"event\":" + jsonEscape(event) +
                     ",\"time_us\":" + std::to_string(timeUs) + ",\"pid\":" + std::to_string(pid);
  for (const Field &field : fields) {
    if (field.key == "level" || field.key == "event" || field.key == "time_us" ||
        field.key == "pid")
      continue; // reserved keys are the record's own
    line += "," + jsonEscape(field.key) + ":" + field.value.json();
  }
  line += "}";
  return line;
}

Error configure(const Settings &settings) {
  std::FILE *file = nullptr;
  if (!settings.file.empty()) {
    file = std::fopen(settings.file.c_str(), "a");
    if (!file)
      return Error(DPK_ERROR_POLICY, "cannot open diagnostics file '" + settings.file +
                                         "': " + std::strerror(errno));
  }
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  if (sink.file)
    std::fclose(sink.file);
  sink.file = file;
  sink.settings = settings;
  detail::CurrentLevel.store(settings.level, std::memory_order_relaxed);
  return Error::success();
}

Settings settings() {
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  return sink.settings;
}

void emit(int level, std::string_view event, const Fields &fields) {
  if (!enabled(level))
    return;
  std::string json = formatJson(level, event, fields, nowMicroseconds(), static_cast<long>(::getpid()));
  SinkState &sink = state();
  Callback callback;
  void *payload;
  std::shared_ptr<Hook> hook;
  {
    std::lock_guard<std::mutex> lock(sink.mutex);
    std::string line = sink.settings.format == Format::Json
                           ? json
                           : formatText(level, event, fields);
    line += '\n';
    std::FILE *out = sink.file ? sink.file : stderr;
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
    callback = sink.callback;
    payload = sink.payload;
    hook = sink.hook;
  }
  // Outside the lock: a callback may emit records of its own.
  if (callback)
    callback(level, json.c_str(), payload);
  if (hook && *hook)
    (*hook)(level, json);
}

void setCallback(Callback callback, void *payload) {
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  sink.callback = callback;
  sink.payload = payload;
}

void setHook(Hook hook) {
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  sink.hook = hook ? std::make_shared<Hook>(std::move(hook)) : nullptr;
}

Expected<std::string> dumpStage(std::string_view kernel, std::string_view stage,
                                std::string_view extension, std::string_view bytes) {
  if (!enabled(4))
    return std::string();
  SinkState &sink = state();
  std::string dir;
  unsigned sequence;
  {
    std::lock_guard<std::mutex> lock(sink.mutex);
    dir = sink.settings.dumpDir.empty() ? "dpk-dump" : sink.settings.dumpDir;
    sequence = ++sink.dumpSequence;
  }
  if (!makeDirectories(dir))
    return Error(DPK_ERROR_GENERIC,
                 "cannot create dump folder '" + dir + "': " + std::strerror(errno));
  char number[16];
  std::snprintf(number, sizeof number, "%04u", sequence);
  std::string path = dir + "/" + fileNamePart(kernel) + "." + number + "." + fileNamePart(stage) +
                     "." + fileNamePart(extension);
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return Error(DPK_ERROR_GENERIC, "cannot write dump '" + path + "': " + std::strerror(errno));
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  bool closed = std::fclose(file) == 0;
  if (written != bytes.size() || !closed)
    return Error(DPK_ERROR_GENERIC, "cannot write dump '" + path + "': " + std::strerror(errno));
  emit(4, "dump",
       {{"kernel", kernel}, {"stage", stage}, {"path", path}, {"bytes", bytes.size()}});
  return path;
}

bool firstTime(std::string_view key) {
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  return sink.onceKeys.insert(std::string(key)).second;
}

void resetForTesting() {
  SinkState &sink = state();
  std::lock_guard<std::mutex> lock(sink.mutex);
  if (sink.file)
    std::fclose(sink.file);
  sink.file = nullptr;
  sink.settings = Settings{};
  sink.callback = nullptr;
  sink.payload = nullptr;
  sink.hook.reset();
  sink.onceKeys.clear();
  sink.dumpSequence = 0;
  detail::CurrentLevel.store(0, std::memory_order_relaxed);
}

} // namespace dpk::diag

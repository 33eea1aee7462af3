// DeviceFilter.cpp - parser, matcher and ranking for dpctl-style device filter strings.
#include "policy/DeviceFilter.h"

#include "support/DidYouMean.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

namespace dpk::policy {
namespace {

std::mutex &backendNamesMutex() {
  static std::mutex mutex;
  return mutex;
}

std::set<std::string> &backendNames() {
  // Built-in backends; plugins with other names register theirs before filters are parsed.
  static std::set<std::string> names{"host", "opencl", "level_zero", "cuda"};
  return names;
}

bool isKnownBackend(const std::string &name) {
  std::lock_guard<std::mutex> lock(backendNamesMutex());
  return backendNames().count(name) != 0;
}

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<dpk_device_type_t> parseDeviceType(const std::string &name) {
  if (name == "cpu")
    return DPK_DEVICE_TYPE_CPU;
  if (name == "gpu")
    return DPK_DEVICE_TYPE_GPU;
  if (name == "accelerator")
    return DPK_DEVICE_TYPE_ACCELERATOR;
  return std::nullopt;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Where a part sits in a term: backend, device type, index.
enum class Slot { Backend = 0, Type = 1, Index = 2 };

const char *slotName(Slot slot) {
  switch (slot) {
  case Slot::Backend:
    return "backend";
  case Slot::Type:
    return "device type";
  case Slot::Index:
    return "index";
  }
  return "?";
}

/// Recursive-descent parser over the whole text; every error records the offending offset.
class FilterParser {
public:
  explicit FilterParser(std::string_view text) : text_(text) {}

  Expected<FilterList> parse() {
    FilterList list;
    skipSpaces();
    if (pos_ == text_.size())
      return list; // "" and "   " place no restriction
    while (true) {
      DeviceTerm term;
      if (!parseTerm(term))
        return error();
      list.terms.push_back(std::move(term));
      skipSpaces();
      if (pos_ == text_.size())
        return list;
      if (text_[pos_] != ',') {
        fail(pos_, "expected ',' or the end of the filter, found " + describeChar(pos_));
        return error();
      }
      ++pos_;
    }
  }

private:
  void skipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool fail(size_t at, std::string what) {
    errorPos_ = at;
    errorWhat_ = std::move(what);
    return false;
  }

  Error error() const {
    std::string message = "malformed device filter at column " + std::to_string(errorPos_ + 1) +
                          ": " + errorWhat_ + "\n  ";
    // Show the text on one line; control characters would break the caret alignment.
    for (char c : text_)
      message += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    message += "\n  " + std::string(errorPos_, ' ') + "^";
    return Error(DPK_ERROR_PARSE, std::move(message));
  }

  std::string describeChar(size_t at) const {
    if (at >= text_.size())
      return "the end of the filter";
    unsigned char c = static_cast<unsigned char>(text_[at]);
    if (std::isprint(c))
      return std::string("'") + static_cast<char>(c) + "'";
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "byte 0x%02x", c);
    return buffer;
  }

  bool parseTerm(DeviceTerm &term) {
    skipSpaces();
    term.column = pos_;
    if (pos_ < text_.size() && text_[pos_] == '!') {
      term.exclude = true;
      ++pos_;
      skipSpaces();
    }
    int slot = 0; // the lowest slot the next part may take
    for (int part = 0;; ++part) {
      if (!parsePart(term, slot))
        return false;
      skipSpaces();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return true;
      if (part == 2)
        return fail(pos_, "a term has at most three parts (backend:device_type:index)");
      ++pos_;
      skipSpaces();
    }
  }

  bool parsePart(DeviceTerm &term, int &slot) {
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '*') {
      ++pos_;
      // A wildcard takes the lowest free slot: it matches anything wherever it sits.
      if (slot > 2)
        return fail(start, "nothing may follow the index");
      ++slot;
      return true;
    }
    while (pos_ < text_.size() && isNameChar(text_[pos_]))
      ++pos_;
    if (pos_ == start)
      return fail(start, "expected a backend, device type, index or '*', found " +
                             describeChar(start));
    std::string word = lowerCase(text_.substr(start, pos_ - start));

    Slot kind;
    if (std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      if (word.size() > 9)
        return fail(start, "index '" + word + "' is too large");
      kind = Slot::Index;
      term.index = static_cast<uint32_t>(std::stoul(word));
    } else if (auto type = parseDeviceType(word)) {
      kind = Slot::Type;
      term.type = *type;
    } else if (isKnownBackend(word)) {
      kind = Slot::Backend;
      term.backend = word;
    } else {
      std::vector<std::string> names = knownBackendNames();
      std::string known;
      for (const std::string &name : names)
        known += (known.empty() ? "" : ", ") + name;
      names.insert(names.end(), {"cpu", "gpu", "accelerator"});
      std::string close = closestName(word, names);
      if (!close.empty() || !isBackendName(word))
        return fail(start, "unknown backend or device type '" + word + "'" +
                               (close.empty() ? "" : " (did you mean '" + close + "'?)") +
                               " (backends: " + known + "; device types: cpu, gpu, accelerator)");
      // Another plugin's backend: plugins are found after the policy is read.
      kind = Slot::Backend;
      term.backend = word;
    }
    if (static_cast<int>(kind) < slot)
      return fail(start, std::string("a ") + slotName(kind) +
                             " cannot come here: parts go in the order "
                             "backend:device_type:index");
    slot = static_cast<int>(kind) + 1;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t errorPos_ = 0;
  std::string errorWhat_;
};

} // namespace

std::string DeviceTerm::str() const {
  std::string out = exclude ? "!" : "";
  std::vector<std::string> parts;
  if (backend)
    parts.push_back(*backend);
  if (type)
    parts.push_back(deviceTypeName(*type));
  if (index)
    parts.push_back(std::to_string(*index));
  if (parts.empty())
    return out + "*";
  // Wildcards are dropped: the part order is fixed, so "*:cpu:0" and "cpu:0" mean the same and
  // the short form is canonical.
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? ":" : "") + parts[i];
  return out;
}

bool FilterList::hasPositiveTerms() const {
  return std::any_of(terms.begin(), terms.end(), [](const DeviceTerm &t) { return !t.exclude; });
}

std::string FilterList::str() const {
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i)
    out += (i ? "," : "") + terms[i].str();
  return out;
}

Expected<FilterList> parseFilter(std::string_view text) { return FilterParser(text).parse(); }

void registerBackendName(std::string_view name) {
  std::lock_guard<std::mutex> lock(backendNamesMutex());
  backendNames().insert(lowerCase(name));
}

void unregisterBackendName(std::string_view name) {
  std::string lower = lowerCase(name);
  if (lower == "host" || lower == "opencl" || lower == "level_zero" || lower == "cuda")
    return;
  std::lock_guard<std::mutex> lock(backendNamesMutex());
  backendNames().erase(lower);
}

bool isBackendName(std::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> knownBackendNames() {
  std::lock_guard<std::mutex> lock(backendNamesMutex());
  return {backendNames().begin(), backendNames().end()};
}

const char *deviceTypeName(dpk_device_type_t type) {
  switch (type) {
  case DPK_DEVICE_TYPE_CPU:
    return "cpu";
  case DPK_DEVICE_TYPE_GPU:
    return "gpu";
  case DPK_DEVICE_TYPE_ACCELERATOR:
    return "accelerator";
  }
  return "unknown";
}

std::string DeviceIdentity::str() const {
  return backend + ":" + deviceTypeName(type) + ":" + std::to_string(index);
}

bool matches(const DeviceTerm &term, const DeviceIdentity &device) {
  if (term.backend && *term.backend != device.backend)
    return false;
  if (term.type && *term.type != device.type)
    return false;
  if (term.index && *term.index != device.index)
    return false;
  return true;
}

DeviceRanking rankDevices(const FilterList &filter, const std::vector<DeviceIdentity> &devices) {
  std::vector<size_t> positive;
  for (size_t i = 0; i < filter.terms.size(); ++i)
    if (!filter.terms[i].exclude)
      positive.push_back(i);

  DeviceRanking ranking;
  std::vector<std::pair<size_t, DeviceVerdict>> eligible; // (rank, verdict)
  for (size_t d = 0; d < devices.size(); ++d) {
    DeviceVerdict verdict;
    verdict.device = d;
    const DeviceIdentity &device = devices[d];

    auto excluding = std::find_if(filter.terms.begin(), filter.terms.end(),
                                  [&](const DeviceTerm &t) { return t.exclude && matches(t, device); });
    if (excluding != filter.terms.end()) {
      verdict.term = static_cast<int>(excluding - filter.terms.begin());
      verdict.reason = "excluded by '" + excluding->str() + "'";
      ranking.rejected.push_back(std::move(verdict));
      continue;
    }
    if (positive.empty()) {
      verdict.eligible = true;
      verdict.reason = filter.empty() ? "no filter: every device is eligible"
                                      : "not excluded by '" + filter.str() + "'";
      eligible.emplace_back(0, std::move(verdict));
      continue;
    }
    auto rank = std::find_if(positive.begin(), positive.end(),
                             [&](size_t t) { return matches(filter.terms[t], device); });
    if (rank == positive.end()) {
      verdict.reason = "matches no alternative of '" + filter.str() + "'";
      ranking.rejected.push_back(std::move(verdict));
      continue;
    }
    verdict.eligible = true;
    verdict.term = static_cast<int>(*rank);
    size_t alternative = static_cast<size_t>(rank - positive.begin());
    verdict.reason = "matches '" + filter.terms[*rank].str() + "' (alternative " +
                     std::to_string(alternative + 1) + " of " + std::to_string(positive.size()) +
                     ")";
    eligible.emplace_back(alternative, std::move(verdict));
  }
  std::stable_sort(eligible.begin(), eligible.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &entry : eligible)
    ranking.eligible.push_back(std::move(entry.second));
  return ranking;
}

namespace {
/// True when exclusion `e` removes every device that positive term `t` can match on `backend`.
bool exclusionCovers(const DeviceTerm &e, const DeviceTerm &t, std::string_view backend) {
  if (e.backend && *e.backend != backend)
    return false;
  if (e.type && (!t.type || *t.type != *e.type))
    return false;
  if (e.index && (!t.index || *t.index != *e.index))
    return false;
  return true;
}
} // namespace

bool backendMayMatch(const FilterList &filter, std::string_view backend) {
  DeviceTerm anything; // a filter without positive terms behaves like "*"
  std::vector<const DeviceTerm *> positive;
  for (const DeviceTerm &t : filter.terms)
    if (!t.exclude)
      positive.push_back(&t);
  if (positive.empty())
    positive.push_back(&anything);

  for (const DeviceTerm *t : positive) {
    if (t->backend && *t->backend != backend)
      continue;
    bool covered = std::any_of(filter.terms.begin(), filter.terms.end(), [&](const DeviceTerm &e) {
      return e.exclude && exclusionCovers(e, *t, backend);
    });
    if (!covered)
      return true;
  }
  return false;
}

} // namespace dpk::policy

// Spelling.h - "did you mean" support shared by the filter parser and the YAML reader (internal
// to dpk_policy).
#ifndef DPK_CORE_POLICY_SPELLING_H
#define DPK_CORE_POLICY_SPELLING_H

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace dpk::policy {

/// Levenshtein distance between two short names.
inline size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The allowed name closest to `given` if it is at most two edits away (a likely typo), else "".
inline std::string closestName(std::string_view given, const std::vector<std::string> &allowed) {
  std::string best;
  size_t bestDistance = 3;
  for (const std::string &name : allowed) {
    size_t distance = editDistance(given, name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = name;
    }
  }
  return best;
}

} // namespace dpk::policy

#endif // DPK_CORE_POLICY_SPELLING_H

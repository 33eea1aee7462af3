// FilterTest.cpp - the device filter parser (valid and invalid strings, error columns), the
// matcher, ranking and the pre-dlopen backend check.
#include "policy/DeviceFilter.h"

#include <gtest/gtest.h>

using namespace dpk::policy;

namespace {

FilterList parseOk(std::string_view text) {
  dpk::Expected<FilterList> filter = parseFilter(text);
  EXPECT_TRUE(filter) << text << ": " << filter.error().message();
  return filter ? *filter : FilterList{};
}

/// The 1-based column the error message names, and checks that the caret sits under it.
size_t errorColumn(std::string_view text) {
  dpk::Expected<FilterList> filter = parseFilter(text);
  EXPECT_FALSE(filter) << "'" << text << "' should not parse";
  if (filter)
    return 0;
  EXPECT_EQ(filter.error().status(), DPK_ERROR_PARSE);
  const std::string &message = filter.error().message();
  size_t at = message.find("at column ");
  EXPECT_NE(at, std::string::npos) << message;
  size_t column = std::stoul(message.substr(at + 10));
  // Last line: two spaces, then column-1 spaces, then the caret.
  size_t lastLine = message.rfind('\n');
  std::string caretLine = message.substr(lastLine + 1);
  EXPECT_EQ(caretLine, std::string(2 + column - 1, ' ') + "^") << message;
  // The line before repeats the text.
  size_t textLine = message.rfind('\n', lastLine - 1);
  EXPECT_EQ(message.substr(textLine + 1, lastLine - textLine - 1), "  " + std::string(text));
  return column;
}

DeviceIdentity dev(const char *backend, dpk_device_type_t type, uint32_t index) {
  return {backend, type, index};
}

} // namespace

TEST(FilterParse, FullTerm) {
  FilterList f = parseOk("level_zero:gpu:0");
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_EQ(f.terms[0].backend, "level_zero");
  EXPECT_EQ(f.terms[0].type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(f.terms[0].index, 0u);
  EXPECT_FALSE(f.terms[0].exclude);
  EXPECT_EQ(f.str(), "level_zero:gpu:0");
}

TEST(FilterParse, SinglePartsAreClassified) {
  FilterList cpu = parseOk("cpu");
  EXPECT_FALSE(cpu.terms[0].backend);
  EXPECT_EQ(cpu.terms[0].type, DPK_DEVICE_TYPE_CPU);
  FilterList opencl = parseOk("opencl");
  EXPECT_EQ(opencl.terms[0].backend, "opencl");
  EXPECT_FALSE(opencl.terms[0].type);
  FilterList index = parseOk("3");
  EXPECT_EQ(index.terms[0].index, 3u);
  EXPECT_FALSE(index.terms[0].backend);
  FilterList host = parseOk("host");
  EXPECT_EQ(host.terms[0].backend, "host");
  FilterList star = parseOk("*");
  EXPECT_EQ(star.str(), "*");
}

TEST(FilterParse, TwoParts) {
  EXPECT_EQ(parseOk("opencl:cpu").terms[0].type, DPK_DEVICE_TYPE_CPU);
  EXPECT_EQ(parseOk("cuda:gpu").str(), "cuda:gpu");
  FilterList typeIndex = parseOk("gpu:1");
  EXPECT_EQ(typeIndex.terms[0].type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(typeIndex.terms[0].index, 1u);
  FilterList backendIndex = parseOk("opencl:2");
  EXPECT_EQ(backendIndex.terms[0].backend, "opencl");
  EXPECT_EQ(backendIndex.terms[0].index, 2u);
}

TEST(FilterParse, Wildcards) {
  FilterList f = parseOk("!opencl:*");
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_TRUE(f.terms[0].exclude);
  EXPECT_EQ(f.terms[0].backend, "opencl");
  EXPECT_FALSE(f.terms[0].type);
  EXPECT_EQ(f.str(), "!opencl");
  EXPECT_EQ(parseOk("*:gpu").terms[0].type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(parseOk("*:*:0").terms[0].index, 0u);
  EXPECT_EQ(parseOk("opencl:*:1").terms[0].index, 1u);
  EXPECT_EQ(parseOk("*:*:*").str(), "*");
}

TEST(FilterParse, AlternativesAndExclusions) {
  FilterList f = parseOk("gpu,cpu");
  ASSERT_EQ(f.terms.size(), 2u);
  EXPECT_EQ(f.terms[0].type, DPK_DEVICE_TYPE_GPU);
  EXPECT_EQ(f.terms[1].type, DPK_DEVICE_TYPE_CPU);
  FilterList mixed = parseOk(" cuda:gpu , !opencl:cpu ,host ");
  ASSERT_EQ(mixed.terms.size(), 3u);
  EXPECT_TRUE(mixed.terms[1].exclude);
  EXPECT_EQ(mixed.terms[1].column, 12u);
  EXPECT_EQ(mixed.str(), "cuda:gpu,!opencl:cpu,host");
  EXPECT_TRUE(mixed.hasPositiveTerms());
  EXPECT_FALSE(parseOk("!cuda,!opencl").hasPositiveTerms());
}

TEST(FilterParse, CaseInsensitiveAndEmpty) {
  EXPECT_EQ(parseOk("OpenCL:GPU").str(), "opencl:gpu");
  EXPECT_TRUE(parseOk("").empty());
  EXPECT_TRUE(parseOk("   ").empty());
}

TEST(FilterParse, ErrorsPointAtTheBadCharacter) {
  EXPECT_EQ(errorColumn("opecl"), 1u);          // unknown name
  EXPECT_EQ(errorColumn("opencl,opecl:gpu"), 8u);
  EXPECT_EQ(errorColumn("opencl::gpu"), 8u);    // empty part
  EXPECT_EQ(errorColumn("gpu,,cpu"), 5u);       // empty alternative
  EXPECT_EQ(errorColumn("gpu,"), 5u);           // trailing comma
  EXPECT_EQ(errorColumn(",gpu"), 1u);
  EXPECT_EQ(errorColumn("gpu:opencl"), 5u);     // backend after type
  EXPECT_EQ(errorColumn("0:gpu"), 3u);          // type after index
  EXPECT_EQ(errorColumn("cpu:gpu"), 5u);        // two types
  EXPECT_EQ(errorColumn("opencl:gpu:0:1"), 13u); // four parts
  EXPECT_EQ(errorColumn("cuda:gpu:*:"), 11u);   // nothing may follow the index slot
  EXPECT_EQ(errorColumn("!"), 2u);
  EXPECT_EQ(errorColumn("!!cuda"), 2u);
  EXPECT_EQ(errorColumn("cuda gpu"), 6u);       // missing ':'
  EXPECT_EQ(errorColumn("cuda;gpu"), 5u);
  EXPECT_EQ(errorColumn("gpu:99999999999"), 5u); // index too large
  EXPECT_EQ(errorColumn("host:cpu:-1"), 10u);
}

TEST(FilterParse, ErrorMessagesSayWhat) {
  auto message = [](std::string_view text) { return parseFilter(text).error().message(); };
  EXPECT_NE(message("opecl").find("unknown backend or device type 'opecl' (did you mean "
                                  "'opencl'?) (backends: cuda, host, level_zero, opencl"),
            std::string::npos)
      << message("opecl");
  EXPECT_NE(message("cpu:gpu").find("a device type cannot come here"), std::string::npos);
  EXPECT_NE(message("gpu\x01").find("found byte 0x01"), std::string::npos) << message("gpu\x01");
}

TEST(FilterParse, OtherPluginsAndTypos) {
  // A test or third-party plugin's backend is accepted: plugins are found after the policy.
  EXPECT_EQ(parseOk("!fault:*").terms[0].backend, "fault");
  EXPECT_EQ(parseOk("my_backend2:gpu").terms[0].backend, "my_backend2");
  // Near misses of known names are typos.
  auto message = [](std::string_view text) { return parseFilter(text).error().message(); };
  EXPECT_NE(message("opecl").find("'opecl' (did you mean 'opencl'?)"), std::string::npos);
  EXPECT_NE(message("gpuu").find("(did you mean 'gpu'?)"), std::string::npos);
  EXPECT_NE(message("levelzero").find("(did you mean 'level_zero'?)"), std::string::npos);
  EXPECT_NE(message("cuda:acelerator").find("(did you mean 'accelerator'?)"), std::string::npos);
  EXPECT_EQ(errorColumn("3d"), 1u); // names start with a letter
  // Registered names are listed in messages; built-in names cannot be removed.
  registerBackendName("NullBackend");
  EXPECT_NE(message("opecl").find("nullbackend"), std::string::npos);
  unregisterBackendName("nullbackend");
  EXPECT_EQ(message("opecl").find("nullbackend"), std::string::npos);
  unregisterBackendName("host");
  EXPECT_TRUE(parseFilter("host"));
  EXPECT_TRUE(isBackendName("level_zero"));
  EXPECT_FALSE(isBackendName("Level"));
  EXPECT_FALSE(isBackendName("_x"));
}

TEST(FilterMatch, PartsMustAllMatch) {
  DeviceIdentity ocl = dev("opencl", DPK_DEVICE_TYPE_CPU, 0);
  EXPECT_TRUE(matches(parseOk("opencl").terms[0], ocl));
  EXPECT_TRUE(matches(parseOk("cpu").terms[0], ocl));
  EXPECT_TRUE(matches(parseOk("opencl:cpu:0").terms[0], ocl));
  EXPECT_TRUE(matches(parseOk("*").terms[0], ocl));
  EXPECT_FALSE(matches(parseOk("opencl:gpu").terms[0], ocl));
  EXPECT_FALSE(matches(parseOk("cuda").terms[0], ocl));
  EXPECT_FALSE(matches(parseOk("opencl:cpu:1").terms[0], ocl));
  EXPECT_EQ(ocl.str(), "opencl:cpu:0");
}

TEST(FilterRank, PreferenceOrderThenInputOrder) {
  std::vector<DeviceIdentity> devices = {
      dev("host", DPK_DEVICE_TYPE_CPU, 0), dev("opencl", DPK_DEVICE_TYPE_CPU, 0),
      dev("cuda", DPK_DEVICE_TYPE_GPU, 0), dev("opencl", DPK_DEVICE_TYPE_GPU, 0),
      dev("cuda", DPK_DEVICE_TYPE_GPU, 1)};
  DeviceRanking r = rankDevices(parseOk("gpu,cpu"), devices);
  ASSERT_EQ(r.eligible.size(), 5u);
  std::vector<size_t> order;
  for (const DeviceVerdict &v : r.eligible)
    order.push_back(v.device);
  EXPECT_EQ(order, (std::vector<size_t>{2, 3, 4, 0, 1}));
  EXPECT_EQ(r.eligible[0].reason, "matches 'gpu' (alternative 1 of 2)");
  EXPECT_EQ(r.eligible[3].reason, "matches 'cpu' (alternative 2 of 2)");
}

TEST(FilterRank, ExclusionsAndNonMatches) {
  std::vector<DeviceIdentity> devices = {dev("host", DPK_DEVICE_TYPE_CPU, 0),
                                         dev("opencl", DPK_DEVICE_TYPE_CPU, 0),
                                         dev("cuda", DPK_DEVICE_TYPE_GPU, 0)};
  DeviceRanking r = rankDevices(parseOk("!opencl:*"), devices);
  ASSERT_EQ(r.eligible.size(), 2u);
  EXPECT_EQ(r.eligible[0].device, 0u);
  EXPECT_EQ(r.eligible[1].device, 2u);
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_EQ(r.rejected[0].device, 1u);
  EXPECT_EQ(r.rejected[0].reason, "excluded by '!opencl'");
  EXPECT_EQ(r.rejected[0].term, 0);

  DeviceRanking c = rankDevices(parseOk("cuda:gpu,host,!host"), devices);
  ASSERT_EQ(c.eligible.size(), 1u);
  EXPECT_EQ(c.eligible[0].device, 2u);
  ASSERT_EQ(c.rejected.size(), 2u);
  EXPECT_EQ(c.rejected[0].reason, "excluded by '!host'");
  EXPECT_EQ(c.rejected[1].reason, "matches no alternative of 'cuda:gpu,host,!host'");

  DeviceRanking all = rankDevices(FilterList{}, devices);
  EXPECT_EQ(all.eligible.size(), 3u);
  EXPECT_TRUE(all.rejected.empty());
}

TEST(FilterBackend, WhichPluginsMayBeLoaded) {
  auto may = [](const char *filter, const char *backend) {
    return backendMayMatch(parseOk(filter), backend);
  };
  EXPECT_FALSE(may("!opencl:*", "opencl"));
  EXPECT_TRUE(may("!opencl:*", "cuda"));
  EXPECT_TRUE(may("!opencl:*", "host"));
  EXPECT_TRUE(may("cuda:gpu", "cuda"));
  EXPECT_FALSE(may("cuda:gpu", "opencl"));
  EXPECT_FALSE(may("cuda:gpu", "host"));
  // Nothing can be ruled out by backend: any backend may have GPUs or CPUs.
  for (const char *backend : {"host", "opencl", "cuda", "level_zero"})
    EXPECT_TRUE(may("gpu,cpu", backend)) << backend;
  EXPECT_TRUE(may("host", "host"));
  EXPECT_FALSE(may("host", "opencl"));
  // Only the GPUs of opencl are excluded; its CPUs may still be used.
  EXPECT_TRUE(may("!opencl:gpu", "opencl"));
  // The one positive term is excluded entirely.
  EXPECT_FALSE(may("opencl:cpu,!opencl", "opencl"));
  EXPECT_FALSE(may("opencl:cpu:0,!cpu", "opencl"));
  EXPECT_TRUE(may("opencl:cpu,!opencl:cpu:1", "opencl"));
  EXPECT_TRUE(may("", "cuda"));
  EXPECT_FALSE(may("!*", "cuda"));
}

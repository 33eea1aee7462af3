// CacheStressTest.cpp - the kernel cache under several processes and under a hostile disk:
// processes compiling the same and different kernels into one cold cache at once, a warm run
// that must load every entry from disk, every entry corrupted (flipped, cut short, junk, empty,
// a FIFO), and a cache directory that cannot be written. Results are always checked; the
// children report every cache event (diagnostics level 2, through the C API's callback) and
// the parent checks what they say and what the directory holds.
#include "StressSupport.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace dpk::stress;
using dpk::test::ChildResult;

namespace {

constexpr uint64_t N = 1024;
constexpr int Deadline = 120; // seconds per child: a cold compile on every device, under ASan

/// The kernels one child launches: two every child shares, and one of its own.
std::vector<std::pair<std::string, int>> kernelsOfChild(int index) {
  return {{"stress_cache_a", 11}, {"stress_cache_b", 12}, {"stress_cache_own", 100 + index}};
}

// ---- the child: launch the kernels on every device, print every cache event -------------------

std::mutex eventsMutex;
std::vector<std::string> cacheEvents; // "<event> <layer> <key> <note>"

/// Pulls one string field out of a diagnostics JSON record ("" when absent).
std::string jsonField(const std::string &json, const std::string &key) {
  std::string marker = "\"" + key + "\":\"";
  size_t at = json.find(marker);
  if (at == std::string::npos)
    return {};
  std::string value;
  for (size_t i = at + marker.size(); i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\' && i + 1 < json.size())
      ++i;
    value += json[i];
  }
  return value;
}

void recordCacheEvent(int, const char *json, void *) {
  std::string record = json;
  std::string event = jsonField(record, "event");
  if (event != "cache.hit" && event != "cache.miss")
    return;
  std::lock_guard<std::mutex> lock(eventsMutex);
  cacheEvents.push_back(event + " " + jsonField(record, "layer") + " " +
                        jsonField(record, "key") + " " + jsonField(record, "note"));
}

/// Launches `kernel` (y = x*3 + y + bias) once on `device` and checks every element.
bool launchAndCheck(dpk_device_t device, dpk_kernel_t kernel, int bias, const std::string &what) {
  dpk_queue_t queue = nullptr;
  void *x = nullptr, *y = nullptr;
  std::vector<int32_t> hostX(N), hostY(N), out(N);
  for (uint64_t i = 0; i < N; ++i) {
    hostX[i] = static_cast<int32_t>(i);
    hostY[i] = static_cast<int32_t>(3 * i + 1);
  }
  int32_t k = 3;
  dpk_arg_t args[] = {{DPK_ARG_POINTER, sizeof(void *), nullptr},
                      {DPK_ARG_POINTER, sizeof(void *), nullptr},
                      {DPK_ARG_SCALAR, sizeof k, &k}};
  dpk_launch_config_t range{1, {N, 0, 0}, {0, 0, 0}};
  dpk_status_t status = dpk_queue_create(&queue, device, DPK_QUEUE_IN_ORDER);
  if (status == DPK_SUCCESS)
    status = dpk_mem_alloc(&x, device, DPK_MEM_DEVICE, N * 4);
  if (status == DPK_SUCCESS)
    status = dpk_mem_alloc(&y, device, DPK_MEM_DEVICE, N * 4);
  if (status == DPK_SUCCESS)
    status = dpk_enqueue_copy(nullptr, queue, x, hostX.data(), N * 4, 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_enqueue_copy(nullptr, queue, y, hostY.data(), N * 4, 0, nullptr);
  args[0].value = x;
  args[1].value = y;
  if (status == DPK_SUCCESS)
    status = dpk_enqueue_launch(nullptr, queue, kernel, &range, 3, args, 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_enqueue_copy(nullptr, queue, out.data(), y, N * 4, 0, nullptr);
  if (status == DPK_SUCCESS)
    status = dpk_queue_wait(queue);
  bool ok = status == DPK_SUCCESS;
  if (!ok)
    ADD_FAILURE() << what << ": " << dpk::conformance::lastError(status);
  for (uint64_t i = 0; ok && i < N; ++i)
    if (out[i] != axpyExpected(hostX[i], hostY[i], k, bias)) {
      ADD_FAILURE() << what << ": y[" << i << "] = " << out[i] << ", expected "
                    << axpyExpected(hostX[i], hostY[i], k, bias);
      ok = false;
    }
  if (queue) {
    dpk_queue_wait(queue);
    dpk_queue_release(queue);
  }
  if (x)
    dpk_mem_free(x);
  if (y)
    dpk_mem_free(y);
  return ok;
}

} // namespace

// Runs the child's kernels on every device and prints "STRESS-CACHE <event>" lines. Its index
// (STRESS_CHILD_INDEX) picks its own kernel.
TEST(StressCacheChild, LaunchEveryKernelOnEveryDevice) {
  DPK_CHILD_ONLY();
  const char *indexText = std::getenv("STRESS_CHILD_INDEX");
  int index = indexText ? std::atoi(indexText) : 0;
  DPK_ASSERT_OK(dpk_diagnostics_set_callback(recordCacheEvent, nullptr));
  std::vector<DeviceParam> params = devices();
  ASSERT_FALSE(params.empty()) << dpk_last_error();
  for (const auto &[name, bias] : kernelsOfChild(index)) {
    std::string error;
    dpk_program_t program = irProgram(axpyIr(name, bias), name + ".dpkir", error);
    ASSERT_NE(program, nullptr) << error;
    dpk_kernel_t kernel = nullptr;
    DPK_ASSERT_OK(dpk_kernel_get(&kernel, program, name.c_str()));
    for (const DeviceParam &param : params) {
      dpk_device_t device = nullptr;
      DPK_ASSERT_OK(dpk_device_get(&device, param.index));
      launchAndCheck(device, kernel, bias, name + " on " + param.filter);
      dpk_device_release(device);
    }
    dpk_kernel_release(kernel);
    dpk_program_release(program);
  }
  DPK_ASSERT_OK(dpk_diagnostics_set_callback(nullptr, nullptr));
  std::lock_guard<std::mutex> lock(eventsMutex);
  for (const std::string &event : cacheEvents)
    std::printf("STRESS-CACHE %s\n", event.c_str());
  std::fflush(stdout);
}

namespace {

/// What a child said about the cache, one entry per "STRESS-CACHE" line.
struct CacheReport {
  std::vector<std::string> events; // "<event> <layer> <key> <note>"
  size_t count(const std::string &prefix) const {
    size_t n = 0;
    for (const std::string &event : events)
      n += event.rfind(prefix, 0) == 0;
    return n;
  }
  size_t withNote(const std::string &text) const {
    size_t n = 0;
    for (const std::string &event : events)
      n += event.find(text) != std::string::npos;
    return n;
  }
  std::string all() const {
    std::string text;
    for (const std::string &event : events)
      text += "  " + event + "\n";
    return text;
  }
};

CacheReport reportOf(const ChildResult &child) {
  CacheReport report;
  std::istringstream lines(child.output);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("STRESS-CACHE ", 0) == 0)
      report.events.push_back(line.substr(13));
  return report;
}

std::vector<std::pair<std::string, std::string>> childEnvironment(const std::string &cache,
                                                                  int index) {
  return {{"DPK_CACHE_DIR", cache},
          {"DPK_DIAGNOSTICS", "2"},
          {"STRESS_CHILD_INDEX", std::to_string(index)}};
}

/// Runs `count` children at once (indices first..first+count-1) on `cache`.
std::vector<ChildResult> runChildren(const std::string &cache, int first, int count,
                                     const std::string &what) {
  std::vector<ChildResult> results(count);
  std::vector<bool> passed(count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      results[i] = dpk::test::runChildTest("StressCacheChild.LaunchEveryKernelOnEveryDevice",
                                           childEnvironment(cache, first + i), Deadline);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int i = 0; i < count; ++i) {
    const ChildResult &result = results[i];
    std::string name = what + " child " + std::to_string(first + i);
    if (result.timedOut)
      ADD_FAILURE() << name << " hung (killed after " << Deadline << " s)\n" << result.output;
    else if (result.signal)
      ADD_FAILURE() << name << " crashed (signal " << result.signal << ")\n" << result.output;
    else if (result.exitCode != 0 ||
             result.output.find("[  PASSED  ] 1 test") == std::string::npos)
      ADD_FAILURE() << name << " failed (exit " << result.exitCode << ")\n" << result.output;
  }
  return results;
}

/// Checks that the cache directory holds only complete entries: <2 hex>/<64 hex>.bin regular
/// files, no temporaries left behind, no links or FIFOs; returns the entry digests.
std::set<std::string> checkEntries(const std::string &cache) {
  TreeListing listing = listTree(cache);
  for (const std::string &other : listing.others)
    ADD_FAILURE() << "cache holds something that is not an entry: " << other;
  std::set<std::string> digests;
  for (const std::string &file : listing.regularFiles) {
    bool named = file.size() == 2 + 1 + 64 + 4 && file[2] == '/' &&
                 file.compare(0, 2, file, 3, 2) == 0 && file.substr(67) == ".bin" &&
                 file.find_first_not_of("0123456789abcdef", 3) == 67;
    EXPECT_TRUE(named) << "not an entry name (a temporary left behind?): " << file;
    struct stat info;
    EXPECT_EQ(::stat((cache + "/" + file).c_str(), &info), 0);
    EXPECT_GT(info.st_size, 64) << file << " is too small to be an entry";
    if (named)
      digests.insert(file.substr(3, 64));
  }
  return digests;
}

size_t deviceCount() {
  uint32_t count = 0;
  dpk_device_count(&count);
  return count;
}

} // namespace

// N processes start at once on one empty cache directory; each compiles two shared kernels and
// one of its own for every device. All results are correct, the directory holds exactly one
// complete entry per (kernel, device), and a second, warm round loads every kernel from disk.
TEST(StressCache, ConcurrentColdProcessesShareOneCache) {
  const int children = scaled(4, 16);
  std::string cache = makeScratchDirectory("shared-cache");
  ASSERT_FALSE(cache.empty());
  std::vector<ChildResult> cold = runChildren(cache, 0, children, "cold");
  std::set<std::string> digests = checkEntries(cache);
  size_t devicesHere = deviceCount();
  // Two shared kernels and one per child, on every device (one launch shape each).
  EXPECT_EQ(digests.size(), (2 + children) * devicesHere)
      << "entries: " << digests.size() << " for " << children << " children on " << devicesHere
      << " devices";
  size_t coldLookups = 0;
  for (const ChildResult &child : cold) {
    CacheReport report = reportOf(child);
    coldLookups += report.events.size();
    EXPECT_EQ(report.withNote("corrupt"), 0u) << report.all();
    EXPECT_EQ(report.withNote("could not write"), 0u) << report.all();
  }
  EXPECT_EQ(coldLookups, 3 * devicesHere * children);

  std::vector<ChildResult> warm = runChildren(cache, 0, children, "warm");
  for (const ChildResult &child : warm) {
    CacheReport report = reportOf(child);
    EXPECT_EQ(report.count("cache.miss"), 0u) << "a warm run compiled again:\n" << report.all();
    EXPECT_EQ(report.count("cache.hit disk"), 3 * devicesHere) << report.all();
  }
  EXPECT_EQ(checkEntries(cache), digests) << "the warm run changed the entries";
  removeTree(cache);
}

namespace {

/// Ways to break an entry file, applied in turn to the entries of a populated cache.
enum class Damage { FlipByte, CutShort, Junk, Empty, Fifo, HeaderOnly };
const char *damageName(Damage damage) {
  switch (damage) {
  case Damage::FlipByte: return "a flipped byte";
  case Damage::CutShort: return "cut to half";
  case Damage::Junk: return "junk";
  case Damage::Empty: return "empty";
  case Damage::Fifo: return "a FIFO";
  case Damage::HeaderOnly: return "only the header";
  }
  return "?";
}

void damage(const std::string &path, Damage how) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  ::unlink(path.c_str());
  if (how == Damage::Fifo) {
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
    return;
  }
  switch (how) {
  case Damage::FlipByte: bytes[bytes.size() * 2 / 3] ^= 0x5a; break;
  case Damage::CutShort: bytes.resize(bytes.size() / 2); break;
  case Damage::Junk: bytes.assign(bytes.size(), '\x7f'); break;
  case Damage::Empty: bytes.clear(); break;
  case Damage::HeaderOnly: bytes.resize(64); break;
  case Damage::Fifo: break;
  }
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

} // namespace

// Every entry of a populated cache is damaged in one of six ways. The next run gets correct
// results, says "discarded corrupt entry" (or that the file is no regular file) for each, and
// rebuilds them; the run after that loads everything from disk again.
TEST(StressCache, CorruptedEntriesAreDiscardedAndRebuilt) {
  std::string cache = makeScratchDirectory("corrupt-cache");
  ASSERT_FALSE(cache.empty());
  runChildren(cache, 0, 1, "populate");
  std::set<std::string> digests = checkEntries(cache);
  ASSERT_FALSE(digests.empty());
  int which = 0;
  std::map<std::string, Damage> damaged;
  for (const std::string &digest : digests) {
    Damage how = static_cast<Damage>(which++ % 6);
    damage(cache + "/" + digest.substr(0, 2) + "/" + digest + ".bin", how);
    damaged[digest.substr(0, 16)] = how;
  }
  std::vector<ChildResult> broken = runChildren(cache, 0, 1, "corrupted");
  CacheReport report = reportOf(broken[0]);
  EXPECT_EQ(report.count("cache.miss"), digests.size()) << report.all();
  for (const std::string &event : report.events) {
    std::istringstream fields(event);
    std::string name, layer, key;
    fields >> name >> layer >> key;
    auto found = damaged.find(key);
    ASSERT_NE(found, damaged.end()) << "an entry that was not damaged: " << event;
    EXPECT_TRUE(event.find("discarded corrupt entry") != std::string::npos ||
                event.find("not a regular file") != std::string::npos)
        << "no diagnostic for an entry that was " << damageName(found->second) << ": " << event;
  }
  EXPECT_EQ(checkEntries(cache), digests) << "the damaged entries were not rebuilt";
  std::vector<ChildResult> again = runChildren(cache, 0, 1, "rebuilt");
  CacheReport warm = reportOf(again[0]);
  EXPECT_EQ(warm.count("cache.hit disk"), digests.size()) << warm.all();
  removeTree(cache);
}

// The cache directory cannot be written: a regular file stands where it should be, it is under
// /proc, or it has no write permission (only effective when not running as root). Results are
// correct and every compile says "could not write entry"; nothing is left behind.
TEST(StressCache, UnwritableCacheDirectory) {
  std::string scratch = makeScratchDirectory("unwritable");
  ASSERT_FALSE(scratch.empty());
  std::string file = scratch + "/a-file";
  std::ofstream(file) << "not a directory";
  std::string readOnly = scratch + "/read-only";
  ASSERT_EQ(::mkdir(readOnly.c_str(), 0500), 0);
  struct Case {
    std::string directory;
    bool mustFail; // writing must fail (a read-only folder does not stop root)
  };
  std::vector<Case> cases = {{file + "/cache", true},
                             {"/proc/dpk-stress-unwritable-cache", true},
                             {readOnly, ::geteuid() != 0}};
  for (const Case &c : cases) {
    SCOPED_TRACE("DPK_CACHE_DIR=" + c.directory);
    for (int run = 0; run < 2; ++run) {
      std::vector<ChildResult> results = runChildren(c.directory, 0, 1, "unwritable");
      CacheReport report = reportOf(results[0]);
      EXPECT_FALSE(report.events.empty());
      if (c.mustFail) {
        EXPECT_EQ(report.count("cache.hit disk"), 0u) << report.all();
        EXPECT_EQ(report.count("cache.miss"), report.events.size()) << report.all();
        EXPECT_EQ(report.withNote("could not write entry"), report.events.size())
            << report.all();
      }
    }
  }
  struct stat info;
  EXPECT_EQ(::stat((file + "/cache").c_str(), &info), -1);
  if (::geteuid() != 0) {
    EXPECT_TRUE(listTree(readOnly).regularFiles.empty());
  }
  removeTree(scratch);
}

// DiagnosticsTest.cpp - the diagnostics sink: level gating, text and JSON lines at each level
// (parsed back), the C callback and C++ hook, stage dumps, once-per-key and thread safety.
#include "diagnostics/Diagnostics.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <thread>

using namespace dpk;
using DiagnosticsFormat = dpk::diag::Format;
using DiagnosticsSettings = dpk::diag::Settings;

namespace {

class Diagnostics : public ::testing::Test {
protected:
  void SetUp() override {
    diag::resetForTesting();
    dir = test::makeTempDir();
  }
  void TearDown() override { diag::resetForTesting(); }

  /// Sends records to a fresh file and returns its path.
  std::string configure(int level, DiagnosticsFormat format) {
    DiagnosticsSettings settings;
    settings.level = level;
    settings.format = format;
    settings.file = dir + "/diag." + std::to_string(counter++);
    settings.dumpDir = dir + "/dumps/nested";
    EXPECT_FALSE(diag::configure(settings));
    return settings.file;
  }

  /// One record of every level 1-4, the events the runtime emits.
  void emitOneOfEachLevel() {
    diag::emit(1, "kernel.launch", {{"kernel", "saxpy"}, {"device", "cuda:gpu:0"}});
    diag::emit(2, "plugin.load", {{"backend", "opencl"},
                                  {"path", "/usr/lib/dpk/plugins/libdpk_backend_opencl.so"},
                                  {"devices", 3u}});
    diag::emit(3, "transfer", {{"bytes", uint64_t(4096)},
                               {"direction", "h2d"},
                               {"device", "cuda:gpu:0"},
                               {"time_ms", 0.0125}});
    diag::emit(4, "dump", {{"kernel", "saxpy"}, {"stage", "ptx"}, {"path", "d/saxpy.ptx"}});
  }

  std::string dir;
  int counter = 0;
};

} // namespace

TEST_F(Diagnostics, LevelZeroOnlyWarnings) {
  EXPECT_TRUE(diag::enabled(0));
  EXPECT_FALSE(diag::enabled(1));
  std::string file = configure(0, DiagnosticsFormat::Text);
  emitOneOfEachLevel();
  diag::emit(0, "fallback", {{"kernel", "k"}, {"message", "kernel 'k' could not run"}});
  diag::emit(0, "fallback", {{"message", "build failed:\nline 1\nline 2\n"}});
  EXPECT_EQ(test::readFile(file), "dpk warning: kernel 'k' could not run\n"
                                  "dpk warning: build failed:\n  line 1\n  line 2\n");
}

TEST_F(Diagnostics, TextAtEachLevel) {
  const std::vector<std::string> expected = {
      "dpk[1] kernel.launch: saxpy on cuda:gpu:0",
      "dpk[2] plugin.load: opencl loaded from /usr/lib/dpk/plugins/libdpk_backend_opencl.so (3 "
      "devices)",
      "dpk[3] transfer: 4096 bytes h2d on cuda:gpu:0 in 0.013 ms",
      "dpk[4] dump: saxpy ptx -> d/saxpy.ptx"};
  for (int level = 1; level <= 4; ++level) {
    SCOPED_TRACE(level);
    std::string file = configure(level, DiagnosticsFormat::Text);
    emitOneOfEachLevel();
    std::vector<std::string> lines = test::lines(test::readFile(file));
    EXPECT_EQ(lines, std::vector<std::string>(expected.begin(), expected.begin() + level));
  }
}

TEST_F(Diagnostics, TextWithoutTemplate) {
  std::string file = configure(2, DiagnosticsFormat::Text);
  diag::emit(2, "custom.event", {{"a", 1}, {"b", "two words"}, {"c", true}, {"d", ""}});
  // A template whose field is missing falls back to key=value for everything.
  diag::emit(2, "plugin.load", {{"backend", "cuda"}});
  // The second template of an event, and a plugin's own event with a message.
  diag::emit(2, "kernel.launch", {{"kernel", "k"}, {"device", "host:cpu:0"}, {"ok", true}});
  diag::emit(2, "plugin.devices", {{"message", "2 platforms"}, {"backend", "opencl"}});
  EXPECT_EQ(test::readFile(file), "dpk[2] custom.event: a=1 b=\"two words\" c=true d=\"\"\n"
                                  "dpk[2] plugin.load: backend=cuda\n"
                                  "dpk[2] kernel.launch: k on host:cpu:0 ok=true\n"
                                  "dpk[2] plugin.devices: 2 platforms backend=opencl\n");
}

TEST_F(Diagnostics, JsonAtEachLevel) {
  const char *events[] = {"kernel.launch", "plugin.load", "transfer", "dump"};
  for (int level = 1; level <= 4; ++level) {
    SCOPED_TRACE(level);
    std::string file = configure(level, DiagnosticsFormat::Json);
    emitOneOfEachLevel();
    std::vector<std::string> lines = test::lines(test::readFile(file));
    ASSERT_EQ(lines.size(), static_cast<size_t>(level));
    for (int i = 0; i < level; ++i) {
      std::optional<test::JsonRecord> record = test::parseRecord(lines[i]);
      ASSERT_TRUE(record) << lines[i];
      EXPECT_EQ(record->num("level"), i + 1);
      EXPECT_EQ(record->str("event"), events[i]);
      ASSERT_GE(record->keys.size(), 4u);
      EXPECT_EQ(record->keys[0], "level");
      EXPECT_EQ(record->keys[1], "event");
      EXPECT_EQ(record->keys[2], "time_us");
      EXPECT_EQ(record->keys[3], "pid");
      EXPECT_GT(record->num("time_us"), 1.6e15); // microseconds since 1970, after 2020
      EXPECT_EQ(record->num("pid"), ::getpid());
    }
    if (level < 3)
      continue;
    test::JsonRecord transfer = *test::parseRecord(lines[2]);
    EXPECT_EQ(transfer.keys, (std::vector<std::string>{"level", "event", "time_us", "pid", "bytes",
                                                       "direction", "device", "time_ms"}));
    EXPECT_EQ(transfer.values["bytes"].kind, test::JsonValue::Kind::Number);
    EXPECT_EQ(transfer.num("bytes"), 4096);
    EXPECT_EQ(transfer.str("direction"), "h2d");
    EXPECT_DOUBLE_EQ(transfer.num("time_ms"), 0.013);
    test::JsonRecord load = *test::parseRecord(lines[1]);
    EXPECT_EQ(load.str("path"), "/usr/lib/dpk/plugins/libdpk_backend_opencl.so");
    EXPECT_EQ(load.num("devices"), 3);
  }
}

TEST_F(Diagnostics, JsonEscaping) {
  std::string file = configure(2, DiagnosticsFormat::Json);
  std::string nasty = "quote\" backslash\\ newline\n tab\t bell\x07 utf8 \xc3\xa9";
  diag::emit(2, "kernel.compile", {{"kernel", nasty}, {"ok", false}, {"neg", -5},
                                   {"level", 99} /* reserved: dropped */});
  std::vector<std::string> lines = test::lines(test::readFile(file));
  ASSERT_EQ(lines.size(), 1u);
  std::optional<test::JsonRecord> record = test::parseRecord(lines[0]);
  ASSERT_TRUE(record) << lines[0];
  EXPECT_EQ(record->str("kernel"), nasty);
  EXPECT_EQ(record->str("ok"), "false");
  EXPECT_EQ(record->num("neg"), -5);
  EXPECT_EQ(record->num("level"), 2);
}

TEST_F(Diagnostics, Stderr) {
  DiagnosticsSettings settings;
  settings.level = 1;
  ASSERT_FALSE(diag::configure(settings));
  testing::internal::CaptureStderr();
  diag::emit(1, "device.select",
             {{"kernel", "saxpy"}, {"device", "host:cpu:0"}, {"rule", "devices.prefer 'host'"}});
  diag::emit(2, "plugin.load", {{"backend", "host"}});
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "dpk[1] device.select: saxpy -> host:cpu:0 by devices.prefer 'host'\n");
}

namespace {
struct CallbackLog {
  std::vector<std::pair<int, std::string>> records;
};
void recordCallback(int level, const char *json, void *payload) {
  static_cast<CallbackLog *>(payload)->records.emplace_back(level, json);
}
} // namespace

TEST_F(Diagnostics, CallbackGetsJsonInEveryFormat) {
  configure(2, DiagnosticsFormat::Text);
  CallbackLog log;
  diag::setCallback(recordCallback, &log);
  emitOneOfEachLevel();
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].first, 1);
  EXPECT_EQ(log.records[1].first, 2);
  std::optional<test::JsonRecord> record = test::parseRecord(log.records[1].second);
  ASSERT_TRUE(record) << log.records[1].second;
  EXPECT_EQ(record->str("event"), "plugin.load");
  EXPECT_EQ(record->str("backend"), "opencl");
  diag::setCallback(nullptr, nullptr);
  emitOneOfEachLevel();
  EXPECT_EQ(log.records.size(), 2u);
}

TEST_F(Diagnostics, HookMayEmitWithoutDeadlock) {
  configure(1, DiagnosticsFormat::Json);
  std::vector<std::string> seen;
  diag::setHook([&](int level, const std::string &json) {
    seen.push_back(json);
    if (level == 1)
      diag::emit(0, "hook.echo", {{"message", "echo"}}); // re-entry from inside the hook
  });
  diag::emit(1, "kernel.launch", {{"kernel", "k"}, {"device", "host:cpu:0"}});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(test::parseRecord(seen[1])->str("event"), "hook.echo");
  diag::setHook(nullptr);
  diag::emit(1, "kernel.launch", {{"kernel", "k"}, {"device", "host:cpu:0"}});
  EXPECT_EQ(seen.size(), 2u);
}

TEST_F(Diagnostics, StageDumps) {
  configure(3, DiagnosticsFormat::Json);
  Expected<std::string> skipped = diag::dumpStage("saxpy", "llvm", "ll", "define void @x()");
  ASSERT_TRUE(skipped);
  EXPECT_EQ(*skipped, "");

  std::string file = configure(4, DiagnosticsFormat::Json);
  Expected<std::string> ir = diag::dumpStage("saxpy", "core-ir", "dpkir", "kernel saxpy {}");
  Expected<std::string> ptx = diag::dumpStage("ns::weird/name", "ptx", "ptx", std::string("\0x", 2));
  ASSERT_TRUE(ir) << ir.error().message();
  ASSERT_TRUE(ptx) << ptx.error().message();
  EXPECT_EQ(*ir, dir + "/dumps/nested/saxpy.0001.core-ir.dpkir");
  EXPECT_EQ(*ptx, dir + "/dumps/nested/ns__weird_name.0002.ptx.ptx");
  EXPECT_EQ(test::readFile(*ir), "kernel saxpy {}");
  EXPECT_EQ(test::readFile(*ptx), std::string("\0x", 2));
  std::vector<std::string> lines = test::lines(test::readFile(file));
  ASSERT_EQ(lines.size(), 2u);
  test::JsonRecord record = *test::parseRecord(lines[0]);
  EXPECT_EQ(record.str("event"), "dump");
  EXPECT_EQ(record.str("stage"), "core-ir");
  EXPECT_EQ(record.str("path"), *ir);
  EXPECT_EQ(record.num("bytes"), 15);
}

TEST_F(Diagnostics, DumpFolderThatCannotBeCreated) {
  DiagnosticsSettings settings;
  settings.level = 4;
  settings.file = dir + "/log";
  test::writeFile(dir + "/plainfile", "x");
  settings.dumpDir = dir + "/plainfile/sub";
  ASSERT_FALSE(diag::configure(settings));
  Expected<std::string> dump = diag::dumpStage("k", "ptx", "ptx", "x");
  ASSERT_FALSE(dump);
  EXPECT_NE(dump.error().message().find("cannot create dump folder"), std::string::npos);
}

TEST_F(Diagnostics, FirstTime) {
  EXPECT_TRUE(diag::firstTime("a"));
  EXPECT_FALSE(diag::firstTime("a"));
  EXPECT_TRUE(diag::firstTime("b"));
  diag::resetForTesting();
  EXPECT_TRUE(diag::firstTime("a"));
}

TEST_F(Diagnostics, BadFileKeepsThePreviousSink) {
  std::string file = configure(2, DiagnosticsFormat::Json);
  DiagnosticsSettings bad;
  bad.level = 4;
  bad.file = dir + "/no/such/folder/diag";
  Error error = diag::configure(bad);
  ASSERT_TRUE(error);
  EXPECT_EQ(error.status(), DPK_ERROR_POLICY);
  EXPECT_NE(error.message().find("cannot open diagnostics file '" + bad.file + "'"),
            std::string::npos);
  EXPECT_EQ(diag::settings().level, 2);
  diag::emit(2, "plugin.load", {{"backend", "host"}});
  EXPECT_EQ(test::lines(test::readFile(file)).size(), 1u);
}

TEST_F(Diagnostics, ConcurrentRecordsStayWhole) {
  std::string file = configure(3, DiagnosticsFormat::Json);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i)
        diag::emit(3, "kernel.launch",
                   {{"kernel", "k" + std::to_string(t)}, {"device", "host:cpu:0"}, {"i", i},
                    {"pad", std::string(200, 'x')}});
    });
  for (std::thread &thread : threads)
    thread.join();
  std::vector<std::string> lines = test::lines(test::readFile(file));
  ASSERT_EQ(lines.size(), 1600u);
  for (const std::string &line : lines)
    ASSERT_TRUE(test::parseRecord(line)) << line;
}

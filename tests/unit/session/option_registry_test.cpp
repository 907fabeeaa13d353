// OptionRegistry: one declaration feeds the command line, config files (read and
// written), the checkpoint's problem, the restore and the report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tessera/option_registry.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// A small app: two problem options, a run length with a compatibility alias, a string
// choice and a negated flag.
struct Declared {
  CLI::App cli{"test app", "app"};
  OptionRegistry registry{cli};
  std::vector<int> blocks{4, 4, 4};
  double tolerance = 1e-8;
  int iterations = 100;
  std::string exec = "dataflow";
  bool memory_check = true;

  Declared() {
    registry.add("--blocks", blocks, "block grid", OptionRole::problem)->expected(3);
    registry.add("--tolerance", tolerance, "tolerance", OptionRole::problem);
    registry.add("--iterations,--iters,--nit", iterations, "run length")
        ->check(CLI::Range(0, 1000));
    registry.add("--exec", exec, "model")->check(CLI::IsMember({"bsp", "dataflow"}));
    registry.add_flag("!--no-memory-check", memory_check, "skip the check");
  }
  void parse(std::vector<std::string> args) {
    std::vector<const char*> argv{"app"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    cli.parse(static_cast<int>(argv.size()), argv.data());
  }
};

class OptionConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            ("tessera-options-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".toml");
  }
  void TearDown() override { fs::remove(path_); }
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_.string();
  }
  fs::path path_;
};

TEST(OptionRegistry, AliasesSetTheOptionAndNameItsOwnName) {
  for (const char* spelling : {"--iterations", "--iters", "--nit"}) {
    Declared d;
    d.parse({spelling, "7"});
    EXPECT_EQ(d.iterations, 7) << spelling;
    EXPECT_EQ(d.registry.canonical(spelling), "--iterations");
    EXPECT_TRUE(d.registry.given("iters"));
    EXPECT_FALSE(d.registry.given("--blocks"));
  }
  Declared d;
  EXPECT_THROW(d.registry.canonical("--nope"), OptionError);
  d.cli.add_option("--undeclared", d.iterations);
  EXPECT_TRUE(d.registry.declares("nit"));
  EXPECT_FALSE(d.registry.declares("--undeclared"));
  EXPECT_FALSE(d.registry.declares("--nope"));
}

TEST(OptionRegistry, ARepeatedOptionOfSeveralValuesIsAProblemOptionButNotWritable) {
  Declared d;
  std::vector<std::vector<double>> objects;
  d.registry.add("--object", objects, "an object: 3 values, repeated", OptionRole::problem)
      ->expected(3)
      ->allow_extra_args(false);
  d.parse({"--object", "1", "2", "3", "--object", "4", "5", "6", "--blocks", "2", "2", "2"});
  EXPECT_EQ(objects, (std::vector<std::vector<double>>{{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(d.registry.problem()["--object"], nlohmann::json::parse("[[1, 2, 3], [4, 5, 6]]"));
  EXPECT_FALSE(d.registry.writable("--object"));
  EXPECT_TRUE(d.registry.writable("--blocks"));
  EXPECT_TRUE(d.registry.writable("--iters"));
  EXPECT_FALSE(d.registry.writable("--nope"));
  // Given again at a restart it must agree, as any problem option.
  EXPECT_THROW(d.registry.restore(nlohmann::json{{"--object", {{1, 2, 3}}}}, "ck.h5"), OptionError);
  d.registry.restore(nlohmann::json{{"--object", {{1, 2, 3}, {4, 5, 6}}}}, "ck.h5");
  Declared fresh;
  std::vector<std::vector<double>> stored;
  fresh.registry.add("--object", stored, "objects", OptionRole::problem)->expected(3);
  fresh.parse({});
  fresh.registry.restore(nlohmann::json{{"--object", {{7, 8, 9}}}}, "ck.h5");
  EXPECT_EQ(stored, (std::vector<std::vector<double>>{{7, 8, 9}}));
}

TEST(OptionRegistry, DefaultsAreShownInHelp) {
  Declared d;
  const std::string help = d.cli.help();
  EXPECT_NE(help.find("=100"), std::string::npos) << help;
  EXPECT_NE(help.find("=dataflow"), std::string::npos) << help;
}

TEST(OptionRegistry, ProblemHoldsOnlyProblemOptionsValuesHoldAll) {
  Declared d;
  d.parse({"--blocks", "2", "3", "4", "--iters", "5", "--no-memory-check"});
  EXPECT_EQ(d.registry.problem(), (nlohmann::json{{"--blocks", {2, 3, 4}}, {"--tolerance", 1e-8}}));
  const nlohmann::json values = d.registry.values();
  EXPECT_EQ(values.at("iterations"), 5);
  EXPECT_EQ(values.at("exec"), "dataflow");
  // A negated flag is reported as its name says: --no-memory-check given = true.
  EXPECT_EQ(values.at("no-memory-check"), true);
  EXPECT_FALSE(d.memory_check);
  EXPECT_EQ(values.size(), 5u);
}

TEST(OptionRegistry, RestoreTakesStoredValuesAndRefusesDisagreeingOnes) {
  const nlohmann::json stored{{"--blocks", {8, 8, 8}}, {"--tolerance", 1e-6}, {"--gone", 1}};
  {
    Declared d;
    d.parse({"--iters", "3"});
    d.registry.restore(stored, "ck.h5");
    EXPECT_EQ(d.blocks, (std::vector<int>{8, 8, 8}));
    EXPECT_EQ(d.tolerance, 1e-6);
    EXPECT_EQ(d.iterations, 3);  // a run option is never taken from a checkpoint
  }
  {
    Declared d;
    d.parse({"--blocks", "8", "8", "8"});  // given again, the same: fine
    d.registry.restore(stored, "ck.h5");
    EXPECT_EQ(d.tolerance, 1e-6);
  }
  Declared d;
  d.parse({"--blocks", "8", "8", "4"});
  try {
    d.registry.restore(stored, "ck.h5");
    FAIL() << "a disagreeing problem option was accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "--blocks");
    EXPECT_STREQ(e.what(),
                 "[8,8,4] given, but the checkpoint ck.h5 was written with [8,8,8] (omit the "
                 "option to take the checkpoint's value)");
  }
}

TEST_F(OptionConfigFile, WrittenConfigRepeatsTheRun) {
  Declared first;
  first.parse({"--blocks", "1", "2", "3", "--nit", "9", "--exec", "bsp", "--no-memory-check",
               "--tolerance", "0.25"});
  const std::string path = write(first.registry.config_text());

  Declared again;
  again.parse({});
  again.registry.apply_config(path);
  EXPECT_EQ(again.registry.values(), first.registry.values());
  EXPECT_EQ(again.blocks, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(again.iterations, 9);
  EXPECT_EQ(again.exec, "bsp");
  EXPECT_FALSE(again.memory_check);
  EXPECT_EQ(again.tolerance, 0.25);
  EXPECT_TRUE(again.registry.given("--iterations"));
}

TEST_F(OptionConfigFile, SkippedAndDefaultOptionsAreLeftOut) {
  Declared d;
  d.parse({"--exec", "bsp", "--iters", "100"});
  d.tolerance = 0.5;  // as a restore would set it
  const std::string text = d.registry.config_text({"--exec"});
  EXPECT_EQ(text.find("exec"), std::string::npos) << text;
  // Given with the default value: written; changed from the default: written.
  EXPECT_NE(text.find("iterations = 100\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tolerance = 0.5\n"), std::string::npos) << text;
  // Neither given nor changed: left out.
  EXPECT_EQ(text.find("blocks"), std::string::npos) << text;
  EXPECT_EQ(text.find("memory-check"), std::string::npos) << text;
}

TEST_F(OptionConfigFile, CommandLineMayRepeatButNotContradictTheFile) {
  const std::string path = write("iters = 10\nexec = \"bsp\"\n");
  {
    Declared d;
    d.parse({"--iterations", "10"});
    d.registry.apply_config(path);
    EXPECT_EQ(d.iterations, 10);
    EXPECT_EQ(d.exec, "bsp");
  }
  Declared d;
  d.parse({"--nit", "11"});
  try {
    d.registry.apply_config(path);
    FAIL() << "a conflict was accepted";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "--iterations");
    EXPECT_NE(std::string(e.what()).find("11 on the command line but 10 in config file"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(OptionConfigFile, UnknownKeysAndBadValuesNameTheKey) {
  {
    Declared d;
    d.parse({});
    try {
      d.registry.apply_config(write("iterations = 3\nstepz = 4\n"));
      FAIL() << "an unknown key was accepted";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "--config");
      EXPECT_NE(std::string(e.what()).find("unknown key 'stepz'"), std::string::npos) << e.what();
    }
  }
  {
    Declared d;
    d.parse({});
    try {
      d.registry.apply_config(write("iterations = 5000\n"));
      FAIL() << "a value out of range was accepted";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "--iterations");
    }
  }
  {
    Declared d;
    d.parse({});
    try {
      d.registry.apply_config(write("exec = \"fast\"\n"));
      FAIL() << "a value not allowed was accepted";
    } catch (const OptionError& e) {
      EXPECT_EQ(e.option(), "--exec");
    }
  }
  Declared d;
  d.parse({});
  fs::remove(path_);
  EXPECT_THROW(d.registry.apply_config(path_.string()), OptionError);
}

// The validators' messages name the option, the allowed values and the value given, on the
// command line and from a config file; allowed values pass unchanged.
TEST_F(OptionConfigFile, ValidatorsNameTheOptionTheAllowedValuesAndTheValue) {
  struct Checked {
    CLI::App cli{"test app", "app"};
    OptionRegistry registry{cli};
    int cells = 10, freq = 5, stencil = 7, lb = 1;
    Checked() {
      registry.add("--nx", cells, "cells")->check(even() & in_range(2, 1024));
      registry.add("--refine_freq", freq, "frequency")->check(at_least(1));
      registry.add("--stencil", stencil, "points")->check(one_of({7, 27}));
      registry.add("--lb_opt", lb, "balancing")->check(one_of({0, 1, 2}));
    }
    std::string error(std::vector<std::string> args) {
      std::vector<const char*> argv{"app"};
      for (const std::string& a : args) argv.push_back(a.c_str());
      try {
        cli.parse(static_cast<int>(argv.size()), argv.data());
      } catch (const CLI::ParseError& e) {
        return e.what();
      }
      return "";
    }
  };
  EXPECT_EQ(Checked().error({"--nx", "3"}), "--nx: must be even, got 3");
  EXPECT_EQ(Checked().error({"--nx", "0"}), "--nx: must be in 2..1024, got 0");
  EXPECT_EQ(Checked().error({"--nx", "2048"}), "--nx: must be in 2..1024, got 2048");
  EXPECT_NE(Checked().error({"--nx", "x"}).find("--nx"), std::string::npos);
  EXPECT_EQ(Checked().error({"--refine_freq", "0"}), "--refine_freq: must be >= 1, got 0");
  EXPECT_EQ(Checked().error({"--stencil", "5"}), "--stencil: must be 7 or 27, got 5");
  EXPECT_EQ(Checked().error({"--lb_opt", "3"}), "--lb_opt: must be 0, 1 or 2, got 3");
  EXPECT_NE(Checked().error({"--stencil", "2.5"}).find("--stencil"), std::string::npos);
  Checked ok;
  EXPECT_EQ(ok.error({"--nx", "1024", "--refine_freq", "1", "--stencil", "27", "--lb_opt", "0"}),
            "");
  EXPECT_EQ(ok.cells, 1024);
  EXPECT_EQ(ok.freq, 1);
  EXPECT_EQ(ok.stencil, 27);
  EXPECT_EQ(ok.lb, 0);
  for (const char* shown : {"7 or 27", "0, 1 or 2", "at least 1", "in 2..1024"})
    EXPECT_NE(ok.cli.help().find(shown), std::string::npos) << shown << " in " << ok.cli.help();
  Checked from_file;
  from_file.error({});
  try {
    from_file.registry.apply_config(write("stencil = 9\n"));
    FAIL() << "a value not allowed was accepted from a config file";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.option(), "--stencil");
    EXPECT_NE(std::string(e.what()).find("must be 7 or 27, got 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera

#pragma once
// OptionRegistry: every option of a run declared once (names and aliases, type, default,
// allowed values as CLI11 validators, help text, and whether it defines the problem or
// only the run). One declaration feeds the command line (with the defaults in --help), a
// TOML config file (--config, --write-config), the problem stored in a checkpoint, the
// restore from it, and the report's "options" object. See docs/options.md.
//
//   OptionRegistry& options = session.option_registry();
//   options.add("--iterations,--iters", opts.iterations, "Jacobi iterations")
//       ->check(CLI::Range(0, 1 << 30));
//   options.add("--blocks", opts.blocks, "global block grid BX BY BZ", OptionRole::problem)
//       ->expected(3);
//
// Layer: session (the Session owns one registry and declares the common options in it).
// Main thread only; not for tasks. A declared option holds a reference to its variable:
// the variable must outlive the registry's last use (Session::finish reads every option).

#include <CLI/CLI.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

/// What an option describes. A `problem` option defines the problem: a checkpoint stores
/// it, a restart takes it from there, and given again it must agree. A `run` option (run
/// length, execution, output) may change between a run and its restart.
enum class OptionRole { run, problem };

/// A bad value, an unknown key or a conflict, naming the option (`option()`, e.g.
/// "--iterations") and saying what is wrong and what is allowed (`what()`).
class OptionError : public std::runtime_error {
 public:
  OptionError(std::string option, const std::string& message)
      : std::runtime_error(message), option_(std::move(option)) {}
  const std::string& option() const { return option_; }

 private:
  std::string option_;
};

/// CLI11 validators for integer options (`registry.add(...)->check(in_range(2, 1024))`) whose
/// messages follow the one-line error form every app uses, CLI11 prefixing the option's
/// name: "--nx: must be in 2..1024, got 3". They check the value as given (command line or
/// config file); one that is not an integer is left to the option's conversion, which
/// refuses it by name. Combine them with `&` (the message names only the failing part).
/// "must be in LOW..HIGH, got V"; help shows "in LOW..HIGH".
CLI::Validator in_range(long long low, long long high);
/// "must be >= LOW, got V"; help shows "at least LOW".
CLI::Validator at_least(long long low);
/// "must be 7 or 27, got V" (the allowed values in order, "0, 1 or 2" for three).
CLI::Validator one_of(std::vector<long long> allowed);
/// "must be even, got V".
CLI::Validator even();

class OptionRegistry {
 public:
  /// Declares options on `cli`, which must outlive the registry.
  explicit OptionRegistry(CLI::App& cli) : cli_(&cli) {}

  /// Declares an option bound to `value`: `names` is CLI11's comma-separated list, the
  /// first long name the option's own name (reports, config files and checkpoints use
  /// it), the others aliases kept for compatibility. `value`'s current value is the
  /// default, shown in --help. T is anything CLI11 parses and nlohmann::json converts
  /// (numbers, strings, bool, vectors of them). Returns the CLI11 option to add
  /// validators (`->check`), counts (`->expected`) and so on.
  template <class T>
  CLI::Option* add(const std::string& names, T& value, const std::string& help,
                   OptionRole role = OptionRole::run) {
    CLI::Option* option = cli_->add_option(names, value, help)->capture_default_str();
    Entry entry{option,
                role,
                false,
                nlohmann::json(value),
                [&value] { return nlohmann::json(value); },
                [&value](const nlohmann::json& j) { j.get_to(value); },
                [](const std::vector<std::string>& inputs) {
                  T parsed{};
                  if (!CLI::detail::lexical_conversion<T, T>(inputs, parsed))
                    throw std::invalid_argument("not a value of the option's type");
                  return nlohmann::json(parsed);
                }};
    entries_.push_back(std::move(entry));
    return option;
  }

  /// Declares a flag bound to `value` (names as for add; a name starting with `!` sets
  /// false, as CLI11's `!--no-x`).
  CLI::Option* add_flag(const std::string& names, bool& value, const std::string& help,
                        OptionRole role = OptionRole::run);

  /// The option's own name for `name` (any of its names or aliases, with or without
  /// dashes): "--iters" -> "--iterations". Throws OptionError for an unknown name.
  std::string canonical(const std::string& name) const;

  /// The problem options as they are now, keyed by option name with dashes
  /// ({"--blocks": [4, 4, 4], ...}): what a checkpoint stores.
  nlohmann::json problem() const;
  /// Every declared option as it is now, keyed by name without dashes (as in a config
  /// file): the report's "options" object.
  nlohmann::json values() const;

  /// For a restart from a checkpoint written with the problem `stored` (as problem()
  /// returned then) in file `file`: a problem option given on the command line or in the
  /// config file must have the stored value, else throws OptionError naming it and both
  /// values; the others take the stored value. Keys this build does not know are ignored.
  void restore(const nlohmann::json& stored, const std::string& file);

  /// Applies the TOML config file `path` (CLI11's reader) after the command line was
  /// parsed: an option not given on the command line takes the file's value (validated
  /// as on the command line); one given there with another value, or an unknown key, is
  /// an OptionError naming it. Throws OptionError("--config", ...) for an unreadable file.
  void apply_config(const std::string& path);

  /// The options as they are now as TOML (`name = value` per line), readable by
  /// apply_config: repeats the run. Lists every declared option but `skip` that was given
  /// or differs from its default; one left at its default stays out, since apps may treat
  /// an option given with the default value unlike one not given (mg's --nx: the class's).
  std::string config_text(const std::vector<std::string>& skip = {}) const;

  /// Whether `name` (any spelling) was given, on the command line or in the config file.
  bool given(const std::string& name) const;
  /// Whether `name` (any spelling) is a declared option (not one added to the parser
  /// directly, which config_text cannot write).
  bool declares(const std::string& name) const { return find(name) != nullptr; }
  /// Whether config_text can write `name`'s value so that apply_config reads it back: a
  /// declared option whose value is not a list of lists (a repeated option of several
  /// values, such as miniamr's --object; CLI11's TOML reader takes flat lists only).
  bool writable(const std::string& name) const;

 private:
  struct Entry {
    CLI::Option* option;
    OptionRole role;
    bool negated;            // a `!--no-x` flag: its name says the opposite of the bound value
    nlohmann::json initial;  // the bound value at declaration: the default
    std::function<nlohmann::json()> get;
    std::function<void(const nlohmann::json&)> set;
    std::function<nlohmann::json(const std::vector<std::string>&)> parse;  // inputs -> value
  };
  const Entry* find(const std::string& name) const;
  /// The value as the option's name says it (a negated flag's inverted).
  static nlohmann::json shown(const Entry& e);
  Entry* find(const std::string& name);

  CLI::App* cli_;
  std::vector<Entry> entries_;
};

}  // namespace tessera

#include "tessera/option_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tessera {

namespace {

// The option's own name: its first long name, with dashes.
std::string own_name(const CLI::Option& option) {
  return option.get_lnames().empty() ? option.get_name() : "--" + option.get_lnames().front();
}

// A key of a config file or a stored problem, or a name as a user spells it, as CLI11 finds
// options: "--x", "x" or "-x".
const CLI::Option* lookup(const CLI::App& cli, const std::string& name) {
  if (name.starts_with("-")) return cli.get_option_no_throw(name);
  if (const CLI::Option* o = cli.get_option_no_throw("--" + name)) return o;
  if (name.size() == 1) return cli.get_option_no_throw("-" + name);
  return nullptr;
}

// A validator of integer values: `why(v)` is empty for an allowed v, else what is wrong. A
// value that is not an integer is left to the option's conversion, which names it.
CLI::Validator integer_check(std::string description, std::function<std::string(long long)> why) {
  return CLI::Validator(
      [why = std::move(why)](std::string& input) -> std::string {
        long long value = 0;
        return CLI::detail::lexical_cast(input, value) ? why(value) : "";
      },
      std::move(description));
}

}  // namespace

CLI::Validator in_range(long long low, long long high) {
  return integer_check(fmt::format("in {}..{}", low, high), [=](long long v) {
    return low <= v && v <= high ? "" : fmt::format("must be in {}..{}, got {}", low, high, v);
  });
}

CLI::Validator at_least(long long low) {
  return integer_check(fmt::format("at least {}", low), [=](long long v) {
    return v >= low ? "" : fmt::format("must be >= {}, got {}", low, v);
  });
}

CLI::Validator one_of(std::vector<long long> allowed) {
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += fmt::format("{}{}", i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ", allowed[i]);
  return integer_check(list, [allowed = std::move(allowed), list](long long v) {
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end()
               ? ""
               : fmt::format("must be {}, got {}", list, v);
  });
}

CLI::Validator even() {
  return integer_check(
      "even", [](long long v) { return v % 2 == 0 ? "" : fmt::format("must be even, got {}", v); });
}

CLI::Option* OptionRegistry::add_flag(const std::string& names, bool& value,
                                      const std::string& help, OptionRole role) {
  CLI::Option* option = cli_->add_flag(names, value, help);
  entries_.push_back({option, role, names.starts_with("!"), nlohmann::json(value),
                      [&value] { return nlohmann::json(value); },
                      [&value](const nlohmann::json& j) { j.get_to(value); },
                      [](const std::vector<std::string>& inputs) {
                        bool parsed = false;
                        if (inputs.size() != 1 ||
                            !CLI::detail::lexical_conversion<bool, bool>(inputs, parsed))
                          throw std::invalid_argument("not true or false");
                        return nlohmann::json(parsed);
                      }});
  return option;
}

const OptionRegistry::Entry* OptionRegistry::find(const std::string& name) const {
  const CLI::Option* option = lookup(*cli_, name);
  if (option == nullptr) return nullptr;
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.option == option; });
  return it == entries_.end() ? nullptr : &*it;
}

OptionRegistry::Entry* OptionRegistry::find(const std::string& name) {
  return const_cast<Entry*>(std::as_const(*this).find(name));
}

std::string OptionRegistry::canonical(const std::string& name) const {
  const CLI::Option* option = lookup(*cli_, name);
  if (option == nullptr) throw OptionError(name, "unknown option");
  return own_name(*option);
}

bool OptionRegistry::given(const std::string& name) const {
  const CLI::Option* option = lookup(*cli_, name);
  return option != nullptr && option->count() > 0;
}

bool OptionRegistry::writable(const std::string& name) const {
  const Entry* e = find(name);
  if (e == nullptr) return false;
  const nlohmann::json value = e->get();
  return !value.is_array() ||
         std::none_of(value.begin(), value.end(), [](const auto& v) { return v.is_array(); });
}

nlohmann::json OptionRegistry::shown(const Entry& e) {
  const nlohmann::json value = e.get();
  return e.negated ? nlohmann::json(!value.get<bool>()) : value;
}

nlohmann::json OptionRegistry::problem() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Entry& e : entries_)
    if (e.role == OptionRole::problem) j[own_name(*e.option)] = shown(e);
  return j;
}

nlohmann::json OptionRegistry::values() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Entry& e : entries_) j[own_name(*e.option).substr(2)] = shown(e);
  return j;
}

void OptionRegistry::restore(const nlohmann::json& stored, const std::string& file) {
  for (const auto& [name, value] : stored.items()) {
    Entry* e = find(name);
    if (e == nullptr || e->role != OptionRole::problem) continue;
    if (e->option->count() > 0) {
      const nlohmann::json given = shown(*e);
      if (given != value) {
        throw OptionError(name, fmt::format("{} given, but the checkpoint {} was written with {} "
                                            "(omit the option to take the checkpoint's value)",
                                            given.dump(), file, value.dump()));
      }
      continue;
    }
    e->set(e->negated ? nlohmann::json(!value.get<bool>()) : value);
  }
}

void OptionRegistry::apply_config(const std::string& path) {
  CLI::ConfigTOML reader;
  std::vector<CLI::ConfigItem> items;
  try {
    items = reader.from_file(path);
  } catch (const CLI::Error& e) {
    throw OptionError("--config", fmt::format("cannot read '{}': {}", path, e.what()));
  }
  for (const CLI::ConfigItem& item : items) {
    // Section markers: a [section] is refused at its first key below.
    if (item.name == "++" || item.name == "--") continue;
    const CLI::Option* found = item.parents.empty() ? lookup(*cli_, item.name) : nullptr;
    if (found == nullptr || found->get_lnames().empty() || item.name == "config" ||
        item.name == "write-config") {
      throw OptionError("--config", fmt::format("unknown key '{}' in '{}': keys are option names "
                                                "without dashes (see --help)",
                                                item.fullname(), path));
    }
    CLI::Option* option = cli_->get_option(own_name(*found));
    const std::string name = own_name(*option);
    std::vector<std::string> inputs = item.inputs;
    try {
      if (option->get_expected_min() == 0) {
        inputs = {option->get_flag_value(item.name, reader.to_flag(item))};
      }
    } catch (const CLI::Error& e) {
      throw OptionError(name, fmt::format("in '{}': {}", path, e.what()));
    }
    const Entry* e = find(name);
    if (option->count() > 0) {
      // Given on the command line too: the two must say the same.
      bool same = false;
      try {
        same = e != nullptr ? e->parse(inputs) == e->get() : inputs == option->results();
      } catch (const std::invalid_argument&) {
        same = false;
      }
      if (!same) {
        const std::string on_line =
            e != nullptr ? shown(*e).dump() : fmt::format("{}", fmt::join(option->results(), " "));
        throw OptionError(
            name, fmt::format("{} on the command line but {} in config file '{}' "
                              "(give it in one place, or the same value in both)",
                              on_line, fmt::format("{}", fmt::join(item.inputs, " ")), path));
      }
      continue;
    }
    try {
      option->add_result(inputs);
      option->run_callback();
    } catch (const CLI::Error& error) {
      throw OptionError(name, fmt::format("in config file '{}': {}", path, error.what()));
    }
  }
}

std::string OptionRegistry::config_text(const std::vector<std::string>& skip) const {
  std::string text;
  for (const Entry& e : entries_) {
    const std::string key = own_name(*e.option).substr(2);
    if (std::find(skip.begin(), skip.end(), "--" + key) != skip.end()) continue;
    if (e.option->count() == 0 && e.get() == e.initial) continue;
    const nlohmann::json value = shown(e);
    // An empty list means "not given, derived from other options": leave it out so the
    // derivation happens again.
    if (value.is_null() || (value.is_array() && value.empty())) continue;
    // JSON's numbers, booleans, strings and flat arrays are TOML values too.
    text += fmt::format("{} = {}\n", key, value.dump());
  }
  return text;
}

}  // namespace tessera

#include "tessera/balance_options.hpp"

#include "tessera/option_registry.hpp"
#include "tessera/session.hpp"

namespace tessera {

void declare_balance_options(OptionRegistry& registry, BalanceOptions& options, bool intervals) {
  registry
      .add("--balance", options.balance,
           "how a repartition cuts the curve of blocks over the ranks: count (the same number "
           "each) | cost (a share of the measured block cost matching each rank's measured "
           "speed); same results")
      ->check(CLI::IsMember({"count", "cost"}));
  registry
      .add("--balance-gain", options.gain,
           "with --balance cost: move blocks only when the new partition's step is predicted "
           "at least this fraction faster (0 <= F < 1)")
      ->check(CLI::Range(0.0, 0.999));
  if (!intervals) return;
  registry
      .add("--balance-after", options.after,
           "with --balance cost: the first repartition after N iterations (N >= 1)")
      ->check(CLI::Range(1, 1 << 30));
  registry
      .add("--balance-every", options.every,
           "with --balance cost: then a repartition every N iterations (N >= 1)")
      ->check(CLI::Range(1, 1 << 30));
}

void refuse_cost_balance(Session& session, const BalanceOptions& options, const std::string& app) {
  if (!options.cost()) return;
  session.fail("--balance", "cost: " + app +
                                " cannot move blocks between ranks (its partition is fixed); "
                                "allowed: count");
}

}  // namespace tessera

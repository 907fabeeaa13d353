#pragma once
// --balance count|cost, the same in every app: how a repartition cuts the space-filling
// curve of blocks over the ranks (docs/balance.md, docs/options.md).

#include <string>

namespace tessera {

class OptionRegistry;
class Session;

/// What a repartition balances. Run options: a restart may change them; the partition
/// never changes a bit of the results.
struct BalanceOptions {
  /// "count": every rank the same number of blocks. "cost": every rank a share of the
  /// blocks' measured cost matching its measured speed (runtime/cost_table.hpp).
  std::string balance = "count";
  /// Apps that repartition on their own schedule (jacobi7): the first repartition after
  /// this many iterations, then every `every` iterations. Both >= 1.
  int after = 10;
  int every = 50;
  /// A cost repartition moves blocks only when the new partition's step is predicted at
  /// least this fraction faster than the current one's (0 <= gain < 1; CostSplit::worth_moving).
  double gain = 0.05;
  bool cost() const { return balance == "cost"; }
};

/// Declares --balance (count | cost) and --balance-gain F (0 <= F < 1) bound to `options`;
/// with `intervals` also --balance-after N and --balance-every N (each >= 1). A bad value stops
/// every rank with one line naming the option and the allowed values.
void declare_balance_options(OptionRegistry& registry, BalanceOptions& options, bool intervals);

/// For an app whose blocks cannot move between ranks: stops every rank (Session::fail)
/// with one line naming --balance when `options` ask for a cost balance; `app` names the
/// app in the message. Call after Session::start.
void refuse_cost_balance(Session& session, const BalanceOptions& options, const std::string& app);

}  // namespace tessera

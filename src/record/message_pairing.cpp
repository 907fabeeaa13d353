#include "record/message_pairing.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace tessera::obs {

std::vector<std::int64_t> pair_messages(std::span<const MessageRecord> records) {
  // (source, destination, tag) -> sends and receives of that channel.
  struct Channel {
    std::vector<std::int64_t> sends;
    std::vector<std::int64_t> recvs;
  };
  std::map<std::tuple<int, int, int>, Channel> channels;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const MessageRecord& r = records[i];
    if (r.is_send) {
      channels[{r.rank, r.peer, r.tag}].sends.push_back(static_cast<std::int64_t>(i));
    } else {
      channels[{r.peer, r.rank, r.tag}].recvs.push_back(static_cast<std::int64_t>(i));
    }
  }
  std::vector<std::int64_t> partner(records.size(), -1);
  const auto by_order = [&](std::int64_t a, std::int64_t b) {
    return records[a].order < records[b].order;
  };
  for (auto& [key, channel] : channels) {
    std::stable_sort(channel.sends.begin(), channel.sends.end(), by_order);
    std::stable_sort(channel.recvs.begin(), channel.recvs.end(), by_order);
    const std::size_t n = std::min(channel.sends.size(), channel.recvs.size());
    for (std::size_t k = 0; k < n; ++k) {
      partner[channel.sends[k]] = channel.recvs[k];
      partner[channel.recvs[k]] = channel.sends[k];
    }
  }
  return partner;
}

}  // namespace tessera::obs

// The DG kernels' small dense product on the shapes the predictor and corrector use: the
// right product on both paths (libxsmm's kernels where the build has them, the hand-written
// one), and the same bits when repeated (a kernel is a fixed chain of operations).
#include "euler/dg/small_gemm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using euler::dg::small_gemm;
using euler::dg::small_gemm_portable;

TEST(SmallGemm, ComputesTheProductOnBothPathsAndRepeatsItsBits) {
  for (int n = 2; n <= 10; ++n)
    for (const auto& [m, cols, k] :
         {std::array<int, 3>{n, 5 * n * n * n, n}, std::array<int, 3>{5 * n * n, n, n},
          std::array<int, 3>{n, n * n, n}, std::array<int, 3>{1, n, n},
          std::array<int, 3>{3, 17, n}})
      for (const bool accumulate : {false, true}) {
        std::vector<double> a(static_cast<std::size_t>(m * k)),
            b(static_cast<std::size_t>(k * cols)), c(static_cast<std::size_t>(m * cols)), d;
        for (std::size_t i = 0; i < a.size(); ++i)
          a[i] = std::sin(0.37 * static_cast<double>(i) + n);
        for (std::size_t i = 0; i < b.size(); ++i)
          b[i] = std::cos(0.11 * static_cast<double>(i) - n);
        for (std::size_t i = 0; i < c.size(); ++i) c[i] = 0.5 - 0.01 * static_cast<double>(i % 7);
        d = c;
        std::vector<double> again = c;
        small_gemm(m, cols, k, a.data(), k, b.data(), cols, c.data(), cols, accumulate);
        small_gemm(m, cols, k, a.data(), k, b.data(), cols, again.data(), cols, accumulate);
        small_gemm_portable(m, cols, k, a.data(), k, b.data(), cols, d.data(), cols, accumulate);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < cols; ++j) {
            double want = accumulate ? 0.5 - 0.01 * ((i * cols + j) % 7) : 0.0;
            for (int l = 0; l < k; ++l)
              want += a[static_cast<std::size_t>(i * k + l)] *
                      b[static_cast<std::size_t>(l * cols + j)];
            const auto at = static_cast<std::size_t>(i * cols + j);
            ASSERT_NEAR(c[at], want, 1e-12) << "n " << n << " m " << m << " cols " << cols;
            ASSERT_NEAR(d[at], want, 1e-12) << "n " << n << " m " << m << " cols " << cols;
            ASSERT_EQ(c[at], again[at]) << "n " << n << " m " << m << " cols " << cols;
          }
      }
}

}  // namespace

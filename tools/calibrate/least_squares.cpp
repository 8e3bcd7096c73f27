#include "tools/calibrate/least_squares.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mmreplay::tools::calibrate {
namespace {

// Marquardt's damping: start, and the factors it falls by after a good step and rises by after
// a bad one; past kMaxLambda no step along the gradient lowers the cost (a minimum).
constexpr double kStartLambda = 1e-2;
constexpr double kLambdaDown = 3;
constexpr double kLambdaUp = 4;
constexpr double kMaxLambda = 1e6;
// Below this, a diagonal entry of J^T J counts as zero (a parameter no residual depends on).
constexpr double kTinyCurvature = 1e-12;

class Problem {
 public:
  Problem(const ResidualFunction& f, const LeastSquaresOptions& o) : f_(f), o_(o) {}

  // The residuals at theta, the prior appended.
  std::vector<double> residuals(const std::vector<double>& theta) {
    std::vector<double> x(theta.size());
    for (size_t i = 0; i < theta.size(); ++i) x[i] = std::exp(theta[i]);
    std::vector<double> r = f_(x);
    ++evaluations_;
    if (o_.prior_weight > 0) {
      for (double t : theta) r.push_back(o_.prior_weight * t);
    }
    return r;
  }

  std::vector<double> clamp(std::vector<double> theta) const {
    for (double& t : theta)
      t = std::clamp(t, std::log(o_.min_multiplier), std::log(o_.max_multiplier));
    return theta;
  }

  size_t evaluations() const { return evaluations_; }

 private:
  const ResidualFunction& f_;
  const LeastSquaresOptions& o_;
  size_t evaluations_ = 0;
};

double cost_of(const std::vector<double>& r) {
  double c = 0;
  for (double v : r) c += v * v;
  return c;
}

// Forward-difference Jacobian: column j is (r(theta + h e_j) - r(theta)) / h.
std::vector<std::vector<double>> jacobian(Problem& p, const std::vector<double>& theta,
                                          const std::vector<double>& r, double h) {
  std::vector<std::vector<double>> j(r.size(), std::vector<double>(theta.size(), 0));
  for (size_t c = 0; c < theta.size(); ++c) {
    std::vector<double> moved = theta;
    moved[c] += h;
    const std::vector<double> rm = p.residuals(moved);
    for (size_t i = 0; i < r.size() && i < rm.size(); ++i) j[i][c] = (rm[i] - r[i]) / h;
  }
  return j;
}

// The pattern search (least_squares.h) from `theta`, whose cost is `cost` (both updated);
// returns the moves it kept.
size_t pattern_search(Problem& p, const LeastSquaresOptions& o, std::vector<double>& theta,
                      double& cost) {
  size_t moves = 0;
  for (double factor : o.polish_factors) {
    const double step = std::log(factor);
    for (size_t pass = 0; pass < o.polish_passes; ++pass) {
      bool moved = false;
      for (size_t a = 0; a < theta.size(); ++a) {
        for (double direction : {1.0, -1.0}) {
          std::vector<double> next = theta;
          next[a] += direction * step;
          next = p.clamp(next);
          if (next[a] == theta[a]) continue;  // at a bound
          const double c = cost_of(p.residuals(next));
          if (c < cost * (1 - o.min_improvement)) {
            theta = next;
            cost = c;
            moved = true;
            ++moves;
            break;  // this parameter moved: on to the next
          }
        }
      }
      if (!moved) break;
    }
  }
  return moves;
}

}  // namespace

bool solve_dense(std::vector<std::vector<double>> a, std::vector<double> b,
                 std::vector<double>* y) {
  const size_t n = b.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    }
    if (std::abs(a[pivot][col]) < kTinyCurvature) return false;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (size_t r = col + 1; r < n; ++r) {
      const double k = a[r][col] / a[col][col];
      for (size_t c = col; c < n; ++c) a[r][c] -= k * a[col][c];
      b[r] -= k * b[col];
    }
  }
  y->assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t c = i + 1; c < n; ++c) s -= a[i][c] * (*y)[c];
    (*y)[i] = s / a[i][i];
  }
  return true;
}

LeastSquaresResult solve_least_squares(const ResidualFunction& f, std::vector<double> x0,
                                       const LeastSquaresOptions& o) {
  Problem p(f, o);
  const size_t n = x0.size();
  std::vector<double> theta(n);
  for (size_t i = 0; i < n; ++i) theta[i] = std::log(x0[i]);
  std::vector<double> r = p.residuals(theta);
  LeastSquaresResult result;
  result.start_cost = cost_of(r);
  double cost = result.start_cost;
  double lambda = kStartLambda;
  for (size_t it = 0; it < o.max_iterations; ++it) {
    result.iterations = it + 1;
    const auto j = jacobian(p, theta, r, o.jacobian_step);
    // Normal equations: (J^T J + lambda diag(J^T J)) d = -J^T r.
    std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0));
    std::vector<double> jtr(n, 0);
    for (size_t i = 0; i < r.size(); ++i) {
      for (size_t a = 0; a < n; ++a) {
        jtr[a] += j[i][a] * r[i];
        for (size_t b = 0; b < n; ++b) jtj[a][b] += j[i][a] * j[i][b];
      }
    }
    bool improved = false;
    while (lambda <= kMaxLambda) {
      auto damped = jtj;
      for (size_t a = 0; a < n; ++a) damped[a][a] += lambda * std::max(jtj[a][a], kTinyCurvature);
      std::vector<double> minus_jtr(n), d;
      for (size_t a = 0; a < n; ++a) minus_jtr[a] = -jtr[a];
      if (!solve_dense(damped, minus_jtr, &d)) {
        lambda *= kLambdaUp;
        continue;
      }
      std::vector<double> next = theta;
      for (size_t a = 0; a < n; ++a) next[a] += d[a];
      next = p.clamp(next);
      const std::vector<double> rn = p.residuals(next);
      const double cn = cost_of(rn);
      if (cn < cost) {
        const double gain = (cost - cn) / std::max(cost, kTinyCurvature);
        theta = next;
        r = rn;
        cost = cn;
        lambda /= kLambdaDown;
        improved = gain >= o.min_improvement;
        break;
      }
      lambda *= kLambdaUp;
    }
    if (!improved) break;
  }
  result.lm_cost = cost;
  result.polish_moves = pattern_search(p, o, theta, cost);
  result.x.resize(n);
  for (size_t i = 0; i < n; ++i) result.x[i] = std::exp(theta[i]);
  result.cost = cost;
  result.evaluations = p.evaluations();
  return result;
}

}  // namespace mmreplay::tools::calibrate

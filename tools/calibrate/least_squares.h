// A small nonlinear least-squares solver (Levenberg-Marquardt) for the throughput fit: a few
// positive parameters (multipliers of cost-field groups), a residual vector computed by running
// the model, no derivatives but finite differences.
//
// The parameters are solved in log space (x = exp(theta)): a multiplier stays positive, and a
// step of 5% means the same at 0.3 and at 3. An optional prior adds the residual
// prior_weight * theta_i per parameter, pulling a parameter the data does not determine back to
// 1 (its starting value) instead of letting it drift along a flat direction.
//
// Where Levenberg-Marquardt stops, an optional pattern search goes on: each parameter in turn
// tried larger and smaller by a factor, kept where that lowers the cost, for a pass or two over
// the parameters, then the same with a smaller factor. A
// discrete-event model's throughput moves in steps, so its finite differences can see no slope
// where a larger move has one, or a slope that points into a wall; the search needs neither.

#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace mmreplay::tools::calibrate {

// The residuals at multipliers `x` (one per parameter); the solver minimises their sum of squares.
// Every call must return the same number of residuals.
using ResidualFunction = std::function<std::vector<double>(const std::vector<double>& x)>;

struct LeastSquaresOptions {
  size_t max_iterations = 12;
  double jacobian_step = 0.05;   // in theta: a 5% change of a multiplier
  double prior_weight = 0;       // 0: no prior
  double min_multiplier = 0.05;  // bounds on every multiplier
  double max_multiplier = 20;
  double min_improvement = 1e-4;  // stop when the cost falls by less than this fraction
  // The pattern search after it: its factors, largest first (none: no search), and how many
  // passes over the parameters each may make.
  std::vector<double> polish_factors;
  size_t polish_passes = 2;
};

struct LeastSquaresResult {
  std::vector<double> x;  // the multipliers found
  double start_cost = 0;  // sum of squared residuals (prior included) at the start
  double cost = 0;        // at x
  size_t iterations = 0;
  size_t evaluations = 0;   // calls of the residual function
  double lm_cost = 0;       // where Levenberg-Marquardt stopped, before the pattern search
  size_t polish_moves = 0;  // moves the pattern search kept
};

// Minimises the sum of squares of `f` (plus the prior) from `x0`.
// REQUIRES: x0 non-empty, every element within [min_multiplier, max_multiplier].
LeastSquaresResult solve_least_squares(const ResidualFunction& f, std::vector<double> x0,
                                       const LeastSquaresOptions& o);

// Solves A y = b for a small dense symmetric positive definite A (Gaussian elimination with
// partial pivoting); false when A is singular.
bool solve_dense(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>* y);

}  // namespace mmreplay::tools::calibrate

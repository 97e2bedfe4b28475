// Every op of the op set, on every dtype it admits, compiled once by the
// CPU backend and compared with the reference evaluator at several shapes
// (including 0, 1 and odd sizes): integer wraparound, division by zero,
// saturating conversions, NaN rules and bool logic all go through here.
#include "anyshape/client/GraphBuilder.h"
#include "compiler/Compiler.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/ConstantData.h"
#include "ir/graph/GraphText.h"
#include "ir/graph/OpRegistry.h"
#include "ir/reference/Compare.h"
#include "ir/reference/Evaluator.h"

#include "RandomInputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace anyshape;
using namespace anyshape::client;

namespace {

const DType kAllDTypes[] = {v1::DTYPE_F32, v1::DTYPE_F16, v1::DTYPE_BF16,
                            v1::DTYPE_I32, v1::DTYPE_I64, v1::DTYPE_BOOL};

/// Builds a graph with `make`, compiles it once, and compares compiled and
/// reference outputs for n in `sizes` (inputs drawn per size).
void check(const std::string &label,
           const std::function<void(GraphBuilder &)> &make,
           std::vector<int64_t> sizes = {0, 1, 5, 17}) {
  SCOPED_TRACE(label);
  GraphBuilder builder(label);
  make(builder);
  auto graph = builder.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  if (const char *dir = std::getenv("ANYSHAPE_DUMP_GRAPHS"))
    (void)writeGraphFile(*graph, std::string(dir) + "/" + label + ".pbtxt");
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  for (int64_t n : sizes) {
    auto shapes = inputShapesFor(*graph, {{"n", n}});
    ASSERT_TRUE(shapes.isOk()) << shapes.status().toString();
    auto [inputs, tensors] = test::randomInputs(*graph, *shapes, 17 * n);
    auto expected = evaluateGraph(*graph, inputs);
    auto actual = (*executable)->run(tensors);
    ASSERT_EQ(expected.isOk(), actual.isOk())
        << "n=" << n << ": " << expected.status().toString() << " / "
        << actual.status().toString();
    if (!expected.isOk())
      continue;
    for (size_t o = 0; o < actual->size(); ++o) {
      NumericDiff d =
          compareLiterals(*literalFromTensor((*actual)[o]), (*expected)[o]);
      EXPECT_TRUE(d.ok()) << "n=" << n << " output " << o << ": "
                          << d.firstMismatch;
    }
  }
}

bool admits(const std::string &op, DType t) {
  bool isFloat = isFloatDType(t), isInt = isIntegerDType(t);
  if (op == "not" || op == "and" || op == "or")
    return isInt || t == v1::DTYPE_BOOL;
  if (op == "abs" || op == "neg" || op == "add" || op == "sub" || op == "mul" ||
      op == "div" || op == "pow" || op == "max" || op == "min")
    return isFloat || isInt;
  return isFloat; // transcendental and rounding ops
}

} // namespace

TEST(OpCoverage, UnaryOpsOnEveryDType) {
  for (const OpInfo &op : allOps()) {
    if (op.opClass != OpClass::Unary || op.name == "convert")
      continue;
    for (DType t : kAllDTypes) {
      if (!admits(std::string(op.name), t))
        continue;
      check(std::string(op.name) + "/" + dtypeName(t), [&](GraphBuilder &b) {
        Value x = b.parameter("x", t, {"n", 3});
        // Shift floats into (0, 2) for log/sqrt/rsqrt; NaN cases are the
        // subject of BinaryAndUnaryNaNs.
        if (isFloatDType(t))
          x = b.add(b.abs(x), b.scalar(0.25, t));
        b.output(b.unary(std::string(op.name), x));
      });
    }
  }
}

TEST(OpCoverage, BinaryOpsOnEveryDType) {
  for (const OpInfo &op : allOps()) {
    if (op.opClass != OpClass::Binary || op.name == "compare")
      continue;
    for (DType t : kAllDTypes) {
      if (!admits(std::string(op.name), t))
        continue;
      check(std::string(op.name) + "/" + dtypeName(t), [&](GraphBuilder &b) {
        Value x = b.parameter("x", t, {"n", 4});
        Value y = b.parameter("y", t, {"n", 4});
        // Integer operands in [0, 8) include 0 (division by zero) and, as
        // x - 4, negatives (wraparound, truncation toward zero).
        if (isIntegerDType(t))
          x = b.sub(x, b.scalar(4, t));
        if (op.name == "pow" && isFloatDType(t))
          x = b.abs(x);
        b.output(b.binary(std::string(op.name), x, y));
      });
    }
  }
}

TEST(OpCoverage, CompareEveryDirectionAndSelect) {
  const Comparison directions[] = {Comparison::Eq, Comparison::Ne,
                                   Comparison::Lt, Comparison::Le,
                                   Comparison::Gt, Comparison::Ge};
  for (DType t : kAllDTypes)
    check("compare/" + dtypeName(t), [&](GraphBuilder &b) {
      Value x = b.parameter("x", t, {"n"});
      Value y = b.parameter("y", t, {"n"});
      for (Comparison c : directions) {
        Value p = b.compare(x, y, c);
        b.output(p);
        b.output(b.select(p, x, y));
      }
    });
}

TEST(OpCoverage, ConvertBetweenEveryPair) {
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes)
      check("convert/" + dtypeName(from) + "->" + dtypeName(to),
            [&](GraphBuilder &b) {
              Value x = b.parameter("x", from, {"n"});
              // Floats scaled to [-3e9, 3e9): saturation at i32's range.
              if (isFloatDType(from) && from == v1::DTYPE_F32)
                x = b.mul(x, b.scalar(3e9, from));
              b.output(b.convert(x, to));
            });
}

TEST(OpCoverage, BinaryAndUnaryNaNs) {
  check("nan", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F32, {"n"});
    Value nan = b.log(b.sub(b.abs(x), b.scalar(2.0))); // log(negative)
    b.output(b.max(nan, x));
    b.output(b.min(x, nan));
    b.output(b.compare(nan, nan, Comparison::Ne));
    b.output(b.compare(nan, x, Comparison::Lt));
    b.output(b.convert(nan, v1::DTYPE_I32));
    b.output(b.convert(nan, v1::DTYPE_BOOL));
    b.output(b.reduce(b.reshape(nan, {1, "n"}), {1}, Reduction::Max));
  });
}

TEST(OpCoverage, RowMaxAndMinPropagateNaNFromEveryLane) {
  // Row r holds a NaN at column 13r (0/0 where the mask is 0), so at the
  // sizes below NaNs land in the first lane, in the middle of 16-lane
  // vectors and in the scalar remainder of the vectorised row max/min.
  check("row_nan",
        [](GraphBuilder &b) {
          Value x = b.parameter("x", v1::DTYPE_F32, {8, "n"});
          Value column = b.iota(v1::DTYPE_I32, {8, "n"}, 1);
          Value row = b.iota(v1::DTYPE_I32, {8, "n"}, 0);
          Value keep = b.convert(
              b.compare(column, b.mul(row, b.scalar(13, v1::DTYPE_I32)),
                        Comparison::Ne),
              v1::DTYPE_F32);
          Value y = b.div(b.mul(x, keep), keep);
          b.output(b.reduce(y, {1}, Reduction::Max));
          b.output(b.reduce(y, {1}, Reduction::Min));
          b.output(b.softmax(y, 1));
        },
        {0, 1, 14, 16, 17, 40, 79, 100});
}

TEST(OpCoverage, ReductionsOnEveryNumericDType) {
  const Reduction kinds[] = {Reduction::Sum, Reduction::Max, Reduction::Min,
                             Reduction::Prod};
  for (DType t : kAllDTypes) {
    if (t == v1::DTYPE_BOOL)
      continue;
    check("reduce/" + dtypeName(t), [&](GraphBuilder &b) {
      Value x = b.parameter("x", t, {"n", 3, 2});
      for (Reduction kind : kinds) {
        b.output(b.reduce(x, {0}, kind));
        b.output(b.reduce(x, {1, 2}, kind));
      }
    });
  }
}

TEST(OpCoverage, ReductionsOfBroadcastsAndOfNothing) {
  // Both are rewritten before planning: reduce(broadcast(x)) reduces x
  // (a sum times the copies), and a reduction over a dim of size 0 is its
  // identity.
  for (DType t : {v1::DTYPE_F32, v1::DTYPE_I32}) {
    check("reduce_broadcast/" + dtypeName(t), [&](GraphBuilder &b) {
      Value x = b.parameter("x", t, {"n"});
      Value y = b.parameter("y", t, {"n", 1});
      Value cube = b.broadcastInDim(x, {"n", "n", 3}, {0});
      for (Reduction kind :
           {Reduction::Sum, Reduction::Max, Reduction::Min, Reduction::Prod}) {
        b.output(b.reduce(cube, {0, 1, 2}, kind));
        b.output(b.reduce(cube, {1, 2}, kind));
        b.output(b.reduce(cube, {0}, kind));
      }
      Value stretched = b.broadcastInDim(y, {"n", 4, 3}, {0, 2});
      b.output(b.reduce(stretched, {2}, Reduction::Sum));
      b.output(b.reduce(stretched, {0, 1}, Reduction::Sum));
      Value empty = b.parameter("e", t, {"n", 0});
      b.output(b.reduce(empty, {1}, Reduction::Max));
      b.output(b.reduce(empty, {0, 1}, Reduction::Sum));
    });
  }
  // An f16 sum over 70,000 copies: the count does not fit in f16, and the
  // sum (about 70,000 x) only does for small x; computed in f32 and
  // rounded once, as the reduction itself would be.
  check("reduce_broadcast/f16", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F16, {"n"});
    Value small = b.broadcastInDim(b.scalar(0.0001, v1::DTYPE_F16), {"n"}, {});
    Value wide = b.broadcastInDim(b.mul(x, small), {"n", 70000}, {0});
    b.output(b.reduce(wide, {1}, Reduction::Sum));
    b.output(b.reduce(wide, {0, 1}, Reduction::Sum));
  });
}

TEST(OpCoverage, ShapeChangingOps) {
  check("shape_ops", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F32, {"n", 6});
    Value y = b.parameter("y", v1::DTYPE_I32, {"n", 6});
    b.output(b.transpose(x, {1, 0}));
    b.output(b.reshape(x, {-1, 3}));
    b.output(b.reshape(x, {"n*6"}));
    b.output(b.slice(x, {0, 1}, {"n", 6}, {2, 2}));
    b.output(b.concatenate({x, b.neg(x), x}, 1));
    b.output(b.concatenate({y, y}, 0));
    b.output(b.pad(x, b.scalar(7.0), {1, -2}, {2, 1}, {1, 0}));
    b.output(b.pad(y, b.scalar(-1, v1::DTYPE_I32), {0, 1}, {1, 0}, {2, 2}));
    b.output(b.broadcastInDim(b.reduce(x, {1}, Reduction::Sum), {"n", 4}, {0}));
    b.output(b.iota(v1::DTYPE_I64, {"n", 2}, 0));
    b.output(b.iota(v1::DTYPE_F16, {3, "n"}, 1));
    b.output(b.dimSize(x, 0));
  });
}

TEST(OpCoverage, LargeSplatsAreFilledAtRunTime) {
  // Splats past 4096 elements lower to fills, returned and used.
  check("large_splat", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F32, {"n", 5000});
    b.output(b.splat(3.0, v1::DTYPE_F32, {5000}));
    b.output(b.splat(1, v1::DTYPE_I32, {2, 3000}));
    b.output(b.add(x, b.broadcastInDim(b.splat(0.5, v1::DTYPE_F32, {5000}),
                                       {"n", 5000}, {1})));
  });
}

TEST(OpCoverage, LargeSeededConstantsAreGeneratedAtLoad) {
  // Past 4096 elements, seeded constants are globals the executable fills
  // when it loads (anyshape-seeded-constants-at-load), with the evaluator's
  // generator: every dtype, returned and used by a kernel.
  check("large_seeded", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F32, {"n", 5000});
    for (DType t : kAllDTypes)
      b.output(b.seededUniform(t, {2, 2500}, 40 + t, -3, 5));
    b.output(b.add(
        x, b.broadcastInDim(b.seededUniform(v1::DTYPE_F32, {5000}, 9, -1, 1),
                            {"n", 5000}, {1})));
  });
}

TEST(OpCoverage, SeededConstantsAreNotInTheObjectCode) {
  // 16 MiB of seeded weights: a few KiB of code. The same values as raw
  // data are embedded, which is what makes the measure mean something.
  auto graphWith = [](bool seeded) {
    GraphBuilder b(seeded ? "seeded" : "data");
    std::string bytes(16u << 20, '\0');
    fillSeededUniform(3, -1, 1, v1::DTYPE_F32, 1 << 22, bytes.data());
    Value w = seeded ? b.seededUniform(v1::DTYPE_F32, {1 << 22}, 3, -1, 1)
                     : b.constant(v1::DTYPE_F32, {1 << 22}, std::move(bytes));
    b.output(b.add(b.parameter("x", v1::DTYPE_F32, {1 << 22}), w));
    return *b.build();
  };
  auto seeded = compiler::Compiler::compileToObject(graphWith(true));
  auto data = compiler::Compiler::compileToObject(graphWith(false));
  ASSERT_TRUE(seeded.isOk()) << seeded.status().toString();
  ASSERT_TRUE(data.isOk()) << data.status().toString();
  EXPECT_LT(seeded->objectCode.size(), 64u << 10);
  EXPECT_GT(data->objectCode.size(), 16u << 20);
}

TEST(OpCoverage, LongChainsAreSeveralKernels) {
  // 300 elementwise ops in a chain: the plan cuts it into kernels of at
  // most 128 ops (LLVM's work on one loop body grows faster than the
  // body), and codegen builds exactly those kernels (the plan check runs
  // on every compile; it used to cut at its own bound and fail it).
  auto build = [](GraphBuilder &b) {
    Value v = b.parameter("x", v1::DTYPE_F32, {"n", 3});
    for (int i = 0; i < 300; ++i)
      v = i % 4 == 0   ? b.abs(v)
          : i % 4 == 1 ? b.neg(v)
          : i % 4 == 2 ? b.exp(v)
                       : b.tanh(v);
    b.output(v);
  };
  check("long_chain", build);
  GraphBuilder b("long_chain");
  build(b);
  compiler::CompileReport report;
  ASSERT_TRUE(compiler::Compiler::compile(*b.build(), {}, &report).isOk());
  EXPECT_EQ(report.kernelCount, 3);
}

TEST(OpCoverage, WideConcatenate) {
  // 200 operands of two symbolic sizes: built as copies into one buffer
  // (anyshape-copy-concatenations), which bufferization used to take
  // seconds to analyse.
  check("wide_concatenate", [](GraphBuilder &b) {
    Value x = b.parameter("x", v1::DTYPE_F32, {"n", 3});
    Value y = b.parameter("y", v1::DTYPE_F32, {2, 3});
    std::vector<Value> parts;
    for (int i = 0; i < 200; ++i)
      parts.push_back(i % 3 == 0 ? y : (i % 3 == 1 ? x : b.neg(x)));
    b.output(b.concatenate(parts, 0));
  });
}

/// Runs `executable` and the reference evaluator on `inputs` and compares
/// their first outputs.
testing::AssertionResult matchesReference(const v1::Graph &graph,
                                          const jit::Executable &executable,
                                          const std::vector<Literal> &inputs) {
  std::vector<v1::Tensor> tensors;
  for (const Literal &input : inputs)
    tensors.push_back(literalToTensor(input));
  auto expected = evaluateGraph(graph, inputs);
  auto actual = executable.run(tensors);
  if (!expected.isOk() || !actual.isOk())
    return testing::AssertionFailure() << expected.status().toString() << " / "
                                       << actual.status().toString();
  NumericDiff diff =
      compareLiterals(*literalFromTensor((*actual)[0]), (*expected)[0]);
  if (!diff.ok())
    return testing::AssertionFailure() << diff.firstMismatch;
  return testing::AssertionSuccess();
}

TEST(OpCoverage, RuntimeSizeOneBroadcast) {
  // m is 1 or n at run time: the broadcast must stretch exactly then.
  GraphBuilder b("stretch");
  Value x = b.parameter("x", v1::DTYPE_F32, {"m"});
  b.parameter("y", v1::DTYPE_F32, {"n"});
  b.output(b.broadcastInDim(x, {"n"}, {0}));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk());
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  for (auto [m, n] : {std::pair{1, 5}, std::pair{5, 5}, std::pair{1, 1}})
    EXPECT_TRUE(matchesReference(*graph, **executable,
                                 {randomLiteral(v1::DTYPE_F32, {m}, 1),
                                  randomLiteral(v1::DTYPE_F32, {n}, 2)}))
        << "m=" << m << " n=" << n;
}

namespace {

/// k is 1 (the stretch versions) or m (the no-stretch ones), on shapes
/// small enough for the serial versions and large enough for the parallel
/// ones, all from one compile; `reduce` adds a row sum over the product
/// (a row kernel on the GPU).
void checkImplicitBroadcastVersions(const compiler::CompileOptions &options,
                                    bool reduce) {
  GraphBuilder b("maybe_stretch");
  Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "m"});
  Value bias = b.parameter("b", v1::DTYPE_F32, {"k"});
  Value product = b.mul(x, b.broadcastInDim(bias, {"rows", "m"}, {1}));
  b.output(product);
  if (reduce)
    b.output(b.reduce(product, {1}, Reduction::Sum));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk());
  auto executable = compiler::Compiler::compile(*graph, options);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  for (auto [rows, m] : {std::pair{3, 1}, std::pair{5, 17}, std::pair{1, 40},
                         std::pair{300, 130}, std::pair{64, 1024}})
    for (int64_t k : {int64_t{1}, int64_t{m}})
      EXPECT_TRUE(matchesReference(*graph, **executable,
                                   {randomLiteral(v1::DTYPE_F32, {rows, m}, 1),
                                    randomLiteral(v1::DTYPE_F32, {k}, 2)}))
          << "rows=" << rows << " m=" << m << " k=" << k;
}

} // namespace

TEST(OpCoverage, ImplicitBroadcastVersionsAgree) {
  checkImplicitBroadcastVersions({}, false);
}

/// The CUDA kernels' two versions (emulated), for a kLoop kernel and for
/// row kernels in each of their versions.
TEST(OpCoverage, ImplicitBroadcastVersionsAgreeOnEmulatedCuda) {
  for (const char *rows : {"auto", "thread", "warp", "block"}) {
    compiler::CompileOptions options;
    options.backend = compiler::KernelBackend::kCudaEmulated;
    options.cuda.rowSchedule = rows;
    checkImplicitBroadcastVersions(options, true);
  }
}

TEST(OpCoverage, FloatProductsOverflowingF32BeforeAZeroAreZero) {
  // 1e30 * 1e30 overflows f32 to inf, and inf * 0 is NaN; the product of
  // the row is 0, as the reference (which multiplies in double) has it.
  // Rows and columns, serial and parallel versions.
  for (int64_t axis : {1, 0}) {
    GraphBuilder b("prod_overflow");
    Value x = b.parameter("x", v1::DTYPE_F32, {"rows", "cols"});
    b.output(b.reduce(x, {axis}, Reduction::Prod));
    auto graph = b.build();
    ASSERT_TRUE(graph.isOk());
    auto executable = compiler::Compiler::compile(*graph);
    ASSERT_TRUE(executable.isOk()) << executable.status().toString();
    for (auto [rows, cols] :
         {std::pair<int64_t, int64_t>{1, 3}, {4, 8}, {300, 8}, {8, 300}}) {
      int64_t reduced = axis == 1 ? cols : rows;
      if (reduced > 8) // 1e30^8 overflows double too: no reference
        continue;
      Literal x0 = Literal::zeros(v1::DTYPE_F32, {rows, cols});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          x0.setDouble(r * cols + c,
                       (axis == 1 ? c : r) == reduced - 1 ? 0.0 : 1e30);
      EXPECT_TRUE(matchesReference(*graph, **executable, {x0}))
          << "axis=" << axis << " rows=" << rows << " cols=" << cols;
    }
  }
}

TEST(OpCoverage, F32ErfIsWithinFourTenthsOfAMillionthOfErf) {
  // The compiled erf (one rational function, MathApproximation.cpp) on a
  // grid of 240,001 points over [-6, 6] and the special values, against
  // erf in double: at most 4e-7 off (3.2e-7 measured; MLIR's three-piece
  // form it replaced: 2.4e-7), never beyond [-1, 1], odd, and NaN for NaN.
  GraphBuilder b("erf");
  b.output(b.erf(b.parameter("x", v1::DTYPE_F32, {"n"})));
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk());
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> xs{0.0f,
                        -0.0f,
                        1e-30f,
                        -1e-30f,
                        kInf,
                        -kInf,
                        std::numeric_limits<float>::max(),
                        std::nanf("")};
  constexpr int kSteps = 120000;
  const auto zero = static_cast<int64_t>(xs.size()) + kSteps; // x = 0's index
  for (int k = -kSteps; k <= kSteps; ++k)
    xs.push_back(6.0f * static_cast<float>(k) / kSteps);
  Literal x = Literal::zeros(v1::DTYPE_F32, {static_cast<int64_t>(xs.size())});
  for (size_t k = 0; k < xs.size(); ++k)
    x.setDouble(static_cast<int64_t>(k), xs[k]);
  auto out = (*executable)->run({literalToTensor(x)});
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  auto y = literalFromTensor(out->at(0));
  ASSERT_TRUE(y.isOk());
  double worst = 0, worstAt = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    double got = y->getDouble(static_cast<int64_t>(k));
    if (std::isnan(xs[k])) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    ASSERT_LE(std::fabs(got), 1.0) << "erf(" << xs[k] << ")";
    double error = std::fabs(got - std::erf(static_cast<double>(xs[k])));
    if (error > worst)
      worst = error, worstAt = xs[k];
  }
  EXPECT_LE(worst, 4e-7) << "at " << worstAt;
  // Odd: erf(-x) = -erf(x), bit for bit, across the grid.
  for (int k = 1; k <= kSteps; ++k)
    ASSERT_EQ(y->getDouble(zero + k), -y->getDouble(zero - k))
        << "x = " << xs[zero + k];
}

TEST(OpCoverage, GatherAndDotGeneral) {
  for (DType t : {v1::DTYPE_F32, v1::DTYPE_BF16, v1::DTYPE_I32, v1::DTYPE_I64})
    check("gather_dot/" + dtypeName(t),
          [&](GraphBuilder &b) {
            Value table = b.parameter("table", t, {"n", 3});
            Value ids = b.parameter("ids", v1::DTYPE_I64, {4, 2});
            Value w = b.parameter("w", t, {3, "n"});
            // ids in [0, 8) against n rows: out-of-range ids clamp.
            b.output(b.gather(table, ids, 0));
            b.output(b.gather(w, ids, 1));
            b.output(b.dotGeneral(table, w, {}, {}, {1}, {0}));
            Value batched = b.reshape(table, {1, "n", 3});
            b.output(b.dotGeneral(batched, batched, {0}, {0}, {2}, {2}));
          },
          {1, 2, 9});
}

TEST(OpCoverage, InputShapeMismatchIsAnErrorNotACrash) {
  GraphBuilder b("mismatch");
  Value x = b.parameter("x", v1::DTYPE_F32, {"n", 4});
  Value y = b.parameter("y", v1::DTYPE_F32, {"n", 4});
  b.output(b.add(x, y));
  auto graph = b.build();
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk());
  auto result =
      (*executable)
          ->run({literalToTensor(randomLiteral(v1::DTYPE_F32, {3, 4}, 1)),
                 literalToTensor(randomLiteral(v1::DTYPE_F32, {5, 4}, 2))});
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("input 'y' dim 0"),
            std::string::npos)
      << result.status().message();
  auto wrongRank =
      (*executable)
          ->run({literalToTensor(randomLiteral(v1::DTYPE_F32, {3}, 1)),
                 literalToTensor(randomLiteral(v1::DTYPE_F32, {3, 4}, 2))});
  EXPECT_FALSE(wrongRank.isOk());
  auto wrongBytes = literalToTensor(randomLiteral(v1::DTYPE_F32, {3, 4}, 1));
  wrongBytes.mutable_data()->resize(7);
  EXPECT_FALSE((*executable)->run({wrongBytes, wrongBytes}).isOk());
}

TEST(OpCoverage, BoolInputBytesOtherThanOneAreTrue) {
  GraphBuilder b("bools");
  Value p = b.parameter("p", v1::DTYPE_BOOL, {"n"});
  b.output(b.logicalNot(p));
  b.output(b.convert(p, v1::DTYPE_I32));
  auto graph = b.build();
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk());
  v1::Tensor input;
  input.set_dtype(v1::DTYPE_BOOL);
  input.add_shape(4);
  input.set_data(std::string("\x00\x01\x02\xff", 4));
  auto outputs = (*executable)->run({input});
  ASSERT_TRUE(outputs.isOk()) << outputs.status().toString();
  EXPECT_EQ((*outputs)[0].data(), std::string("\x01\x00\x00\x00", 4));
  Literal asInt = *literalFromTensor((*outputs)[1]);
  EXPECT_EQ(asInt.i, (std::vector<int64_t>{0, 1, 1, 1}));
}

TEST(OpCoverage, SinAndCosKeepF32PrecisionFromTinyToLargeAngles) {
  // Both signs, |x| from 1e-9 to 1e5 (RoPE's angles reach thousands), and
  // the special values. MLIR's own reduction gave sin(-1e-8) = 6e-8 and
  // sin(100.5) 6e-6 off; each result must be within 1e-6 of the exact
  // value relative to |sin x| (or to 1e-30 near a zero).
  std::vector<double> x = {
      0.0,    -0.0,   1e-30,   -1e-30, 1.5707963267948966, -3.141592653589793,
      4096.0, 8191.5, -70000.0};
  for (int k = 0; k < 400; ++k) {
    double magnitude = std::pow(10.0, -9.0 + 14.0 * k / 399.0);
    x.push_back(k % 2 ? -magnitude : magnitude);
  }
  GraphBuilder b("angles");
  Value in = b.parameter("x", v1::DTYPE_F32, {"n"});
  b.output(b.sin(in), "sin");
  b.output(b.cos(in), "cos");
  auto graph = b.build();
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  Literal angles = Literal::zeros(v1::DTYPE_F32, {int64_t(x.size())});
  for (size_t k = 0; k < x.size(); ++k)
    angles.setDouble(int64_t(k), x[k]);
  auto executable = compiler::Compiler::compile(*graph);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto out = (*executable)->run({literalToTensor(angles)});
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  for (int o = 0; o < 2; ++o) {
    auto got = literalFromTensor((*out)[o]);
    ASSERT_TRUE(got.isOk());
    for (size_t k = 0; k < x.size(); ++k) {
      double angle = angles.getDouble(int64_t(k)); // as f32 rounded it
      double want = o == 0 ? std::sin(angle) : std::cos(angle);
      double error = std::fabs(got->getDouble(int64_t(k)) - want);
      EXPECT_LE(error, 1e-6 * std::max(std::fabs(want), 1e-30))
          << (o == 0 ? "sin(" : "cos(") << angle << ")";
    }
  }
  // NaN and the infinities give NaN.
  Literal special = Literal::zeros(v1::DTYPE_F32, {3});
  special.setDouble(0, std::nan(""));
  special.setDouble(1, INFINITY);
  special.setDouble(2, -INFINITY);
  auto nans = (*executable)->run({literalToTensor(special)});
  ASSERT_TRUE(nans.isOk()) << nans.status().toString();
  for (int o = 0; o < 2; ++o) {
    auto got = literalFromTensor((*nans)[o]);
    ASSERT_TRUE(got.isOk());
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_TRUE(std::isnan(got->getDouble(k))) << o << " " << k;
  }
}

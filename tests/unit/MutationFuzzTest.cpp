// Robustness against graphs nobody wrote by hand: the example graphs are
// mutated at random through protobuf reflection (any field of any message:
// extreme integers, foreign names, unknown enum numbers, NaNs, dropped or
// duplicated list entries), then validated and, when valid, evaluated at
// small sizes. The assertions are that nothing crashes or hangs, that every
// failure is a clean INVALID_ARGUMENT / RESOURCE_EXHAUSTED / NOT_FOUND with
// a message, and that a graph which validates also evaluates or fails with
// a message naming a node or input. Deterministic: fixed seeds.
#include "ir/graph/GraphText.h"
#include "ir/graph/Validate.h"
#include "ir/reference/Evaluator.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace anyshape;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

namespace {

class Mutator {
public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  /// Applies one random mutation somewhere in `root`.
  void mutate(Message &root, const std::vector<std::string> &names) {
    names_ = &names;
    std::vector<std::pair<Message *, const FieldDescriptor *>> sites;
    collect(root, sites);
    if (sites.empty())
      return;
    auto [message, field] = sites[pick(sites.size())];
    mutateField(*message, field);
  }

private:
  size_t pick(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  void
  collect(Message &m,
          std::vector<std::pair<Message *, const FieldDescriptor *>> &out) {
    const auto *d = m.GetDescriptor();
    const auto *r = m.GetReflection();
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor *f = d->field(i);
      out.push_back({&m, f});
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
        continue;
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(m, f); ++k)
          collect(*r->MutableRepeatedMessage(&m, f, k), out);
      } else if (r->HasField(m, f)) {
        collect(*r->MutableMessage(&m, f), out);
      }
    }
  }

  int64_t interestingInt() {
    static const int64_t values[] = {-1,
                                     0,
                                     1,
                                     2,
                                     3,
                                     7,
                                     64,
                                     768,
                                     -5,
                                     int64_t(1) << 32,
                                     int64_t(1) << 62,
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min()};
    return values[pick(std::size(values))];
  }

  std::string interestingString() {
    if (!names_->empty() && pick(3) != 0)
      return (*names_)[pick(names_->size())];
    static const char *values[] = {"",  "bogus", "seq",     "batch",
                                   "?", "add",   "reshape", "x y"};
    return values[pick(std::size(values))];
  }

  void mutateField(Message &m, const FieldDescriptor *f) {
    const auto *r = m.GetReflection();
    if (f->is_repeated()) {
      int size = r->FieldSize(m, f);
      if (size > 0 && pick(2) == 0) { // drop the last entry
        r->RemoveLast(&m, f);
        return;
      }
      if (size > 0 && f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
        // Duplicate an entry by appending a mutated scalar.
        appendScalar(m, f);
        return;
      }
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (size > 0)
          r->AddMessage(&m, f)->CopyFrom(
              r->GetRepeatedMessage(m, f, pick(size)));
        return;
      }
      appendScalar(m, f);
      return;
    }
    switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(&m, f, interestingInt());
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(&m, f, static_cast<uint64_t>(interestingInt()));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(&m, f, static_cast<int32_t>(interestingInt()));
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      static const double values[] = {std::nan(""), INFINITY, -1e300, 0.0, 2.5};
      r->SetDouble(&m, f, values[pick(std::size(values))]);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(&m, f, pick(2) == 0);
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(&m, f, static_cast<int>(pick(12)) - 1);
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      if (f->type() == FieldDescriptor::TYPE_BYTES)
        r->SetString(&m, f, std::string(pick(9), '\x01'));
      else
        r->SetString(&m, f, interestingString());
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (pick(2) == 0)
        r->ClearField(&m, f);
      else
        r->MutableMessage(&m, f); // sets an empty submessage (a oneof switch)
      break;
    default:
      break;
    }
  }

  void appendScalar(Message &m, const FieldDescriptor *f) {
    const auto *r = m.GetReflection();
    switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      r->AddInt64(&m, f, interestingInt());
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r->AddString(&m, f, interestingString());
      break;
    default:
      break;
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string> *names_ = nullptr;
};

bool isCleanError(const Status &s) {
  return !s.message().empty() && (s.code() == StatusCode::InvalidArgument ||
                                  s.code() == StatusCode::ResourceExhausted ||
                                  s.code() == StatusCode::NotFound);
}

void fuzzExample(const std::string &example, int iterations,
                 std::map<std::string, int64_t> dims,
                 int64_t maxElements = 1 << 16) {
  auto original =
      loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) + "/examples/" + example);
  ASSERT_TRUE(original.isOk()) << original.status().toString();
  std::vector<std::string> names;
  for (const auto &input : original->inputs())
    names.push_back(input.name());
  for (const auto &node : original->nodes())
    names.push_back(node.name());

  EvalOptions options;
  // Small enough to keep evaluation quick, large enough for the weights.
  options.limits.maxElementsPerTensor = maxElements;
  int validated = 0, evaluated = 0;
  for (int it = 0; it < iterations; ++it) {
    Mutator mutator(0x5eed0000u + it);
    v1::Graph graph = *original;
    for (int m = 0; m <= it % 3; ++m)
      mutator.mutate(graph, names);
    auto info = validateGraph(graph, options.limits);
    if (!info) {
      EXPECT_TRUE(isCleanError(info.status())) << info.status().toString();
      continue;
    }
    ++validated;
    auto shapes = inputShapesFor(graph, dims, options.limits);
    if (!shapes) {
      EXPECT_TRUE(isCleanError(shapes.status()));
      continue;
    }
    std::vector<Literal> inputs;
    for (int k = 0; k < graph.inputs_size(); ++k)
      inputs.push_back(
          randomLiteral(graph.inputs(k).type().dtype(), (*shapes)[k], k));
    auto outputs = evaluateGraph(graph, inputs, options);
    if (outputs)
      ++evaluated;
    else
      EXPECT_TRUE(isCleanError(outputs.status()))
          << outputs.status().toString();
  }
  // The mutations must leave some graphs valid, or the test exercises
  // validation alone.
  EXPECT_GT(validated, iterations / 20) << example;
  EXPECT_GT(evaluated, 0) << example;
}

} // namespace

TEST(MutationFuzz, ElementwiseReduce) {
  fuzzExample("elementwise_reduce.pbtxt", 1500, {{"rows", 3}, {"cols", 5}});
}

TEST(MutationFuzz, Mlp) {
  fuzzExample("mlp.pbtxt", 600, {{"batch", 2}}, 1 << 18);
}

TEST(MutationFuzz, Embedding) {
  fuzzExample("embedding.pbtxt", 800, {{"batch", 2}, {"seq", 3}});
}

TEST(MutationFuzz, BertEncoderLayer) {
  fuzzExample("bert_encoder_layer.pbtxt", 150, {{"batch", 1}, {"seq", 2}},
              1 << 22);
}

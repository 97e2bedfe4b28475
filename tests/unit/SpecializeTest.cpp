// Static specialisation of graphs: bound symbols disappear from input dims,
// expressions and shape attributes; unbound ones stay; bad bindings fail.
#include "TestUtil.h"

#include "ir/graph/GraphText.h"
#include "ir/graph/Specialize.h"
#include "ir/graph/Validate.h"

#include <gtest/gtest.h>

using namespace anyshape;

namespace {

v1::Graph bert() {
  auto graph = loadGraphFile(std::string(ANYSHAPE_SOURCE_DIR) +
                             "/examples/bert_encoder_layer.pbtxt");
  EXPECT_TRUE(graph.isOk());
  return *graph;
}

} // namespace

TEST(Specialize, FullyStaticGraphHasNoSymbolsLeft) {
  auto graph = specializeGraph(bert(), {{"batch", 2}, {"seq", 16}});
  ASSERT_TRUE(graph.isOk()) << graph.status().toString();
  auto info = validateGraph(*graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_TRUE(info->symbols.empty());
  for (const SymTensorType &t : info->nodeTypes)
    EXPECT_TRUE(t.staticShape().has_value()) << t.toString();
  EXPECT_EQ(info->typeOf(info->values.at("y")).toString(), "f32[2, 16, 768]");
}

TEST(Specialize, PartialBindingKeepsTheOtherSymbol) {
  auto graph = specializeGraph(bert(), {{"batch", 1}});
  ASSERT_TRUE(graph.isOk());
  auto info = validateGraph(*graph);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->typeOf(info->values.at("y")).toString(), "f32[1, seq, 768]");
}

TEST(Specialize, ExpressionsAndSliceBoundsAreSubstituted) {
  auto graph = parseGraphText(R"(
    inputs { name: "x" type { dtype: DTYPE_F32 dims { symbol: "n" } dims { symbol: "m" } } }
    nodes { name: "r" op: "reshape" operands: "x" reshape { shape { expr { terms { coefficient: 1 symbols: "n" symbols: "m" } } } } }
    nodes { name: "s" op: "slice" operands: "r" slice { start_indices { constant: 1 } limit_indices { terms { coefficient: 1 symbols: "n" symbols: "m" } } } }
    outputs: "s")");
  ASSERT_TRUE(graph.isOk());
  auto specialized = specializeGraph(*graph, {{"n", 3}});
  ASSERT_TRUE(specialized.isOk());
  auto info = validateGraph(*specialized);
  ASSERT_TRUE(info.isOk()) << info.status().toString();
  EXPECT_EQ(info->typeOf(info->values.at("r")).toString(), "f32[3*m]");
  EXPECT_EQ(info->typeOf(info->values.at("s")).toString(), "f32[3*m - 1]");
}

TEST(Specialize, RejectsUnknownAndNegativeBindings) {
  EXPECT_FALSE(specializeGraph(bert(), {{"tokens", 4}}).isOk());
  EXPECT_FALSE(specializeGraph(bert(), {{"seq", -1}}).isOk());
}

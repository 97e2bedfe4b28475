// The op table: every op is found by name, takes the attribute message its
// row names, and is specified in docs/ops.md (so the spec cannot silently
// fall behind the code).
#include "ir/graph/OpRegistry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace anyshape;

TEST(OpRegistry, EveryOpIsFoundByName) {
  EXPECT_EQ(allOps().size(), 44u);
  for (const OpInfo &op : allOps()) {
    const OpInfo *found = lookupOp(op.name);
    ASSERT_NE(found, nullptr) << op.name;
    EXPECT_EQ(found->name, op.name);
  }
  EXPECT_EQ(lookupOp("frobnicate"), nullptr);
  EXPECT_EQ(lookupOp(""), nullptr);
  EXPECT_EQ(lookupOp("parameter"), nullptr); // inputs are not nodes
}

TEST(OpRegistry, AttributeNamesMatchOpNames) {
  for (const OpInfo &op : allOps())
    if (op.attrs != v1::Node::ATTRS_NOT_SET && op.name != "compare" &&
        op.name != "convert")
      EXPECT_EQ(attrsName(op.attrs), op.name);
  EXPECT_EQ(attrsName(lookupOp("compare")->attrs), "compare");
  EXPECT_EQ(attrsName(v1::Node::ATTRS_NOT_SET), "none");
}

TEST(OpRegistry, EveryOpIsDocumented) {
  std::ifstream file(std::string(ANYSHAPE_SOURCE_DIR) + "/docs/ops.md");
  ASSERT_TRUE(file) << "docs/ops.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  // Each op is named as code or in bold where its section specifies it.
  for (const OpInfo &op : allOps()) {
    std::string name(op.name);
    bool found = text.str().find("`" + name + "`") != std::string::npos ||
                 text.str().find("**" + name + "**") != std::string::npos;
    EXPECT_TRUE(found) << name << " is not documented in docs/ops.md";
  }
}

// What the ONNX importer's refusal and run-time check tests share: a
// one-node model over x: f32[rows, cols], the check that an import is
// refused with a given message, and a run of a compiled model on ones.
#pragma once

#include "ModelBuilder.h"
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Literal.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace anyshape::test {

inline void setString(::onnx::NodeProto *n, const std::string &name,
                      const std::string &value) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(value);
}

inline void expectRefused(const ModelBuilder &m, const std::string &expected) {
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  ASSERT_FALSE(graph.isOk()) << "imported; expected: " << expected;
  EXPECT_NE(graph.status().message().find(expected), std::string::npos)
      << graph.status().message();
}

/// x: f32[rows, cols] into one node `op` with extra inputs, output y.
inline ModelBuilder oneNode(const std::string &op,
                            std::vector<std::string> inputs,
                            std::vector<std::string> outputs = {"y"},
                            std::vector<std::string> dims = {"rows", "cols"}) {
  ModelBuilder m(18);
  m.input("x", dims);
  m.node(op, inputs, outputs);
  for (const std::string &o : outputs)
    m.output(o);
  return m;
}

inline Literal ones(std::vector<int64_t> shape) {
  Literal l = Literal::zeros(v1::DTYPE_F32, shape);
  for (double &v : l.f)
    v = 1.0;
  return l;
}

inline Status runOn(jit::Executable &e, std::vector<int64_t> shape) {
  auto out = e.run({literalToTensor(ones(std::move(shape)))});
  return out.isOk() ? Status::ok() : out.status();
}

/// `m` imported and compiled, or null with the failure recorded.
inline std::shared_ptr<jit::Executable> compileModel(const ModelBuilder &m) {
  std::shared_ptr<jit::Executable> none;
  auto graph = anyshape::onnx::importOnnx(m.bytes());
  EXPECT_TRUE(graph.isOk()) << graph.status().toString();
  if (!graph.isOk())
    return none;
  auto compiled = compiler::Compiler::compile(*graph);
  EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
  return compiled.isOk() ? *compiled : none;
}

} // namespace anyshape::test

// ModelBuilder: ONNX models written with ONNX's own schema classes, for
// the importer's tests (no model file, no Python).
#pragma once

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace anyshape::test {

struct ModelBuilder {
  ::onnx::ModelProto model;
  ::onnx::GraphProto *graph = model.mutable_graph();

  explicit ModelBuilder(int64_t opset = 17) {
    model.set_ir_version(8);
    auto *import = model.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
    graph->set_name("test_model");
  }
  // `graph` points into `model`: a copy points into its own.
  ModelBuilder(const ModelBuilder &other)
      : model(other.model), graph(model.mutable_graph()) {}
  ModelBuilder &operator=(const ModelBuilder &) = delete;
  void input(const std::string &name, std::vector<std::string> dims,
             int32_t type = ::onnx::TensorProto::FLOAT) {
    auto *in = graph->add_input();
    in->set_name(name);
    auto *tensor = in->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    for (const std::string &d : dims) {
      auto *dim = tensor->mutable_shape()->add_dim();
      if (d.empty())
        continue; // unnamed dynamic
      if (std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  }
  void floats(const std::string &name, std::vector<int64_t> shape,
              std::vector<float> values, bool raw = false) {
    auto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : shape)
      t->add_dims(d);
    if (raw)
      t->set_raw_data(std::string(reinterpret_cast<const char *>(values.data()),
                                  values.size() * sizeof(float)));
    else
      for (float v : values)
        t->add_float_data(v);
  }
  void ints(const std::string &name, std::vector<int64_t> values) {
    auto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values)
      t->add_int64_data(v);
  }
  ::onnx::NodeProto *node(const std::string &op,
                          std::vector<std::string> inputs,
                          std::vector<std::string> outputs) {
    auto *n = graph->add_node();
    n->set_name(outputs.empty() ? op : outputs[0] + "_" + op);
    n->set_op_type(op);
    for (auto &i : inputs)
      n->add_input(i);
    for (auto &o : outputs)
      n->add_output(o);
    return n;
  }
  void output(const std::string &name) { graph->add_output()->set_name(name); }
  std::string bytes() const { return model.SerializeAsString(); }
};

inline void setInt(::onnx::NodeProto *n, const std::string &name,
                   int64_t value) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

inline void setInts(::onnx::NodeProto *n, const std::string &name,
                    std::vector<int64_t> values) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

} // namespace anyshape::test

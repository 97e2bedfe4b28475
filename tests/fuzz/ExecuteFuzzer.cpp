// libFuzzer target: an Execute request as a client sends it, decoded and
// checked as the server does before a kernel runs -- each named input
// matched to the graph, validated as a wire tensor (server/TensorStore.h),
// added to a bounded tensor store and read back by its content id (the
// UploadTensor path), then the symbols bound and every run-time shape
// condition checked (ir/graph/Bindings.h, what the compiled shape checks
// decide). The first byte picks one of the example graphs; the rest is a
// binary v1::ExecuteRequest. Nothing may crash, trip a sanitizer, or
// exceed libFuzzer's limits, whatever the shapes and sizes claim.
//
//   build/bin/anyshape-fuzz-execute -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/execute
#include "examples/ExampleGraphs.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/Validate.h"
#include "server/TensorStore.h"

#include "anyshape/v1/service.pb.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using namespace anyshape;

struct Example {
  v1::Graph graph;
  GraphInfo info;
};

const std::vector<Example> &exampleGraphs() {
  static const std::vector<Example> made = [] {
    std::vector<Example> all;
    for (void (*build)(client::GraphBuilder &) :
         {examples::mlp, examples::elementwiseReduce, examples::embedding,
          examples::bertEncoderLayer}) {
      client::GraphBuilder builder("example");
      build(builder);
      Example e{*builder.build(), {}};
      e.info = *validateGraph(e.graph);
      all.push_back(std::move(e));
    }
    return all;
  }();
  return made;
}

/// The server's decoding of `request` against `e`: OK or a clear error,
/// never anything else.
void decode(const Example &e, const v1::ExecuteRequest &request) {
  constexpr int64_t kStoreBytes = 64 << 20;
  constexpr int64_t kMaxElements = 1 << 24;
  server::TensorStore store(kStoreBytes, kMaxElements);
  const v1::Graph &graph = e.graph;
  std::vector<std::shared_ptr<const v1::Tensor>> ordered(graph.inputs_size());
  for (const v1::NamedTensor &input : request.inputs()) {
    int index = 0;
    while (index < graph.inputs_size() &&
           graph.inputs(index).name() != input.name())
      ++index;
    if (index == graph.inputs_size() || ordered[index] || !input.has_tensor())
      return;
    if (!server::validateTensor(input.tensor(), "input", kMaxElements).isOk())
      return;
    auto added = store.add(input.tensor());
    if (!added.isOk())
      return;
    ordered[index] = store.get(added->id);
    if (!ordered[index] ||
        ordered[index]->data().size() != input.tensor().data().size())
      __builtin_trap(); // the store lost or changed what it accepted
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const auto &tensor : ordered) {
    if (!tensor)
      return;
    shapes.emplace_back(tensor->shape().begin(), tensor->shape().end());
  }
  if (!bindSymbols(graph, shapes).isOk())
    return;
  (void)checkConcreteShapes(graph, e.info, shapes);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const std::vector<Example> &all = exampleGraphs();
  v1::ExecuteRequest request;
  if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1)))
    return 0;
  decode(all[data[0] % all.size()], request);
  return 0;
}

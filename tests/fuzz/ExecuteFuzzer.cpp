// libFuzzer target: an Execute request as a client sends it, decoded and
// checked as the server does, then run on the compiled executable -- each
// named input matched to the graph, validated as a wire tensor
// (server/TensorStore.h), added to a bounded tensor store and read back by
// its content id (the UploadTensor path), the symbols bound and every
// run-time shape condition checked (ir/graph/Bindings.h), and the inputs
// run by the example's executable (compiled once, at -O0, by the same
// uninstrumented compiler the server runs). The executable's generated
// shape checks must decide as the evaluator's rules do: a run that
// succeeds where they refuse, or fails where they accept, traps. The
// first byte picks one of the example graphs; the rest is a binary
// v1::ExecuteRequest. Nothing may crash, trip a sanitizer, or exceed
// libFuzzer's limits, whatever the shapes and sizes claim.
//
//   build/bin/anyshape-fuzz-execute -max_total_time=600 CORPUS_DIR \
//       tests/fuzz/corpus/execute
#include "compiler/Compiler.h"
#include "examples/ExampleGraphs.h"
#include "ir/graph/Bindings.h"
#include "ir/graph/Validate.h"
#include "server/TensorStore.h"

#include "anyshape/v1/service.pb.h"

#include <google/protobuf/stubs/logging.h>

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <pthread.h>

namespace {

using namespace anyshape;

/// SIGALRM held back while compiled code runs. libFuzzer's timeout alarm
/// runs its handler on the interrupted thread's stack, and oneDNN's JITed
/// GEMM runs on a stack it allocated from the heap: ASan then reports the
/// handler's own frame as a heap overflow. Threads started meanwhile (the
/// OpenMP team) inherit the block, so the alarm only ever lands on the
/// fuzzing thread between runs. A run that hangs is still stopped by the
/// test's timeout (ctest's, 600 s).
class AlarmHeldBack {
public:
  AlarmHeldBack() {
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, &previous_);
  }
  ~AlarmHeldBack() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

private:
  sigset_t previous_;
};

struct Example {
  v1::Graph graph;
  GraphInfo info;
  std::shared_ptr<jit::Executable> executable;
};

const std::vector<Example> &exampleGraphs() {
  static const std::vector<Example> made = [] {
    AlarmHeldBack held; // LLVM's and OpenMP's threads start with it blocked
    std::vector<Example> all;
    for (void (*build)(client::GraphBuilder &) :
         {examples::mlp, examples::elementwiseReduce, examples::embedding,
          examples::bertEncoderLayer}) {
      client::GraphBuilder builder("example");
      build(builder);
      Example e{*builder.build(), {}, nullptr};
      e.info = *validateGraph(e.graph);
      compiler::CompileOptions options;
      options.optLevel = 0; // the target is the checks, not the kernels
      auto compiled = compiler::Compiler::compile(e.graph, options);
      if (!compiled.isOk())
        __builtin_trap(); // an example that does not compile: a bug
      e.executable = *compiled;
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
  // The compiled checks run before any kernel touches data (dtypes, then
  // the symbols and every shape rule): they must agree with the declared
  // dtypes and the evaluator's rules (checkConcreteShapes binds the
  // symbols itself).
  bool accepted = checkConcreteShapes(graph, e.info, shapes).isOk();
  for (int k = 0; k < graph.inputs_size(); ++k)
    accepted =
        accepted && ordered[k]->dtype() == graph.inputs(k).type().dtype();
  std::vector<const v1::Tensor *> inputs;
  for (const auto &tensor : ordered)
    inputs.push_back(tensor.get());
  StatusOr<std::vector<v1::Tensor>> ran = [&] {
    AlarmHeldBack held;
    return e.executable->run(inputs);
  }();
  if (ran.isOk() != accepted)
    __builtin_trap(); // the compiled checks and the rules disagree
  // A refusal must be the caller's error: a shape the rules refuse, or
  // sizes beyond the element limit (RESOURCE_EXHAUSTED, as the walk says:
  // ids of shape [0, 3.9e13] give an empty input whose gather would
  // still count 2.5e15 elements; seed embedding_zero_batch_huge_seq).
  StatusCode code = ran.status().code();
  if (!ran.isOk() && code != StatusCode::InvalidArgument &&
      code != StatusCode::ResourceExhausted)
    __builtin_trap();
}

} // namespace

/// Protobuf logs every string field with invalid UTF-8 it parses: most
/// mutated inputs. Quiet, so that the log shows libFuzzer's progress.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

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

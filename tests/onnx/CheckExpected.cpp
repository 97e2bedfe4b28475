// anyshape-onnx-check MODEL.onnx EXPECTED [--atol X]: imports and compiles
// the model once, runs every case of EXPECTED (what PyTorch computed,
// written by examples/minilm/export_minilm.py --expected) and compares the
// embeddings. Prints one line per case with its max error; exits 0 when
// every case is within --atol (default 1e-4) and no case compiled again,
// 1 otherwise, 2 on a usage error. The ctest onnx.tiny_bert_matches_pytorch
// runs it on the committed random-weight fixture; onnx.minilm_matches_pytorch
// on the real model, when its package is installed.
#include "compiler/Compiler.h"
#include "frontend/onnx/OnnxImport.h"
#include "ir/reference/Literal.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace anyshape;

namespace {

struct Case {
  int64_t batch = 0, seq = 0, dim = 0;
  std::vector<int64_t> ids, mask;
  std::vector<double> embeddings;
};

/// The values after `label` on the next line of `in`.
template <typename T>
bool readRow(std::istream &in, const std::string &label, size_t count,
             std::vector<T> &out) {
  std::string line, word;
  if (!std::getline(in, line))
    return false;
  std::istringstream row(line);
  if (!(row >> word) || word != label)
    return false;
  T v;
  while (row >> v)
    out.push_back(v);
  return out.size() == count;
}

bool readCases(const std::string &path, std::vector<Case> &cases) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    Case c;
    std::string word;
    std::istringstream head(line);
    if (!(head >> word >> c.batch >> c.seq >> c.dim) || word != "case" ||
        c.batch < 1 || c.seq < 1 || c.dim < 1 || c.batch * c.seq > 1 << 24)
      return false;
    size_t tokens = static_cast<size_t>(c.batch * c.seq);
    if (!readRow(in, "input_ids", tokens, c.ids) ||
        !readRow(in, "attention_mask", tokens, c.mask) ||
        !readRow(in, "embeddings", static_cast<size_t>(c.batch * c.dim),
                 c.embeddings))
      return false;
    cases.push_back(std::move(c));
  }
  return !cases.empty();
}

v1::Tensor int64Tensor(int64_t batch, int64_t seq,
                       const std::vector<int64_t> &values) {
  Literal l;
  l.dtype = v1::DTYPE_I64;
  l.shape = {batch, seq};
  l.i = values;
  return literalToTensor(l);
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 2 &&
      (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << "usage: anyshape-onnx-check MODEL.onnx EXPECTED [--atol X]\n"
                 "compiles MODEL once and checks its embeddings against "
                 "EXPECTED's\n";
    return 0;
  }
  double atol = 1e-4;
  if (argc == 5 && std::string(argv[3]) == "--atol")
    atol = std::atof(argv[4]);
  else if (argc != 3) {
    std::cerr << "usage: anyshape-onnx-check MODEL.onnx EXPECTED [--atol X]\n";
    return 2;
  }
  std::vector<Case> cases;
  if (!readCases(argv[2], cases)) {
    std::cerr << "error: " << argv[2] << " is not a file of cases\n";
    return 1;
  }
  auto graph = onnx::importOnnxFile(argv[1]);
  if (!graph.isOk()) {
    std::cerr << "error: " << graph.status().toString() << "\n";
    return 1;
  }
  int64_t compiles = compiler::Compiler::compileCount();
  auto compiled = compiler::Compiler::compile(*graph);
  if (!compiled.isOk()) {
    std::cerr << "error: " << compiled.status().toString() << "\n";
    return 1;
  }
  bool allOk = true;
  for (const Case &c : cases) {
    auto out = (*compiled)->run({int64Tensor(c.batch, c.seq, c.ids),
                                 int64Tensor(c.batch, c.seq, c.mask)});
    if (!out.isOk() || out->size() != 1) {
      std::cerr << "error: batch " << c.batch << " seq " << c.seq << ": "
                << (out.isOk() ? "not one output" : out.status().toString())
                << "\n";
      return 1;
    }
    auto embeddings = literalFromTensor((*out)[0]);
    if (!embeddings.isOk() ||
        embeddings->shape != std::vector<int64_t>{c.batch, c.dim}) {
      std::cerr << "error: batch " << c.batch << " seq " << c.seq
                << ": the output is not [batch, " << c.dim << "]\n";
      return 1;
    }
    double worst = 0;
    for (size_t k = 0; k < c.embeddings.size(); ++k) {
      double error = std::fabs(embeddings->f[k] - c.embeddings[k]);
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    bool ok = worst <= atol;
    allOk = allOk && ok;
    std::printf("batch %lld seq %3lld: max_abs_err %.3g %s\n",
                static_cast<long long>(c.batch), static_cast<long long>(c.seq),
                worst, ok ? "ok" : "MISMATCH");
  }
  int64_t total = compiler::Compiler::compileCount() - compiles;
  std::printf("%zu cases, compiles: %lld\n", cases.size(),
              static_cast<long long>(total));
  bool once = total == 1;
  return allOk && once ? 0 : 1;
}

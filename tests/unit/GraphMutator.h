// GraphMutator: random mutations of wire-format graphs through protobuf
// reflection (any field of any message: extreme integers, foreign names,
// unknown enum numbers, NaNs, dropped or duplicated list entries), shared
// by the validation fuzz test and the compiled-backend fuzz test.
#pragma once

#include "anyshape/v1/graph.pb.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace anyshape::test {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

class GraphMutator {
public:
  explicit GraphMutator(uint64_t seed) : rng_(seed) {}

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

} // namespace anyshape::test
